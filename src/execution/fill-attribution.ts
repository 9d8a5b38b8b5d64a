// Fill attribution without ids: the venue's Reality fill has only execId, price, size, side and ts
// (spec 2.13), so which order (and so which bot) a fill belongs to must be inferred from the bots' own
// open orders. Pure and I/O-free: the caller gives the new fills and the open orders, and books the
// answer. The rule is documented on `attributeFills`; the baseline helpers keep fills the account made
// before the deployment first started (by hand, or by an earlier deployment) out of the books.
import { Decimal, ZERO } from '../market/decimal.js';

/** A fill as the venue gives it (spec 2.13), parsed. */
export interface VenueFill {
  readonly execId: string;
  readonly price: Decimal;
  /** Base-coin quantity. */
  readonly size: Decimal;
  /** buy or sell; any other value (a newer venue's) is never attributed. */
  readonly side: string;
  /** Fill time, Unix ms. */
  readonly ts: number;
}

/** An order of one of the deployment's bots that may still receive fills on the symbol. */
export interface AttributableOrder {
  readonly bot: string;
  readonly clientOid: string;
  readonly side: 'buy' | 'sell';
  readonly orderType: 'limit' | 'market';
  /** When the order was sent (the acknowledgement's local time is fine), Unix ms. */
  readonly placedAt: number;
  /**
   * Its place among the sends of the bots sharing its fill router (one account: `FillRouter.nextSend`),
   * when it was sent since the router was made: two orders sent within one tick of the clock have the same
   * `placedAt`, and this says which went first. Undefined for an order tracked again after a restart.
   */
  readonly sent?: number | undefined;
  /**
   * The order's size. Base coin, except a market buy, whose size is a quote-coin amount (spec 4.3);
   * `sizeUnit` says which.
   */
  readonly size: Decimal;
  readonly sizeUnit: 'base' | 'quote';
  /** Filled so far, in the unit of `size` (base quantity, or quote amount spent for a market buy). */
  readonly filled: Decimal;
  /** Limit price of a limit order: a buy fills at or below it, a sell at or above it. */
  readonly limitPrice?: Decimal | undefined;
  /**
   * When a limit order was acknowledged, Unix ms: from then on it rests in the book, and a resting order fills
   * at its own price (a maker), so a later fill at another price is not its. Undefined: not known to rest.
   */
  readonly restingSince?: number | undefined;
}

/**
 * One booking of (part of) a venue fill: to an order of a bot, or, when no open order of a bot can take
 * it, to the deployment (`bot` undefined): every fill is booked exactly once, in whole or in parts whose
 * sizes sum to its size.
 */
export interface FillPart {
  readonly fill: VenueFill;
  /** The journal's key: the fill's execId for its last part (a whole fill is one part), `<execId>/<n>` before. */
  readonly execId: string;
  /** Base quantity booked: the fill's size, or part of it when it was split. */
  readonly size: Decimal;
  /** Undefined: booked to the deployment (no open order of a bot can take it). */
  readonly bot: string | undefined;
  readonly clientOid: string | undefined;
  /**
   * Whether the fill had exactly one order it could belong to, which took it whole: then the answer is
   * the venue's own (the fill is of our orders), not a choice of the rule.
   */
  readonly exact: boolean;
  /** The orders it could belong to (same side, placed before, price fits, something left), preferred first. */
  readonly candidates: readonly string[];
  /** Why (this part of) the fill went to the deployment; undefined for a part booked to a bot. */
  readonly reason: UnattributedReason | undefined;
}

/** A part booked to a bot. */
export type FillAssignment = FillPart & { readonly bot: string; readonly clientOid: string };

export type UnattributedReason =
  /** The side is neither buy nor sell. */
  | 'unknown_side'
  /** No open order of that side placed at or before the fill at a compatible price. */
  | 'no_matching_order'
  /** Such orders exist but have not enough left to hold the whole fill: the rest is the deployment's. */
  | 'exceeds_remaining';

/** A part booked to the deployment. */
export type UnattributedFill = FillPart & { readonly bot: undefined; readonly reason: UnattributedReason };

export interface FillAttribution {
  /** Every part, in fill order (ts, then execId), a fill's `<execId>/<n>` parts before its last. */
  readonly parts: readonly FillPart[];
  /** The parts booked to bots, in fill order. */
  readonly assignments: readonly FillAssignment[];
  /** The parts booked to the deployment, in fill order. */
  readonly unattributed: readonly UnattributedFill[];
  /** What is left of each order after these fills, by clientOid, in the order's `sizeUnit`. */
  readonly remaining: ReadonlyMap<string, Decimal>;
}

/** How much of an order's size a fill uses, in the order's size unit. */
const usedBy = (o: AttributableOrder, price: Decimal, size: Decimal): Decimal =>
  o.sizeUnit === 'quote' ? price.mul(size) : size;

/** How much base an order can still take at `price`, in the fill's decimals (never more than it has left). */
const capacity = (o: AttributableOrder, left: Decimal, f: VenueFill): Decimal =>
  o.sizeUnit === 'quote'
    ? left.div(f.price).toDecimalPlaces(f.size.decimalPlaces(), Decimal.ROUND_DOWN)
    : left;

const priceFits = (o: AttributableOrder, f: VenueFill): boolean =>
  o.orderType === 'market' ||
  o.limitPrice === undefined ||
  (o.restingSince !== undefined && f.ts > o.restingSince
    ? f.price.eq(o.limitPrice)
    : o.side === 'buy'
      ? f.price.lte(o.limitPrice)
      : f.price.gte(o.limitPrice));

/**
 * Which of two orders went first: by their router's send order when both were sent since it was made; an
 * order tracked after a restart before one sent since; else by time.
 */
function firstSent(a: AttributableOrder, b: AttributableOrder): number {
  if (a.sent !== undefined && b.sent !== undefined) return a.sent - b.sent;
  if (a.sent !== undefined) return 1;
  if (b.sent !== undefined) return -1;
  return a.placedAt - b.placedAt;
}

/** Market orders before limit orders, then the first sent, then the smaller clientOid: a total order. */
const preference = (a: AttributableOrder, b: AttributableOrder): number =>
  (a.orderType === b.orderType ? 0 : a.orderType === 'market' ? -1 : 1) ||
  firstSent(a, b) ||
  (a.clientOid < b.clientOid ? -1 : a.clientOid > b.clientOid ? 1 : 0);

/**
 * Books each fill to the open orders of the bots sharing the symbol, exactly once: whole to one order,
 * split across several, or (what no order can take) to the deployment.
 *
 * The rule. Fills are taken in time order (ts, then execId). A fill can go to an order that
 *  1. has the same side;
 *  2. was placed at or before the fill (`placedAt <= ts`);
 *  3. accepts its price: a limit buy at or below its limit, a limit sell at or above it, and a limit
 *     order resting since before the fill (acknowledged) only its limit price (resting, it fills as a maker);
 *  4. has something left (a market buy's remainder is its quote amount not yet spent).
 * These are its candidates, preferred in this order: market orders first (they fill at once on
 * placement, while a resting limit fills only when the price reaches it), then the first sent (FIFO: by
 * the router's send order, which also orders two sends within one tick of the clock), then the smaller
 * clientOid. The fill goes whole to the first candidate that can hold it (the venue fills one order per
 * execution). When none can, it is split: each candidate in turn takes what it has left, and what is
 * still left of the fill goes to the deployment (reason `exceeds_remaining`); a fill with no candidate
 * goes there whole. The chosen orders' remainders shrink before the next fill is looked at.
 *
 * A part is `exact` when its fill had one candidate, which took it whole: with one market order in
 * flight per account and symbol (the Trader waits for `FillRouter.marketTurn`), that is the common case.
 *
 * Deterministic: the answer depends only on the inputs, not on their order.
 */
export function attributeFills(
  fills: readonly VenueFill[],
  orders: readonly AttributableOrder[],
): FillAttribution {
  const remaining = new Map<string, Decimal>();
  for (const o of orders) {
    if (remaining.has(o.clientOid)) throw new Error(`two open orders share clientOid ${o.clientOid}`);
    const left = o.size.minus(o.filled);
    remaining.set(o.clientOid, left.gt(0) ? left : ZERO);
  }
  const byPreference = [...orders].sort(preference);
  const ordered = [...fills].sort(
    (a, b) => a.ts - b.ts || (a.execId < b.execId ? -1 : a.execId > b.execId ? 1 : 0),
  );
  const parts: FillPart[] = [];
  for (const f of ordered) {
    if (f.side !== 'buy' && f.side !== 'sell') {
      parts.push(toDeployment(f, f.execId, f.size, [], 'unknown_side'));
      continue;
    }
    let matched = false;
    const candidates: AttributableOrder[] = [];
    for (const o of byPreference) {
      if (o.side !== f.side || o.placedAt > f.ts || !priceFits(o, f)) continue;
      matched = true;
      if ((remaining.get(o.clientOid) as Decimal).gt(0)) candidates.push(o);
    }
    const names = candidates.map((o) => o.clientOid);
    const whole = candidates.find((o) =>
      usedBy(o, f.price, f.size).lte(remaining.get(o.clientOid) as Decimal),
    );
    if (whole !== undefined) {
      take(remaining, whole, f, f.size);
      parts.push(toOrder(f, f.execId, f.size, whole, candidates.length === 1, names));
      continue;
    }
    // Split: each candidate takes what it has left; the rest is the deployment's.
    const split: FillPart[] = [];
    let rest = f.size;
    for (const o of candidates) {
      const part = Decimal.min(capacity(o, remaining.get(o.clientOid) as Decimal, f), rest);
      if (!part.gt(0)) continue;
      take(remaining, o, f, part);
      rest = rest.minus(part);
      split.push(toOrder(f, '', part, o, false, names));
    }
    if (rest.gt(0))
      split.push(toDeployment(f, '', rest, names, matched ? 'exceeds_remaining' : 'no_matching_order'));
    // The last part keeps the fill's execId: once it is journaled, every part is (the router books in order).
    split.forEach((p, i) =>
      parts.push({ ...p, execId: i === split.length - 1 ? f.execId : partExecId(f.execId, i + 1) }),
    );
  }
  const assignments = parts.filter((p): p is FillAssignment => p.bot !== undefined);
  const unattributed = parts.filter((p): p is UnattributedFill => p.bot === undefined);
  return { parts, assignments, unattributed, remaining };
}

/** The journal's execId of the n-th part (from 1) of a split fill; its last part keeps the fill's own. */
export const partExecId = (execId: string, n: number): string => `${execId}/${n}`;

/** The venue's execId of a journaled part (`<execId>/<n>` or the execId itself). */
export const venueExecId = (journaled: string): string => journaled.replace(/\/\d+$/, '');

function take(remaining: Map<string, Decimal>, o: AttributableOrder, f: VenueFill, size: Decimal): void {
  remaining.set(o.clientOid, (remaining.get(o.clientOid) as Decimal).minus(usedBy(o, f.price, size)));
}

function toOrder(
  f: VenueFill,
  execId: string,
  size: Decimal,
  o: AttributableOrder,
  exact: boolean,
  candidates: readonly string[],
): FillPart {
  return { fill: f, execId, size, bot: o.bot, clientOid: o.clientOid, exact, candidates, reason: undefined };
}

function toDeployment(
  f: VenueFill,
  execId: string,
  size: Decimal,
  candidates: readonly string[],
  reason: UnattributedReason,
): FillPart {
  return { fill: f, execId, size, bot: undefined, clientOid: undefined, exact: false, candidates, reason };
}

/**
 * The fills that existed when the deployment first started: they are the account's past (manual
 * trades, other programs, an earlier deployment) and are never booked. Journal it once, at the
 * first start, and reuse it on every restart.
 */
export interface FillBaseline {
  /** The deployment's first start, Unix ms. */
  readonly firstStartedAt: number;
  /** Fills the account already had then (the first poll's answer), by execId. */
  readonly execIds: ReadonlySet<string>;
}

/** The baseline of a first start, from the fills the account already has at that moment. */
export function createFillBaseline(
  firstStartedAt: number,
  fillsAtFirstStart: readonly Pick<VenueFill, 'execId'>[],
): FillBaseline {
  return { firstStartedAt, execIds: new Set(fillsAtFirstStart.map((f) => f.execId)) };
}

/**
 * Splits fills into those that may be booked and those of the baseline: a fill at or before the first
 * start, or one the account already had then (whatever its ts says, in case of clock skew), is never
 * booked.
 */
/** Whether a fill is of the account's history from before the deployment first started. */
export function inBaseline(baseline: FillBaseline, execId: string, ts: number): boolean {
  return ts <= baseline.firstStartedAt || baseline.execIds.has(execId);
}

export function excludeBaseline<F extends Pick<VenueFill, 'execId' | 'ts'>>(
  fills: readonly F[],
  baseline: FillBaseline,
): { readonly bookable: F[]; readonly baseline: F[] } {
  const bookable: F[] = [];
  const before: F[] = [];
  for (const f of fills) (inBaseline(baseline, f.execId, f.ts) ? before : bookable).push(f);
  return { bookable, baseline: before };
}

/** Where the baseline of each symbol is kept (the store's meta table in the daemon). */
export interface FillBaselineStore {
  get(symbol: string): FillBaseline | undefined;
  set(symbol: string, baseline: FillBaseline): void;
}

/** The baselines kept in a key/value table (the store's meta), one JSON record per symbol. */
export function metaBaselineStore(meta: {
  get(key: string): string | undefined;
  set(key: string, value: string, ts?: number): void;
}): FillBaselineStore {
  const key = (symbol: string) => `fill-baseline:${symbol}`;
  return {
    get(symbol) {
      const raw = meta.get(key(symbol));
      if (raw === undefined) return undefined;
      const v = JSON.parse(raw) as { firstStartedAt: number; execIds: string[] };
      return { firstStartedAt: v.firstStartedAt, execIds: new Set(v.execIds) };
    },
    set(symbol, b) {
      meta.set(key(symbol), JSON.stringify({ firstStartedAt: b.firstStartedAt, execIds: [...b.execIds] }));
    },
  };
}
