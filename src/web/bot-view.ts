// What the dashboard shows of one bot: a subscriber of its pipeline's events (recent orders, fills,
// denials, control actions, the equity curve, a log tail) plus the Trader's own portfolio and market
// state read at the moment of a snapshot. Nothing is computed twice: PnL, equity and positions are the
// Portfolio's, freshness the MarketState's quote times. Money leaves as decimal strings.
import { inertText } from '../market/inert-text.js';
import { driftOf, type DriftStatus } from './drift-panel.js';
import type { BotConfig } from '../config/index.js';
import type { LiveBot, LiveBotStatus } from '../execution/live-bot.js';
import type { ExitBlockedStatus } from '../execution/exit-blocked.js';
import { CLIENT_OID_PATTERN } from '../execution/client-oid.js';
import { isEstimatedFill, type Trader, type TraderEvent } from '../execution/trader.js';
import { Decimal } from '../market/decimal.js';
import type { OrderIntent } from '../market/intent.js';
import type { Store } from '../store/index.js';
import type { Portfolio } from '../portfolio/portfolio.js';
import type { FeedHealth } from '../execution/feed-watch.js';

/** How many rows of each recent list a bot keeps. */
export const RECENT = 50;
/**
 * How many equity points a bot keeps (one per venue second at most): past it, every other point is dropped
 * (the first and the newest kept), so the curve spans the whole run at a coarser step.
 */
export const EQUITY_POINTS = 2000;
/** How many log lines the tail keeps (all bots). */
export const LOG_LINES = 200;

const s = (d: Decimal): string => d.toFixed();

/** The size of an intent in words: a market buy is a quote amount. */
const sizeOf = (i: OrderIntent): { qty: string; unit: 'quote' | 'base' } =>
  'quoteAmount' in i ? { qty: s(i.quoteAmount), unit: 'quote' } : { qty: s(i.quantity), unit: 'base' };

export interface OrderRow {
  /** Venue time of the venue's answer (the journal stamps orders on the venue's clock too). */
  readonly ts: number;
  readonly symbol: string;
  readonly side: string;
  readonly type: string;
  readonly qty: string;
  readonly qtyUnit: 'quote' | 'base';
  readonly price?: string | undefined;
  readonly status: string;
  readonly tag: string;
  readonly reason: string;
  readonly clientOid: string;
  /** The venue's refusal, when it refused. */
  readonly message?: string | undefined;
}
/**
 * An order as the API shows it: its size with its coin (`unit`), what has filled (in the base coin) at what
 * average price, and its status with the fills: `filled` once the venue has nothing left open of it,
 * `partially filled` while it has.
 */
export interface ShownOrder extends Omit<OrderRow, 'clientOid'> {
  readonly clientOid?: string | undefined;
  readonly unit: string;
  readonly baseCoin: string;
  readonly filled: string;
  readonly avgPrice: string | undefined;
}

export interface FillRow {
  readonly ts: number;
  readonly symbol: string;
  readonly side: string;
  readonly price: string;
  readonly size: string;
  readonly fee: string;
  readonly baseCoin: string;
  readonly liquidity?: string | undefined;
  readonly tag?: string | undefined;
  /** Booked from the acknowledgement (`fills: estimated`), not read from the venue. */
  readonly estimated?: boolean | undefined;
  /** A margin liquidation: the venue closed the bot's position (no order of its own). */
  readonly liquidation?: boolean | undefined;
}
export interface DenialRow {
  readonly ts: number;
  readonly symbol: string;
  readonly side: string;
  readonly code: string;
  readonly message: string;
  readonly tag: string;
}
export interface ControlRow {
  readonly ts: number;
  readonly action: string;
  readonly symbol?: string | undefined;
  readonly who: string;
  readonly reason: string;
}
export interface EquityPoint {
  /** Venue time, Unix seconds (the chart's unit). */
  readonly time: number;
  readonly value: string;
}
export interface LogLine {
  readonly ts: number;
  readonly level: 'info' | 'warn';
  readonly bot: string;
  readonly text: string;
}

/** One event of the pipeline, by its type. */
type EventOf<T extends TraderEvent['type']> = Extract<TraderEvent, { type: T }>;

/** What an event changes on the page beside the lists: a log line, a point of the equity curve. */
interface Change {
  readonly line?: LogLine | undefined;
  readonly point?: EquityPoint | undefined;
}

const push = <T>(list: T[], row: T, cap: number): void => {
  list.push(row);
  if (list.length > cap) list.splice(0, list.length - cap);
};

/** One bot's dashboard state; `attach` follows the daemon's restarts of the bot. */
export class BotView {
  readonly orders: OrderRow[] = [];
  readonly fills: FillRow[] = [];
  readonly denials: DenialRow[] = [];
  readonly controls: ControlRow[] = [];
  readonly equity: EquityPoint[] = [];
  /** What each order of the list has filled so far, by client order id: size and price x size. */
  private readonly filled = new Map<string, { size: Decimal; notional: Decimal }>();
  private bot: LiveBot | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(
    readonly config: BotConfig,
    private readonly store: Store,
    /** Told of each change (the stream pushes), with the log line it makes, if any. */
    private readonly changed: (line: LogLine | undefined, equity: EquityPoint | undefined) => void,
  ) {}

  get live(): LiveBot | undefined {
    return this.bot;
  }

  /**
   * Follows the daemon's current instance of the bot: subscribes to its pipeline, and reads the recent
   * rows from the journal (a restarted bot's reconciliation booked fills before anyone could listen).
   */
  attach(bot: LiveBot | undefined): void {
    if (bot === this.bot) return;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.bot = bot;
    if (bot === undefined) return;
    this.loadJournal();
    this.unsubscribe = bot.subscribe((e) => this.onEvent(e));
  }

  detach(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.bot = undefined;
  }

  private loadJournal(): void {
    const name = this.config.name;
    const orders = this.store.orders.list({ bot: name }).slice(-RECENT);
    this.orders.length = 0;
    this.filled.clear();
    for (const o of orders) {
      const i = o.intent;
      this.orders.push({
        ts: o.state === 'pending' ? o.createdTs : o.updatedTs,
        symbol: o.order.symbol,
        side: o.order.side,
        type: o.order.orderType,
        qty: o.order.qty,
        qtyUnit: o.order.orderType === 'market' && o.order.side === 'buy' ? 'quote' : 'base',
        price: o.order.price,
        status: o.state,
        tag: i?.tag ?? '',
        reason: i?.reason ?? '',
        clientOid: o.clientOid,
        message: o.rejectMsg,
      });
    }
    this.fills.length = 0;
    const all = this.store.fills.list({ bot: name });
    const listed = new Set(this.orders.map((o) => o.clientOid));
    for (const f of all)
      if (f.clientOid !== undefined && listed.has(f.clientOid)) this.addFilled(f.clientOid, f);
    for (const f of all.slice(-RECENT))
      this.fills.push({
        ts: f.ts,
        symbol: f.symbol,
        side: f.side,
        price: s(f.price),
        size: s(f.size),
        fee: s(f.fee),
        baseCoin: f.baseCoin,
        ...(isEstimatedFill(f.execId) ? { estimated: true } : {}),
        ...(f.liquidation === true ? { liquidation: true } : {}),
      });
    this.denials.length = 0;
    for (const d of this.store.denials.list({ bot: name, limit: RECENT }))
      this.denials.push({
        ts: d.ts,
        symbol: d.symbol,
        side: d.intent.side,
        code: d.code,
        message: d.message,
        tag: d.intent.tag,
      });
    this.controls.length = 0;
    for (const c of this.store.control.list(name, RECENT))
      this.controls.push({
        ts: c.ts,
        action: c.action,
        symbol: c.symbol,
        who: c.who,
        reason: inertText(c.reason),
      });
  }

  /** Adds a fill to its order's filled size and price x size. */
  private addFilled(clientOid: string, f: { size: Decimal; price: Decimal }): void {
    const was = this.filled.get(clientOid);
    this.filled.set(clientOid, {
      size: (was?.size ?? new Decimal(0)).plus(f.size),
      notional: (was?.notional ?? new Decimal(0)).plus(f.size.times(f.price)),
    });
  }

  private onEvent(e: TraderEvent): void {
    const { line, point } = this.book(e);
    // A line may quote text from outside (a control reason, a venue's message): shown inert, on one line.
    this.changed(line === undefined ? undefined : { ...line, text: inertText(line.text) }, point);
  }

  /** Books an event into the recent lists: one handler per type. Intents and locks show in the snapshot. */
  private book(e: TraderEvent): Change {
    switch (e.type) {
      case 'denied':
        return this.onDenied(e);
      case 'order':
        return this.onOrder(e);
      case 'fill':
        return this.onFill(e);
      case 'trading-state':
        return this.onTradingState(e);
      case 'equity':
        return this.onEquity(e);
      case 'control':
        return this.onControl(e);
      case 'intent':
      case 'protection':
        return {};
    }
  }

  private onDenied(e: EventOf<'denied'>): Change {
    push(
      this.denials,
      {
        ts: e.ts,
        symbol: e.intent.symbol,
        side: e.intent.side,
        code: e.code,
        message: e.message,
        tag: e.intent.tag,
      },
      RECENT,
    );
    const text = `denied ${e.intent.side} ${e.intent.symbol}: ${e.code}: ${e.message}`;
    return { line: { ts: e.ts, level: 'info', bot: e.bot, text } };
  }

  private onOrder(e: EventOf<'order'>): Change {
    const { qty, unit } = sizeOf(e.intent);
    // An order read from the journal while it was pending gets its answer now: one row per order.
    const before = this.orders.findIndex((o) => o.clientOid === e.order.clientOid);
    if (before >= 0) this.orders.splice(before, 1);
    // Orders that left the list take their filled sizes with them.
    if (this.orders.length >= RECENT) this.filled.delete(this.orders[0]?.clientOid ?? '');
    push(
      this.orders,
      {
        ts: e.ts,
        symbol: e.order.symbol,
        side: e.order.side,
        type: e.order.orderType,
        qty: e.order.qty,
        qtyUnit: unit,
        price: e.order.price,
        status: e.outcome.status,
        tag: e.intent.tag,
        reason: e.intent.reason,
        clientOid: e.order.clientOid,
        message: e.outcome.status === 'rejected' ? e.outcome.message : undefined,
      },
      RECENT,
    );
    const unitName = unit === 'quote' ? ' (quote)' : '';
    return {
      line: {
        ts: e.ts,
        level: e.outcome.status === 'rejected' ? 'warn' : 'info',
        bot: e.bot,
        text: `order ${e.outcome.status}: ${e.order.side} ${qty}${unitName} ${e.order.symbol} ${e.order.orderType}${e.order.price === undefined ? '' : ` at ${e.order.price}`} (${e.intent.tag})`,
      },
    };
  }

  private onFill(e: EventOf<'fill'>): Change {
    const f = e.fill;
    if (f.clientOid !== undefined && this.orders.some((o) => o.clientOid === f.clientOid))
      this.addFilled(f.clientOid, f);
    push(
      this.fills,
      {
        ts: e.ts,
        symbol: f.symbol,
        side: f.side,
        price: s(f.price),
        size: s(f.size),
        fee: s(f.fee),
        baseCoin: f.baseCoin,
        liquidity: f.liquidity,
        tag: f.tag,
        ...(f.estimated ? { estimated: true } : {}),
        ...(f.liquidation === true ? { liquidation: true } : {}),
      },
      RECENT,
    );
    const text = `${f.liquidation === true ? 'LIQUIDATED: the venue closed the position, ' : ''}filled ${f.side} ${s(f.size)} ${f.baseCoin} at ${s(f.price)} (fee ${s(f.fee)} ${f.feeCoin})`;
    return { line: { ts: e.ts, level: f.liquidation === true ? 'warn' : 'info', bot: e.bot, text } };
  }

  private onTradingState(e: EventOf<'trading-state'>): Change {
    const text = `trading state ${e.from} -> ${e.to}: ${e.reason}`;
    return { line: { ts: e.ts, level: 'warn', bot: e.bot, text } };
  }

  private onEquity(e: EventOf<'equity'>): Change {
    const time = Math.floor(e.ts / 1000);
    const point = { time, value: s(e.equity) };
    const last = this.equity[this.equity.length - 1];
    // The chart needs strictly increasing times: a second sample in the same second replaces the first.
    if (last !== undefined && last.time >= time)
      this.equity[this.equity.length - 1] = { ...point, time: last.time };
    else {
      this.equity.push(point);
      if (this.equity.length > EQUITY_POINTS) thinOut(this.equity);
    }
    return { point: this.equity[this.equity.length - 1] };
  }

  private onControl(e: EventOf<'control'>): Change {
    const c = e.control;
    push(
      this.controls,
      { ts: e.ts, action: c.action, symbol: c.symbol, who: c.who, reason: inertText(c.reason) },
      RECENT,
    );
    const text = `${c.action}${c.symbol === undefined ? '' : ` ${c.symbol}`} by ${c.who}: ${c.reason}`;
    return { line: { ts: e.ts, level: 'warn', bot: e.bot, text } };
  }

  /** An order row with its coin, its fills and the status they make (see ShownOrder). */
  private orderShown(o: OrderRow, redacted: boolean): ShownOrder {
    const { clientOid, ...row } = o;
    const trader = this.bot?.trader;
    const baseCoin =
      trader?.market.rules(o.symbol)?.baseCoin ||
      trader?.portfolio.position(o.symbol).baseCoin ||
      this.fills.find((f) => f.symbol === o.symbol)?.baseCoin ||
      o.symbol;
    const f = this.filled.get(clientOid);
    const open = trader?.orders.inFlight().some((x) => x.order.clientOid === clientOid) ?? false;
    const status = o.status !== 'acked' || f === undefined ? o.status : open ? 'partially filled' : 'filled';
    return {
      ...row,
      ...(redacted ? {} : { clientOid }),
      unit: o.qtyUnit === 'quote' ? this.config.quoteCoin : baseCoin,
      baseCoin,
      status,
      filled: f === undefined ? '0' : s(f.size),
      avgPrice:
        f === undefined || f.size.isZero() ? undefined : s(f.notional.div(f.size).toDecimalPlaces(12)),
    };
  }

  /** The bot as the API shows it; `redacted` leaves out the strategy's parameters and the order ids. */
  snapshot(redacted: boolean): BotSnapshot {
    const c = this.config;
    const b = this.bot;
    const trader = b?.trader;
    const p = trader?.portfolio;
    const now = trader?.clockNow();
    const status = b?.status();
    return {
      name: c.name,
      strategy: c.strategy,
      ...(redacted ? {} : { params: c.params }),
      symbols: [...c.symbols],
      interval: c.interval,
      quoteCoin: c.quoteCoin,
      capital: c.capital,
      running: status?.running ?? false,
      tradingState: trader?.tradingState ?? 'unknown',
      paused: trader?.control.paused ?? false,
      ...(status === undefined ? {} : { health: status.health }),
      // The figures of the bot's status (moneyFigures, the one computation every surface shows).
      equity: status?.equity,
      cash: p === undefined ? undefined : s(p.cash(c.quoteCoin)),
      realisedPnl: status?.realisedPnl,
      unrealisedPnl: status?.unrealisedPnl,
      fees: status?.fees,
      net: status?.net,
      counts: {
        intents: status?.intents ?? 0,
        denials: status?.denials ?? 0,
        orders: status?.orders ?? 0,
        fills: status?.fills ?? 0,
        ...(status === undefined ? {} : { sinceStart: status.sinceStart }),
      },
      positions: positionsOf(p, status),
      ...(status?.dust === undefined ? {} : { dust: status.dust }),
      ...(status?.margin === undefined ? {} : { margin: status.margin }),
      rules: rulesOf(trader),
      locks: status?.protections ?? [],
      ...exitBlockedOf(status?.exitBlocked, redacted),
      ...driftOf(this.store, c.name),
      openOrders: (trader?.orders.inFlight() ?? []).map((x) => ({
        symbol: x.order.symbol,
        side: x.order.side,
        type: x.order.orderType,
        qty: x.order.qty,
        price: x.order.price,
        filled: s(x.filled),
        placedAt: x.placedAt,
        ...(redacted ? {} : { clientOid: x.order.clientOid }),
      })),
      feeds: c.symbols.map((symbol) => {
        const m = trader?.market;
        const q = m?.hasQuote(symbol) === true ? m.quote(symbol) : undefined;
        const ageMs = q === undefined || q.ts === 0 || now === undefined ? undefined : now - q.ts;
        return {
          symbol,
          last: q === undefined ? undefined : String(q.last),
          bid: q?.bid === undefined ? undefined : String(q.bid),
          ask: q?.ask === undefined ? undefined : String(q.ask),
          ageMs,
          stale: ageMs === undefined || ageMs > c.risk.maxDataAgeMs,
          maxAgeMs: c.risk.maxDataAgeMs,
        };
      }),
      orders: this.orders.map((o) => this.orderShown(o, redacted)),
      fills: [...this.fills],
      // A sentence may name an order (EXIT_BLOCKED names the one that blocks): its id is not shown redacted.
      denials: redacted
        ? this.denials.map((d) => ({ ...d, message: withoutOrderIds(d.message) }))
        : [...this.denials],
      controls: redacted ? this.controls.map(({ who: _w, ...x }) => x) : [...this.controls],
    };
  }
}

/**
 * Every other point dropped, the first and the newest kept: a curve over EQUITY_POINTS keeps spanning the
 * whole run (halved each time it fills up again).
 */
function thinOut(points: EquityPoint[]): void {
  const last = points[points.length - 1];
  const kept = points.filter((_p, i) => i % 2 === 0);
  if (last !== undefined && kept[kept.length - 1] !== last) kept.push(last);
  points.splice(0, points.length, ...kept);
}

/** The JSON of one bot (see the OpenAPI description's Bot schema). */
export interface BotSnapshot {
  readonly name: string;
  readonly strategy: string;
  readonly params?: Readonly<Record<string, unknown>>;
  readonly symbols: readonly string[];
  readonly interval: string;
  readonly quoteCoin: string;
  readonly capital: string;
  readonly running: boolean;
  readonly tradingState: string;
  readonly paused: boolean;
  /** The feeds' ages and limits; DEGRADED with a sentence per starving feed (absent while the bot restarts). */
  readonly health?: FeedHealth | undefined;
  readonly equity: string | undefined;
  readonly cash: string | undefined;
  readonly realisedPnl: string | undefined;
  readonly unrealisedPnl: string | undefined;
  readonly fees: string | undefined;
  /** realised + unrealised - fees. */
  readonly net: string | undefined;
  /** The deployment's counts (across restarts), with this start's. */
  readonly counts: {
    intents: number;
    denials: number;
    orders: number;
    fills: number;
    sinceStart?: { intents: number; denials: number; orders: number; fills: number };
  };
  readonly positions: readonly {
    symbol: string;
    quantity: string;
    baseCoin: string;
    avgPrice: string;
    mark: string | undefined;
    /** The venue time of the mark (the last traded price); undefined while it is a fill's price. */
    markTs: number | undefined;
    unrealisedPnl: string;
    realisedPnl: string;
    fees: string;
  }[];
  /** Positions below the venue's minimum tradable quantity, shown apart (the bot's status); absent when none. */
  readonly dust?: LiveBotStatus['dust'];
  /** A MARGIN bot's loans, interest and risk ratio (the bot's status, docs/margin.md); absent for SPOT. */
  readonly margin?: LiveBotStatus['margin'];
  readonly openOrders: readonly Record<string, unknown>[];
  readonly feeds: readonly Record<string, unknown>[];
  readonly orders: readonly ShownOrder[];
  readonly fills: readonly FillRow[];
  readonly denials: readonly DenialRow[];
  readonly controls: readonly Omit<ControlRow, 'who'>[];
  /** Exits and protections in force: each rule as `name` and its value in words (decimal strings). */
  readonly rules: readonly { kind: 'exit' | 'protection'; name: string; value: string }[];
  /** Exits the bot's own resting limit sells blocked (EXIT_BLOCKED); absent when none was. */
  readonly exitBlocked?: ExitBlockedStatus | undefined;
  /** The newest drift check of the bot (absent before the first); `alarms`: its unexplained differences. */
  readonly drift?: DriftStatus | undefined;
  /** Protection locks on entries in force now. */
  readonly locks: readonly {
    protection: string;
    symbol: string | undefined;
    until: string;
    reason: string;
  }[];
}

/** The open positions as the page shows them: the portfolio's, with the time of each mark from the bot's status. */
function positionsOf(p: Portfolio | undefined, status: LiveBotStatus | undefined): BotSnapshot['positions'] {
  const dust = new Set(status?.dust?.map((d) => d.symbol));
  return (p?.positions() ?? [])
    .filter((x) => !x.quantity.isZero() && !dust.has(x.symbol))
    .map((x) => ({
      symbol: x.symbol,
      quantity: s(x.quantity),
      baseCoin: x.baseCoin,
      avgPrice: s(x.avgPrice),
      mark: x.mark === undefined ? undefined : s(x.mark),
      markTs: status?.positions.find((y) => y.symbol === x.symbol)?.markTs,
      unrealisedPnl: s(x.unrealisedPnl),
      realisedPnl: s(x.realisedPnl),
      fees: s(x.fees),
    }));
}

/** A rule's value as the page shows it: Decimals as decimal strings, tables and objects as JSON of strings. */
function ruleValue(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (Decimal.isDecimal(x) ? (x as Decimal).toFixed() : x)) ?? '';
}

function rulesOf(trader: Trader | undefined): BotSnapshot['rules'] {
  const out: { kind: 'exit' | 'protection'; name: string; value: string }[] = [];
  for (const [kind, rules] of [
    ['exit', trader?.guard.exitRules],
    ['protection', trader?.guard.protectionRules],
  ] as const) {
    for (const [name, v] of Object.entries(rules ?? {})) {
      if (v === undefined || v === false) continue;
      out.push({ kind, name, value: v === true ? 'on' : ruleValue(v).replace(/^"|"$/g, '') });
    }
  }
  return out;
}

/** The snapshot's blocked exits; redacted, without the order's id and the sentence that names it. */
function exitBlockedOf(
  x: ExitBlockedStatus | undefined,
  redacted: boolean,
): { exitBlocked?: ExitBlockedStatus } {
  if (x === undefined) return {};
  if (!redacted) return { exitBlocked: x };
  const first = { ...x.first, blockedBy: undefined, message: withoutOrderIds(x.first.message) };
  return { exitBlocked: { count: x.count, first } };
}

function withoutOrderIds(text: string): string {
  return text.replace(CLIENT_OID_PATTERN, '[order id]');
}
