// Fill attribution without ids: the venue's Reality fill has only execId, price, size, side and ts
// (spec 2.13), so which order (and so which bot) a fill belongs to must be inferred from the bots' own
// open orders. Pure and I/O-free: the caller gives the new fills and the open orders, and books the
// answer. The rule is documented on `attributeFills`; the baseline helpers keep fills the account made
// before the deployment first started (by hand, or by an earlier deployment) out of the books.
import { ZERO, type Decimal } from '../market/decimal.js';

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
}

export interface FillAssignment {
  readonly fill: VenueFill;
  readonly bot: string;
  readonly clientOid: string;
}

export type UnattributedReason =
  /** The side is neither buy nor sell. */
  | 'unknown_side'
  /** No open order of that side placed at or before the fill at a compatible price. */
  | 'no_matching_order'
  /** Such orders exist but none has enough left to hold the whole fill. */
  | 'exceeds_remaining';

export interface UnattributedFill {
  readonly fill: VenueFill;
  readonly reason: UnattributedReason;
}

export interface FillAttribution {
  /** In fill order (ts, then execId). */
  readonly assignments: readonly FillAssignment[];
  readonly unattributed: readonly UnattributedFill[];
  /** What is left of each order after these fills, by clientOid, in the order's `sizeUnit`. */
  readonly remaining: ReadonlyMap<string, Decimal>;
}

/** How much of an order's size a fill uses, in the order's size unit. */
const usedBy = (o: AttributableOrder, f: VenueFill): Decimal =>
  o.sizeUnit === 'quote' ? f.price.mul(f.size) : f.size;

const priceFits = (o: AttributableOrder, f: VenueFill): boolean =>
  o.orderType === 'market' ||
  o.limitPrice === undefined ||
  (o.side === 'buy' ? f.price.lte(o.limitPrice) : f.price.gte(o.limitPrice));

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
 * Assigns each fill to one open order of the bots sharing the symbol, or leaves it unattributed.
 *
 * The rule. Fills are taken in time order (ts, then execId). A fill can go to an order that
 *  1. has the same side;
 *  2. was placed at or before the fill (`placedAt <= ts`);
 *  3. accepts its price: a limit buy at or below its limit, a limit sell at or above it;
 *  4. has enough left for the whole fill (the venue fills one order per execution, so a fill is
 *     never split across orders; a market buy's remainder is its quote amount not yet spent).
 * Among those, market orders come first (they fill at once on placement, while a resting limit
 * fills only when the price reaches it), then the first sent (FIFO: by the router's send order, which
 * also orders two sends within one tick of the clock), then the smaller clientOid.
 * The chosen order's remainder shrinks before the next fill is looked at. A fill no order can take
 * is returned as unattributed with the reason, for the caller to log and count, never to book.
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
  const assignments: FillAssignment[] = [];
  const unattributed: UnattributedFill[] = [];
  for (const f of ordered) {
    if (f.side !== 'buy' && f.side !== 'sell') {
      unattributed.push({ fill: f, reason: 'unknown_side' });
      continue;
    }
    let eligible = false;
    let chosen: AttributableOrder | undefined;
    for (const o of byPreference) {
      if (o.side !== f.side || o.placedAt > f.ts || !priceFits(o, f)) continue;
      const left = remaining.get(o.clientOid) as Decimal;
      if (left.lte(0)) continue;
      eligible = true;
      if (usedBy(o, f).lte(left)) {
        chosen = o;
        break;
      }
    }
    if (chosen === undefined) {
      unattributed.push({ fill: f, reason: eligible ? 'exceeds_remaining' : 'no_matching_order' });
      continue;
    }
    remaining.set(chosen.clientOid, (remaining.get(chosen.clientOid) as Decimal).minus(usedBy(chosen, f)));
    assignments.push({ fill: f, bot: chosen.bot, clientOid: chosen.clientOid });
  }
  return { assignments, unattributed, remaining };
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
