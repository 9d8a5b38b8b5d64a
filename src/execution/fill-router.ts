// The one place the account's fills are read and handed to the bots: the venue's Reality fill has only
// execId, price, size, side and ts (spec 2.13), so the bots sharing an account (and maybe a symbol) must
// share one attribution step, or each would take the others' fills. Fills that carry the order's ids
// (the in-process backtest venue) go to the bot that journaled that order; fills without ids go through
// `attributeFills` over the open orders of every bot on the symbol, after the baseline (the account's
// fills from before the deployment first started) is set aside. Every other fill is booked exactly once (to
// a bot, in parts, or to the deployment's book) and checked against the journal at each read; the router
// also holds each symbol's market turn (one market order in flight per account and symbol).
import { Decimal } from '../market/decimal.js';
import type { OrderRecord } from '../store/orders.js';
import {
  attributeFills,
  createFillBaseline,
  excludeBaseline,
  inBaseline,
  venueExecId,
  type AttributableOrder,
  type FillBaseline,
  type FillBaselineStore,
  type FillPart,
  type VenueFill as BareFill,
} from './fill-attribution.js';
import { liquidationShares } from './liquidation-shares.js';
import type { Venue, VenueFill } from './venue.js';

/** reality-fills answers at most this many fills, newest first, with no cursor or time range (spec 4.4, §6). */
export const FILLS_PAGE = 100;

export interface FillRouterLogger {
  info(msg: string, meta?: Record<string, unknown>): void;
  warn(msg: string, meta?: Record<string, unknown>): void;
  error?(msg: string, meta?: Record<string, unknown>): void;
}

/** A journaled fill (or part of one) as the conservation check reads it. */
export interface JournaledPart {
  readonly execId: string;
  readonly side: string;
  readonly size: Decimal;
}

/** The venue's fills of a symbol disagree with the journal: the account and the books have parted. */
export interface FillMismatch {
  readonly type: 'fills-mismatch';
  /** The venue's time of the check. */
  readonly ts: number;
  readonly symbol: string;
  readonly execId: string;
  readonly side: string;
  /** What the venue says the fill is. */
  readonly size: string;
  /** What the journal holds of it (every bot's parts and the deployment's), base coin. */
  readonly booked: string;
}

/**
 * What the router did since it was made: venue fills it booked, how (exact: the fill had one order it could
 * belong to; ambiguous: the rule chose among several; split: spread over orders), parts booked to the
 * deployment for want of an order, and fills the journal disagrees with the venue on.
 */
export interface FillAccounting {
  fills: number;
  exact: number;
  ambiguous: number;
  split: number;
  unbooked: number;
  mismatches: number;
}

/** What the router needs of a bot's pipeline (its FillBooking implements it). */
export interface FillSink {
  readonly bot: string;
  /** Whether the symbol is one of the bot's pairs. */
  hasPair(symbol: string): boolean;
  /** Whether the fill is journaled already (by any bot: the journal is the deployment's). */
  hasFill(execId: string): boolean;
  /** The journaled order a fill's ids name, when it is this bot's. */
  orderOf(fill: VenueFill): OrderRecord | undefined;
  /** The bot's orders that may still receive fills on the symbol. */
  attributableOrders(symbol: string): AttributableOrder[];
  /**
   * Books one fill as the bot's (of `order` when known; marked a margin liquidation when `liquidation`);
   * answers whether it was booked.
   */
  bookFill(symbol: string, fill: VenueFill, order: OrderRecord | undefined, liquidation?: boolean): boolean;
  /**
   * How much of the bot's position on the symbol a fill of `side` would close when the venue liquidates it:
   * a MARGIN bot owing a loan, its short for a buy, its long for a sell; zero otherwise.
   */
  liquidatable(symbol: string, side: string): Decimal;
  /**
   * Books a fill (or part) no open order of a bot can take to the deployment (a journal row of no bot):
   * never to nowhere. Answers whether it was booked (false: journaled already).
   */
  bookToDeployment(symbol: string, fill: VenueFill): boolean;
  /** The journal's fills of the symbol at or after `ts` (any bot, and the deployment's); undefined: not kept. */
  journaledSince(symbol: string, ts: number): readonly JournaledPart[] | undefined;
  /** Called once per sync in which the bot booked fills (trading state, ...). */
  settle(): void;
}

export interface FillRouterOptions {
  readonly venue: Venue;
  readonly now: () => number;
  readonly logger?: FillRouterLogger | undefined;
  /** Without it no baseline is taken (a backtest: its venue starts empty). */
  readonly baselines?: FillBaselineStore | undefined;
  /**
   * How far the local clock (which dates an order's placement) may run ahead of the venue's (which
   * dates its fills), in venue ms; default 0. An order counts as placed this much earlier.
   */
  readonly clockSkewMs?: number | undefined;
}

const hasIds = (f: VenueFill): boolean =>
  (f.clientOid !== undefined && f.clientOid !== '') || (f.orderId !== undefined && f.orderId !== '');

function countFor(booked: Map<string, number>, bot: string): void {
  booked.set(bot, (booked.get(bot) ?? 0) + 1);
}

/** Whether any of the bots journaled the fill already. */
function journaledBy(sinks: readonly FillSink[], execId: string): boolean {
  for (const s of sinks) if (s.hasFill(execId)) return true;
  return false;
}

/** A wire fill as the part of it booked: its journal execId and size (the whole fill unchanged). */
function partOf(f: VenueFill, p: FillPart): VenueFill {
  if (p.execId === f.execId && p.size.eq(p.fill.size)) return f;
  const size = p.size.toFixed();
  const exact = f.exact === undefined ? undefined : { price: f.exact.price, size: p.size, ts: f.exact.ts };
  return { ...f, execId: p.execId, size, exact };
}

const bare = (f: VenueFill): BareFill & { readonly wire: VenueFill } => ({
  execId: f.execId,
  price: new Decimal(f.price),
  size: new Decimal(f.size),
  side: f.side,
  ts: Number(f.ts),
  wire: f,
});

export class FillRouter {
  private readonly sinks: FillSink[] = [];
  /** One sync at a time per symbol: two bots attributing the same fills at once would both take them. */
  private readonly chains = new Map<string, Promise<unknown>>();
  /** Syncs of each symbol started and not through yet (every sync runs one pull). */
  private readonly queued = new Map<string, number>();
  /** Each symbol's pull that waits for the running one (syncs asked meanwhile join it). */
  private readonly waiting = new Map<string, Promise<ReadonlyMap<string, number>>>();
  /**
   * Each symbol's fills already reported as unattributed or ignored, so a log line is written once per fill;
   * only those still on the symbol's page are kept (one that left the page never comes back).
   */
  private readonly reported = new Map<string, Set<string>>();
  /** Each symbol's fills on its last page that were journaled then (a page is 100 fills: 100 queries a read). */
  private readonly journaled = new Map<string, ReadonlySet<string>>();
  /** Each symbol's last page of fills, as read. */
  private readonly lastPage = new Map<string, readonly VenueFill[]>();
  /** When each symbol's last read started (performance.now() ms): a poll within its period shares it. */
  private readonly readAt = new Map<string, number>();
  /** Orders sent by the bots on this router, counted (see `nextSend`). */
  private sends = 0;
  private missing = 0;
  /** Each symbol's market order in flight (the one holding its turn) and the sends waiting, first come first. */
  private readonly turns = new Map<string, (() => void)[]>();
  private readonly watchers: ((m: FillMismatch) => void)[] = [];
  /** Fills the journal disagreed with the venue on, so the alarm is raised once per fill. */
  private readonly alarmed = new Set<string>();
  readonly accounting: FillAccounting = {
    fills: 0,
    exact: 0,
    ambiguous: 0,
    split: 0,
    unbooked: 0,
    mismatches: 0,
  };

  constructor(private readonly o: FillRouterOptions) {}

  /**
   * The next send's place among the sends of the bots on this router (one account, one journal): FIFO
   * attribution tells two sends within one tick of the clock apart by it (see `AttributableOrder.sent`).
   */
  nextSend(): number {
    return ++this.sends;
  }

  /**
   * The symbol's turn to send a market order: one market order of the account's bots is in flight per
   * symbol until its fills are read (the holder calls the answered release then), so each market order's
   * fills have one order they can belong to and attribution is exact. The others wait, first come first
   * served. Answers the release at once (no promise hop) when the turn is free.
   */
  marketTurn(symbol: string): (() => void) | Promise<() => void> {
    const queue = this.turns.get(symbol);
    const release = (): void => {
      const q = this.turns.get(symbol);
      const next = q?.shift();
      if (next === undefined) this.turns.delete(symbol);
      else next();
    };
    let released = false;
    const once = (): void => {
      if (released) return;
      released = true;
      release();
    };
    if (queue === undefined) {
      this.turns.set(symbol, []);
      return once;
    }
    return new Promise((resolve) => queue.push(() => resolve(once)));
  }

  /** Tells `listener` of every fill the journal disagrees with the venue on (the daemon's alarm). */
  watch(listener: (m: FillMismatch) => void): () => void {
    this.watchers.push(listener);
    return () => {
      const i = this.watchers.indexOf(listener);
      if (i >= 0) this.watchers.splice(i, 1);
    };
  }

  /** Market sends waiting for their symbol's turn. */
  get waitingForTurn(): number {
    let n = 0;
    for (const q of this.turns.values()) n += q.length;
    return n;
  }

  register(sink: FillSink): () => void {
    this.sinks.push(sink);
    return () => {
      const i = this.sinks.indexOf(sink);
      if (i >= 0) this.sinks.splice(i, 1);
    };
  }

  /** Fills that may have been missed (a full page of new fills), since the start. */
  get possiblyMissing(): number {
    return this.missing;
  }

  /**
   * Reads the symbol's new fills and books each to its bot; answers the count booked per bot. A sync asked
   * while another waits for the symbol's running pull joins the waiting one: it starts after this call, so
   * it reads every fill this call would, and the bots on a symbol cost one read at a time, not one each.
   *
   * `pollMs`: a bot's periodic poll (every `pollMs` real ms), which needs no read of its own, only a recent
   * one: it shares the read running or waiting, or the one started less than `pollMs` ago, and waits for
   * none while a market order holds the symbol's turn (that order's read books every bot's fills). The bots
   * of a symbol then poll it once per period together, not once each, and leave the account's fills budget
   * (10 reads a second, spec §8) to the reads that attribute market orders.
   */
  sync(symbol: string, pollMs?: number): Promise<ReadonlyMap<string, number>> {
    const waiting = this.waiting.get(symbol);
    if (waiting !== undefined) return waiting;
    const prev = this.chains.get(symbol);
    if (pollMs !== undefined) {
      if (prev !== undefined) return prev as Promise<ReadonlyMap<string, number>>;
      const last = this.readAt.get(symbol);
      if (this.turns.has(symbol) || (last !== undefined && performance.now() - last < pollMs))
        return Promise.resolve(new Map());
    }
    // The common case (a backtest: one sync at a time) starts at once, without chaining.
    this.queued.set(symbol, (this.queued.get(symbol) ?? 0) + 1);
    let run: Promise<ReadonlyMap<string, number>>;
    if (prev === undefined) run = this.pull(symbol);
    else {
      run = prev
        .catch(() => undefined)
        .then(() => {
          this.waiting.delete(symbol);
          return this.pull(symbol);
        });
      this.waiting.set(symbol, run);
    }
    // A pull with nothing to read is through before it returns: then there is no chain to keep.
    if (this.queued.has(symbol)) this.chains.set(symbol, run);
    return run;
  }

  /** One sync's read; the symbol's chain is dropped when the last sync queued on it is through. */
  private async pull(symbol: string): Promise<ReadonlyMap<string, number>> {
    this.readAt.set(symbol, performance.now());
    try {
      const sinks: FillSink[] = [];
      for (const s of this.sinks) if (s.hasPair(symbol)) sinks.push(s);
      const booked = new Map<string, number>();
      if (sinks.length === 0) return booked;
      const baseline = this.o.baselines === undefined ? undefined : await this.baselineOf(symbol);
      // A fill leaves the venue's page only when newer ones push it out, so the previous page is all the
      // router must remember to tell a new fill from one it has seen (booked, or reported).
      // A page of only new fills means older new ones may lie beyond it: the venue has no cursor or time
      // range, so the best the daemon can do is read again at once (fills that landed meanwhile) and say so.
      for (let round = 0; round < 3; round++) {
        const prev = this.lastPage.get(symbol);
        const page = await this.o.venue.fills(symbol, FILLS_PAGE);
        this.lastPage.set(symbol, page);
        this.keepReported(symbol, page);
        const unjournaled: VenueFill[] = [];
        // A fill journaled stays so: only the ones not known journaled at the last read ask the journal.
        const known = this.journaled.get(symbol);
        const journaled = new Set<string>();
        for (const f of page)
          if (known?.has(f.execId) === true || journaledBy(sinks, f.execId)) journaled.add(f.execId);
          else unjournaled.push(f);
        this.journaled.set(symbol, journaled);
        this.route(symbol, unjournaled, sinks, baseline, booked);
        // Each fill is checked once, at the read that first saw it unjournaled (every fill of the page at
        // the first read since the start).
        this.check(symbol, known === undefined ? page : unjournaled, sinks, baseline);
        if (page.length < FILLS_PAGE) break;
        // Only a full page asks whether every fill on it is new.
        const seen = new Set(prev?.map((f) => f.execId));
        let news = 0;
        for (const f of unjournaled)
          if (
            !seen.has(f.execId) &&
            (baseline === undefined || !inBaseline(baseline, f.execId, Number(f.ts)))
          )
            news++;
        if (news < page.length) break;
        this.missing++;
        this.o.logger?.warn('fills may be missing: a poll returned a full page of new fills, reading again', {
          symbol,
          page: FILLS_PAGE,
          why: 'reality-fills answers only the latest 100 fills and has no cursor; poll more often (bots[].poll.fillsMs)',
          round: round + 1,
        });
      }
      for (const s of sinks) if ((booked.get(s.bot) ?? 0) > 0) s.settle();
      return booked;
    } finally {
      const left = (this.queued.get(symbol) ?? 1) - 1;
      if (left > 0) this.queued.set(symbol, left);
      else {
        this.queued.delete(symbol);
        this.chains.delete(symbol);
      }
    }
  }

  /** Forgets the reported fills of `symbol` that are no longer on its page. */
  private keepReported(symbol: string, page: readonly VenueFill[]): void {
    const was = this.reported.get(symbol);
    if (was === undefined || was.size === 0) return;
    const kept = new Set<string>();
    for (const f of page) if (was.has(f.execId)) kept.add(f.execId);
    this.reported.set(symbol, kept);
  }

  private route(
    symbol: string,
    fresh: readonly VenueFill[],
    sinks: readonly FillSink[],
    baseline: FillBaseline | undefined,
    booked: Map<string, number>,
  ): void {
    const withIds: VenueFill[] = [];
    const withoutIds: VenueFill[] = [];
    for (const f of fresh) (hasIds(f) ? withIds : withoutIds).push(f);
    const toDeployment: VenueFill[] = [];
    // Oldest first, as they happened (the wire answers newest first).
    for (let i = withIds.length - 1; i >= 0; i--) {
      const f = withIds[i] as VenueFill;
      let mine = false;
      for (const s of sinks) {
        const order = s.orderOf(f);
        if (order !== undefined) {
          mine = true;
          if (s.bookFill(symbol, f, order)) {
            countFor(booked, s.bot);
            this.counted(true);
          }
          break;
        }
      }
      // An order of none of the bots (by hand, another program): the deployment's, unless of the baseline.
      if (!mine && (baseline === undefined || !inBaseline(baseline, f.execId, Number(f.ts))))
        toDeployment.push(f);
    }
    if (withoutIds.length === 0 && toDeployment.length === 0) return;
    let candidates = withoutIds.map(bare);
    if (baseline !== undefined) {
      const split = excludeBaseline(candidates, baseline);
      candidates = split.bookable;
    }
    const skew = this.o.clockSkewMs ?? 0;
    const orders = sinks.flatMap((s) =>
      s.attributableOrders(symbol).map((x) =>
        skew === 0
          ? x
          : {
              ...x,
              placedAt: x.placedAt - skew,
              restingSince: x.restingSince === undefined ? undefined : x.restingSince + skew,
            },
      ),
    );
    const deployment = sinks[0] as FillSink;
    for (const f of toDeployment)
      if (this.liquidation(symbol, f, sinks, booked)) this.counted(true);
      else if (deployment.bookToDeployment(symbol, f)) {
        this.unbooked(symbol, f, 'not_ours');
        this.counted(undefined);
      }
    const { parts } = attributeFills(candidates, orders);
    this.bookParts(symbol, parts, candidates, sinks, booked);
  }

  /** Books the parts of the fills without ids: each to its bot's order, or to the deployment. */
  private bookParts(
    symbol: string,
    parts: readonly FillPart[],
    candidates: readonly ReturnType<typeof bare>[],
    sinks: readonly FillSink[],
    booked: Map<string, number>,
  ): void {
    const byBot = new Map(sinks.map((s) => [s.bot, s]));
    const wireOf = new Map(candidates.map((c) => [c.execId, c.wire]));
    const deployment = sinks[0] as FillSink;
    let reported = this.reported.get(symbol);
    if (reported === undefined) this.reported.set(symbol, (reported = new Set()));
    for (const p of parts) {
      const wire = wireOf.get(p.fill.execId);
      if (wire === undefined) continue;
      const f = partOf(wire, p);
      const last = p.execId === p.fill.execId;
      if (p.bot === undefined || p.clientOid === undefined) {
        if (p.reason === 'unknown_side') {
          // Not a position either way: said once, never journaled.
          if (!reported.has(f.execId))
            this.o.logger?.warn('fill not booked: its side is neither buy nor sell', {
              symbol,
              execId: f.execId,
              side: f.side,
            });
          reported.add(f.execId);
          continue;
        }
        if (this.liquidation(symbol, f, sinks, booked)) {
          if (last) this.counted(p.size.eq(p.fill.size) ? true : 'split');
        } else if (deployment.bookToDeployment(symbol, f)) {
          this.unbooked(symbol, f, p.reason ?? 'no_matching_order', p.candidates);
          if (last) this.counted(p.size.eq(p.fill.size) ? undefined : 'split');
        }
        continue;
      }
      const sink = byBot.get(p.bot);
      if (sink === undefined) continue;
      const order = sink.orderOf({ ...f, clientOid: p.clientOid });
      if (!sink.bookFill(symbol, f, order)) continue;
      countFor(booked, sink.bot);
      const whole = last && p.size.eq(p.fill.size);
      if (last) this.counted(whole ? p.exact : 'split');
      if (!p.exact)
        this.o.logger?.info('fill attributed by the rule, not exactly: it could be of several orders', {
          symbol,
          execId: f.execId,
          venueExecId: p.fill.execId,
          size: f.size,
          bot: p.bot,
          clientOid: p.clientOid,
          candidates: p.candidates.join(','),
          split: !whole,
        });
    }
  }

  /** A fill no order explains, booked as a margin liquidation when it is one (see `liquidationShares`). */
  private liquidation(
    symbol: string,
    f: VenueFill,
    sinks: readonly FillSink[],
    booked: Map<string, number>,
  ): boolean {
    const shares = liquidationShares(symbol, f, sinks);
    if (shares === undefined) return false;
    for (const { sink, fill } of shares)
      if (sink.bookFill(symbol, fill, undefined, true)) countFor(booked, sink.bot);
    this.o.logger?.info('liquidation booked to the bots it closed', {
      symbol,
      execId: f.execId,
      side: f.side,
      size: f.size,
      bots: shares.map((x) => `${x.sink.bot}:${x.fill.size}`).join(','),
    });
    return true;
  }

  /** One venue fill booked: exact (true), by the rule among several (false), split, or whole to the deployment. */
  private counted(how: boolean | 'split' | undefined): void {
    const a = this.accounting;
    a.fills++;
    if (how === true) a.exact++;
    else if (how === false) a.ambiguous++;
    else if (how === 'split') a.split++;
  }

  /** A fill (or part) booked to the deployment: counted and said. */
  private unbooked(symbol: string, f: VenueFill, reason: string, candidates: readonly string[] = []): void {
    this.accounting.unbooked++;
    this.o.logger?.warn('fill booked to the deployment, not to a bot: no open order of a bot matches it', {
      symbol,
      execId: f.execId,
      side: f.side,
      price: f.price,
      size: f.size,
      ts: Number(f.ts),
      reason,
      candidates: candidates.join(','),
    });
  }

  /**
   * The conservation check, at every read: each of the page's fills since the baseline is in the journal
   * exactly once, its parts (bots' and the deployment's) summing to its size on its side. The sum of the
   * bots' positions and the deployment's book then moves with the account's. A fill that disagrees is an
   * alarm, raised once.
   */
  private check(
    symbol: string,
    page: readonly VenueFill[],
    sinks: readonly FillSink[],
    baseline: FillBaseline | undefined,
  ): void {
    const due = page.filter(
      (f) =>
        (f.side === 'buy' || f.side === 'sell') &&
        (baseline === undefined || !inBaseline(baseline, f.execId, Number(f.ts))),
    );
    if (due.length === 0) return;
    let since = Infinity;
    for (const f of due) since = Math.min(since, Number(f.ts));
    const rows = (sinks[0] as FillSink).journaledSince(symbol, since);
    if (rows === undefined) return;
    const held = new Map<string, { side: string; size: Decimal }>();
    for (const r of rows) {
      const id = venueExecId(r.execId);
      const was = held.get(id);
      if (was === undefined) held.set(id, { side: r.side, size: r.size });
      else held.set(id, { side: was.side === r.side ? was.side : 'mixed', size: was.size.plus(r.size) });
    }
    for (const f of due) {
      if (this.alarmed.has(f.execId)) continue;
      const h = held.get(f.execId);
      if (h !== undefined && h.side === f.side && h.size.eq(f.size)) continue;
      this.alarmed.add(f.execId);
      this.accounting.mismatches++;
      const m: FillMismatch = {
        type: 'fills-mismatch',
        ts: this.o.now(),
        symbol,
        execId: f.execId,
        side: f.side,
        size: f.size,
        booked: h === undefined ? '0' : `${h.size.toFixed()} ${h.side}`,
      };
      this.o.logger?.error?.('fills disagree with the account: a venue fill is not booked exactly once', {
        ...m,
        what: "the bots' books and the account have parted; read the journal against the venue's fills",
      });
      for (const l of this.watchers) l(m);
    }
  }

  /** The symbol's baseline, taken (and journaled) at the first sync the deployment ever made of it. */
  private async baselineOf(symbol: string): Promise<FillBaseline | undefined> {
    const store = this.o.baselines;
    if (store === undefined) return undefined;
    const had = store.get(symbol);
    if (had !== undefined) return had;
    const at = this.o.now();
    const existing = await this.o.venue.fills(symbol, FILLS_PAGE);
    const b = createFillBaseline(at, existing);
    store.set(symbol, b);
    this.o.logger?.info('fill baseline taken: earlier fills of the account are never booked', {
      symbol,
      firstStartedAt: new Date(at).toISOString(),
      fillsBefore: existing.length,
    });
    return b;
  }
}
