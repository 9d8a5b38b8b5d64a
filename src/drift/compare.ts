// The comparison at the heart of the drift monitor: a bot's journal (the candles it decided on, its intents
// and the gate's decisions, its orders and fills) beside the replay of the venue's closed candles through
// the same strategy and gate, step by step. Pure: the inputs are plain data, so it is tested on hand-built
// journals and replays. Every difference gets one cause from DRIFT_CAUSES; `unexplained` is the alarm.
import { groupFills } from '../market/fill-groups.js';
import { Decimal } from '../market/decimal.js';
import type { DecidedCandle } from '../store/index.js';
import type {
  DriftCause,
  DriftDifference,
  DriftFill,
  DriftInputs,
  DriftReport,
  LiveIntent,
  OperatorAction,
  ReplayIntent,
  VenueCandle,
} from './types.js';

export * from './types.js';

const same = (a: string, b: string): boolean => Number(a) === Number(b);

/**
 * The venue times a run of the bot began: each first row of a warm-up (a start warms the strategy up
 * again), and the first row of the journal.
 */
export function startsOf(decided: readonly DecidedCandle[]): number[] {
  const out: number[] = [];
  let prev: DecidedCandle | undefined;
  for (const r of decided) {
    if (prev === undefined || (r.phase === 'warm_up' && prev.phase !== 'warm_up')) out.push(r.decidedTs);
    prev = r;
  }
  return out;
}

/**
 * A forming candle: the one the venue closed later, read early. Same open, less volume, its range inside
 * the closed one's; anything else about a candle that differs is not a known way for it to differ.
 */
export function looksForming(seen: DecidedCandle, venue: VenueCandle): boolean {
  return (
    same(seen.open, venue.open) &&
    Number(seen.volume) < Number(venue.volume) &&
    Number(seen.high) <= Number(venue.high) &&
    Number(seen.low) >= Number(venue.low)
  );
}

/** A difference's label for those that follow it on the same symbol. */
const labelOf = (d: DriftDifference): string =>
  `${d.kind} (${d.cause}) of ${d.symbol}${d.candle === undefined ? '' : ` at candle ${new Date(d.candle).toISOString()}`}`;

/** Compares the journal with the replay; see the module's comment. */
export function compareDrift(i: DriftInputs): DriftReport {
  return new Comparison(i).run();
}

class Comparison {
  private readonly diffs: DriftDifference[] = [];
  /** Per symbol, the first difference that changed what the bot holds or what its strategy saw. */
  private readonly diverged = new Map<string, DriftDifference>();
  /** The cause of each candle that differs, by `symbol|openTime`. */
  private readonly candleCause = new Map<string, DriftDifference>();
  private readonly starts: number[];
  private readonly lastOpen: number;

  constructor(private readonly i: DriftInputs) {
    this.starts = startsOf(i.decided);
    this.lastOpen = i.to - i.stepMs;
  }

  run(): DriftReport {
    const { i } = this;
    const venue = i.venueCandles.filter((c) => this.inSpan(c.openTime));
    this.compareCandles(venue);
    const { equal, live, replay } = this.compareIntents();
    this.compareOrders();
    const fills = this.compareFills(venue);
    const byCause: Partial<Record<DriftCause, number>> = {};
    for (const d of this.diffs) byCause[d.cause] = (byCause[d.cause] ?? 0) + 1;
    const sorted = [...this.diffs].sort((a, b) => a.at - b.at);
    return {
      bot: i.bot,
      from: i.from,
      to: i.to,
      candles: {
        venue: venue.length,
        decided: new Set(
          i.decided.filter((r) => r.phase !== 'warm_up' && this.inSpan(r.openTime)).map((r) => key(r)),
        ).size,
      },
      starts: this.starts.filter((t) => t >= i.from && t < i.to),
      intents: { live, replay, equal },
      fills,
      differences: sorted,
      byCause,
      unexplained: byCause.unexplained ?? 0,
    };
  }

  private inSpan(openTime: number): boolean {
    return openTime >= this.i.from && openTime <= this.lastOpen;
  }

  /** From `d` on, the symbol's portfolio or indicators differ: the earliest such difference is kept. */
  private diverge(d: DriftDifference): void {
    const was = this.diverged.get(d.symbol);
    if (was === undefined || d.at < was.at) this.diverged.set(d.symbol, d);
  }

  private add(d: DriftDifference): DriftDifference {
    this.diffs.push(d);
    return d;
  }

  /** A start between the candle's close and `until`: the bot was down when it closed (or warming up after). */
  private startBetween(fromTs: number, until: number): number | undefined {
    return this.starts.find((s) => s >= fromTs && s <= until);
  }

  // ---- candles -------------------------------------------------------------------------------------------

  private compareCandles(venue: readonly VenueCandle[]): void {
    const { i } = this;
    const rows = new Map<string, DecidedCandle[]>();
    for (const r of i.decided) {
      const k = key(r);
      const list = rows.get(k);
      if (list === undefined) rows.set(k, [r]);
      else list.push(r);
    }
    const atVenue = new Set(venue.map((c) => key(c)));
    for (const c of venue) {
      const seen = rows.get(key(c)) ?? [];
      const close = c.openTime + i.stepMs;
      const decided = seen.find((r) => r.phase !== 'warm_up');
      if (seen.length === 0) {
        const next = i.decided.find((r) => r.symbol === c.symbol && r.openTime > c.openTime);
        const start = this.startBetween(close - i.stepMs, next?.decidedTs ?? Number.MAX_SAFE_INTEGER);
        this.candleDiff(c, {
          kind: 'candle_missing',
          cause: start === undefined ? 'missing_candle' : 'restart_gap',
          at: close,
          detail:
            start === undefined
              ? 'the venue has this candle; the bot never decided on it'
              : `the venue has this candle; the bot never decided on it: it closed while the bot was down (started again at ${iso(start)})`,
        });
        continue;
      }
      if (decided === undefined) {
        const start =
          this.startBetween(close, (seen[0] as DecidedCandle).decidedTs) ?? this.lastStartBefore(seen);
        this.candleDiff(c, {
          kind: 'candle_not_decided',
          cause: 'restart_gap',
          at: (seen[0] as DecidedCandle).decidedTs,
          detail: `seen only by the warm-up${start === undefined ? '' : ` after the start at ${iso(start)}`}: a signal on it was not sent nor journaled`,
        });
        continue;
      }
      const ohlcv = (['open', 'high', 'low', 'close', 'volume'] as const).filter(
        (f) => !same(decided[f], c[f]),
      );
      if (ohlcv.length > 0) {
        const forming = looksForming(decided, c);
        const told = ohlcv.map((f) => `${f} ${decided[f]} (venue ${c[f]})`).join(', ');
        this.candleDiff(c, {
          kind: forming ? 'candle_forming' : 'candle_differs',
          cause: forming ? 'forming_candle' : 'unexplained',
          at: decided.decidedTs,
          detail: forming
            ? `decided on the candle while it was forming: ${told}`
            : `decided on a candle the venue's closed candle does not match: ${told}`,
        });
      }
      const late = decided.decidedTs - close;
      if (late > i.lateAfterMs) this.lateCandle(c, decided, late);
    }
    this.notAtVenue(atVenue);
  }

  /**
   * A decision long after its candle's close: in a restart's backfill (a start between the close and the
   * decision, and the bot on time again after it), or late for another reason, the daemon's clock ahead of
   * the venue's when the decisions after it are late too.
   */
  private lateCandle(c: VenueCandle, decided: DecidedCandle, late: number): void {
    const { i } = this;
    const close = c.openTime + i.stepMs;
    const next = i.decided.find(
      (r) =>
        r.symbol === c.symbol &&
        r.phase !== 'warm_up' &&
        r.openTime > c.openTime &&
        r.decidedTs - decided.decidedTs >= i.stepMs / 2,
    );
    // The last one of the journal: the one before it, when it was decided apart (not in the same backfill).
    const prev = [...i.decided]
      .reverse()
      .find(
        (r) =>
          r.symbol === c.symbol &&
          r.phase !== 'warm_up' &&
          r.openTime < c.openTime &&
          decided.decidedTs - r.decidedTs >= i.stepMs / 2,
      );
    const lateRow = (r: DecidedCandle | undefined): boolean =>
      r !== undefined && r.decidedTs - (r.openTime + i.stepMs) > i.lateAfterMs;
    const stillLate = next !== undefined ? lateRow(next) : lateRow(prev);
    const start = stillLate ? undefined : this.startBetween(close, decided.decidedTs);
    this.add({
      kind: 'candle_late',
      cause: start === undefined ? 'late_decision' : 'restart_gap',
      symbol: c.symbol,
      candle: c.openTime,
      at: decided.decidedTs,
      detail:
        start !== undefined
          ? `decided ${secs(late)} after its close, in the backfill after the start at ${iso(start)}`
          : stillLate
            ? `decided ${secs(late)} after its close (${decided.phase}), and the candles after it too: the daemon's clock ran ahead of the venue's`
            : `decided ${secs(late)} after its close (${decided.phase}): the answer came late, or the daemon's clock was ahead of the venue's`,
    });
  }

  /** A candle the bot decided on that the venue does not have. */
  private notAtVenue(atVenue: ReadonlySet<string>): void {
    const { i } = this;
    const told = new Set<string>();
    for (const r of i.decided) {
      const k = key(r);
      if (r.phase === 'warm_up' || !this.inSpan(r.openTime) || atVenue.has(k) || told.has(k)) continue;
      if (i.venueCandles.length === 0) break;
      told.add(k);
      this.candleDiff(
        { symbol: r.symbol, openTime: r.openTime },
        {
          kind: 'candle_not_at_venue',
          cause: 'unexplained',
          at: r.decidedTs,
          detail: "decided on a candle the venue's history does not have",
        },
      );
    }
  }

  private lastStartBefore(seen: readonly DecidedCandle[]): number | undefined {
    const t = (seen[0] as DecidedCandle).decidedTs;
    return [...this.starts].reverse().find((s) => s <= t);
  }

  private candleDiff(
    c: { symbol: string; openTime: number },
    d: Pick<DriftDifference, 'kind' | 'cause' | 'at' | 'detail'>,
  ): void {
    const diff = this.add({ ...d, symbol: c.symbol, candle: c.openTime });
    this.candleCause.set(key(c), diff);
    // What the strategy saw differs from here on (its indicators), unless it did not see the candle at all
    // and the next decision was its warm-up's.
    this.diverge(diff);
  }

  // ---- intents -------------------------------------------------------------------------------------------

  /** The candle each live intent was decided on: the bot's last decided candle of its symbol by then. */
  private liveCandles(): { intent: LiveIntent; candle: number | undefined; tied: Set<number> }[] {
    const { i } = this;
    const bySymbol = new Map<string, DecidedCandle[]>();
    for (const r of i.decided) {
      if (r.phase === 'warm_up') continue;
      const list = bySymbol.get(r.symbol);
      if (list === undefined) bySymbol.set(r.symbol, [r]);
      else list.push(r);
    }
    return i.liveIntents.map((intent) => {
      const rows = bySymbol.get(intent.symbol) ?? [];
      let found: DecidedCandle | undefined;
      for (const r of rows) if (r.decidedTs <= intent.ts) found = r;
      // Candles of a backfill decided in the same instant: the intent belongs to one of them.
      const tied = new Set(
        found === undefined ? [] : rows.filter((r) => r.decidedTs === found.decidedTs).map((r) => r.openTime),
      );
      return { intent, candle: found?.openTime, tied };
    });
  }

  private compareIntents(): { equal: number; live: number; replay: number } {
    const { i } = this;
    const live = this.liveCandles().filter((l) =>
      l.candle === undefined ? l.intent.ts >= i.from && l.intent.ts < i.to : this.inSpan(l.candle),
    );
    const replay = i.replayIntents.filter((r) => this.inSpan(r.candle));
    const used = new Set<number>();
    let equal = 0;
    for (const r of replay) {
      const k = live.findIndex(
        (l, n) =>
          !used.has(n) &&
          l.intent.symbol === r.symbol &&
          l.intent.side === r.side &&
          l.intent.tag === r.tag &&
          (l.candle === r.candle || l.tied.has(r.candle)),
      );
      const l = live[k];
      if (l === undefined) {
        this.intentMissing(r);
        continue;
      }
      used.add(k);
      if (l.intent.decision === r.decision) {
        equal++;
        continue;
      }
      this.decisionDiffers(l.intent, r);
    }
    live.forEach((l, n) => {
      if (!used.has(n)) this.intentExtra(l.intent, l.candle);
    });
    return { equal, live: live.length, replay: replay.length };
  }

  /**
   * How many candles of the symbol the strategy had seen since its last start when it decided `candle` (warm-up
   * included), and that start; undefined when the candle was not decided after a start the journal shows.
   */
  private sinceStart(symbol: string, candle: number): { seen: number; start: number } | undefined {
    const rows = this.i.decided.filter((r) => r.symbol === symbol);
    // A candle decided only in a start's warm-up counts too: live saw it while warming up (no intent is sent
    // then, by design), where the replay, warmed up on the history before, could trade it.
    const decision =
      rows.find((r) => r.openTime === candle && r.phase !== 'warm_up') ??
      rows.find((r) => r.openTime === candle);
    if (decision === undefined) return undefined;
    const start = [...this.starts].reverse().find((t) => t <= decision.decidedTs);
    if (start === undefined) return undefined;
    const seen = new Set(
      rows.filter((r) => r.decidedTs >= start && r.decidedTs <= decision.decidedTs).map((r) => r.openTime),
    );
    return { seen: seen.size, start };
  }

  /** The cause an earlier difference gives (the candle's own, or the symbol's divergence), if any. */
  private inherited(
    symbol: string,
    candle: number | undefined,
    at: number,
  ): { cause: DriftCause; follows: string } | undefined {
    const own = candle === undefined ? undefined : this.candleCause.get(`${symbol}|${candle}`);
    if (own !== undefined) return { cause: own.cause, follows: labelOf(own) };
    // A strategy started anew sees only its warm-up before deciding: until it has seen one candle more than
    // that, its state (a cross needs the candle before) may not be the replay's, which saw the whole history.
    const young = candle === undefined ? undefined : this.sinceStart(symbol, candle);
    const warm = this.i.warmUpCandles ?? 0;
    if (young !== undefined && young.seen <= warm + 1)
      return {
        cause: 'restart_gap',
        follows: `the start at ${iso(young.start)}: the strategy had seen ${young.seen} candles of ${symbol} since, the replay the whole history`,
      };
    const d = this.diverged.get(symbol);
    if (d !== undefined && d.at <= at) return { cause: d.cause, follows: labelOf(d) };
    return undefined;
  }

  /** The operator's action in force at `at` for the symbol (a pause or halt until a resume or re-arm). */
  private operatorAt(symbol: string, at: number): OperatorAction | undefined {
    let on: OperatorAction | undefined;
    for (const c of this.i.controls) {
      if (c.ts > at) break;
      if (c.symbol !== undefined && c.symbol !== symbol) continue;
      if (c.action === 'resume' || c.action === 'rearm') on = undefined;
      else on = c;
    }
    return on;
  }

  private intentMissing(r: ReplayIntent): void {
    const at = r.candle + this.i.stepMs;
    const why = this.inherited(r.symbol, r.candle, at);
    const op = this.operatorAt(r.symbol, at);
    const cause: DriftCause = why?.cause ?? (op !== undefined ? 'operator_action' : 'unexplained');
    const d = this.add({
      kind: 'intent_missing',
      cause,
      symbol: r.symbol,
      candle: r.candle,
      at,
      detail: `the replay emits ${r.side} ${r.tag} (${r.decision}); the journal has no such intent${op !== undefined && why === undefined ? ` (the bot was ${op.action === 'flatten' ? 'flattened' : `${op.action}ed`} by ${op.who}: ${op.reason})` : ''}`,
      ...(why === undefined ? {} : { follows: why.follows }),
    });
    this.diverge(d);
  }

  private intentExtra(l: LiveIntent, candle: number | undefined): void {
    const op =
      l.tag === 'flatten' ? this.i.controls.find((c) => c.action === 'flatten' && c.ts <= l.ts) : undefined;
    const why = op === undefined ? this.inherited(l.symbol, candle, l.ts) : undefined;
    const cause: DriftCause = op !== undefined ? 'operator_action' : (why?.cause ?? 'unexplained');
    const d = this.add({
      kind: 'intent_extra',
      cause,
      symbol: l.symbol,
      candle,
      at: l.ts,
      detail:
        op !== undefined
          ? `the operator's flatten (${op.who}: ${op.reason}); the replay has no such intent`
          : `the journal has ${l.side} ${l.tag} (${l.decision}); the replay emits no such intent`,
      ...(why === undefined ? {} : { follows: why.follows }),
    });
    this.diverge(d);
  }

  private decisionDiffers(l: LiveIntent, r: ReplayIntent): void {
    const stale = l.decision === 'STALE_SIGNAL';
    const op = this.operatorAt(l.symbol, l.ts);
    const why = stale ? undefined : this.inherited(l.symbol, r.candle, l.ts);
    const cause: DriftCause = stale
      ? 'stale_signal'
      : (why?.cause ?? (op !== undefined ? 'operator_action' : 'unexplained'));
    const d = this.add({
      kind: 'decision_differs',
      cause,
      symbol: l.symbol,
      candle: r.candle,
      at: l.ts,
      detail: `${l.side} ${l.tag}: the gate decided ${l.decision} live, ${r.decision} in the replay${stale ? ` (judged ${secs(l.ts - r.candle - this.i.stepMs)} after the candle's close)` : ''}`,
      ...(why === undefined ? {} : { follows: why.follows }),
    });
    this.diverge(d);
  }

  // ---- orders and fills ----------------------------------------------------------------------------------

  private compareOrders(): void {
    for (const o of this.i.orders) {
      if (o.state !== 'rejected' || o.ts < this.i.from || o.ts >= this.i.to) continue;
      const d = this.add({
        kind: 'order_refused',
        cause: 'venue_refusal',
        symbol: o.symbol,
        at: o.ts,
        detail: `the venue refused ${o.side} ${o.tag} (${o.clientOid})${o.reject === undefined ? '' : `: ${o.reject}`}; the replay's venue filled it`,
      });
      this.diverge(d);
    }
  }

  /**
   * Each live execution beside the replay's of the same symbol, side and tag nearest in time (within two
   * candles): its price must lie in the venue candle's range at the fill's time, widened by the tolerance
   * (the book's spread: the backtest fills on candles, the venue on the book); its fee at the rate charged.
   */
  private compareFills(venue: readonly VenueCandle[]): DriftReport['fills'] {
    const { i } = this;
    const tol = new Decimal(i.fillToleranceBps ?? 100).div(10_000);
    const live = executions(i.liveFills).filter((e) => e.ts >= i.from && e.ts < i.to);
    const replay = executions(i.replayFills).filter((e) => e.ts >= i.from && e.ts < i.to);
    const candleAt = new Map(venue.map((c) => [key(c), c]));
    const used = new Set<number>();
    let within = 0;
    for (const e of live) {
      let best = -1;
      replay.forEach((r, n) => {
        if (used.has(n) || r.symbol !== e.symbol || r.side !== e.side || r.tag !== e.tag) return;
        if (Math.abs(r.ts - e.ts) > 2 * i.stepMs) return;
        if (best < 0 || Math.abs(r.ts - e.ts) < Math.abs((replay[best] as Execution).ts - e.ts)) best = n;
      });
      if (best >= 0) used.add(best);
      this.checkFee(e);
      const bar = candleAt.get(`${e.symbol}|${Math.floor(e.ts / i.stepMs) * i.stepMs}`);
      if (bar === undefined) continue;
      const low = new Decimal(bar.low).mul(Decimal.sub(1, tol));
      const high = new Decimal(bar.high).mul(Decimal.add(1, tol));
      if (e.price.gte(low) && e.price.lte(high)) {
        if (best >= 0) within++;
        continue;
      }
      const why = this.inherited(e.symbol, undefined, e.ts);
      this.add({
        kind: 'fill_price',
        cause: why?.cause ?? 'unexplained',
        symbol: e.symbol,
        candle: bar.openTime,
        at: e.ts,
        detail: `${e.side} ${e.tag} filled at ${e.price.toFixed()}, outside the venue candle's range ${bar.low}..${bar.high} widened by ${tol.mul(10_000).toFixed()} bps`,
        ...(why === undefined ? {} : { follows: why.follows }),
      });
    }
    return { live: live.length, replay: replay.length, withinModel: within };
  }

  private checkFee(e: Execution): void {
    const { i } = this;
    const notional = e.notional;
    const taker = notional.mul(i.feeRate);
    const maker = notional.mul(i.makerFeeRate ?? i.feeRate);
    const close = (x: Decimal) => e.fee.minus(x).abs().lte(x.mul('0.01').plus('0.00000001'));
    if (close(taker) || close(maker)) return;
    this.add({
      kind: 'fee_differs',
      cause: 'fee',
      symbol: e.symbol,
      at: e.ts,
      detail: `${e.side} ${e.tag}: the venue charged ${e.fee.toFixed()} on ${notional.toFixed()}; the replay charges ${taker.toFixed()} (rate ${i.feeRate.toFixed()})`,
    });
  }
}

interface Execution {
  readonly ts: number;
  readonly symbol: string;
  readonly side: 'buy' | 'sell';
  readonly tag: string;
  readonly price: Decimal;
  readonly size: Decimal;
  readonly notional: Decimal;
  readonly fee: Decimal;
}

/** Fills grouped by order (size-weighted price), in the order of their first fill. */
function executions(fills: readonly DriftFill[]): Execution[] {
  return groupFills(fills).map(({ fills: g, first, size, price }) => ({
    ts: first.ts,
    symbol: first.symbol,
    side: first.side,
    tag: first.tag,
    price,
    size,
    notional: g.reduce((a, f) => a.plus(f.price.mul(f.size)), new Decimal(0)),
    fee: g.reduce((a, f) => a.plus(f.fee), new Decimal(0)),
  }));
}

const key = (c: { symbol: string; openTime: number }): string => `${c.symbol}|${c.openTime}`;
const iso = (t: number): string => new Date(t).toISOString();
const secs = (ms: number): string => `${Math.round(ms / 1000)} s`;
