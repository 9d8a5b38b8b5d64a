// Orders and fills of Reality stock pairs (spec 4.3 and 4.4): place-reality-order's checks in the
// venue's order (src/market/reality-order-rules.ts, shared with the paper venue) before the matching core
// places it; reality-fills from the core's fills.
import type { ParamsOut, RealityFill } from '../api/index.js';
import { Decimal, toWire } from '../market/decimal.js';
import {
  limitsRefusal,
  pairRefusal,
  precisionRefusal,
  tradingRefusal,
  type OrderRuleRefusal,
} from '../market/reality-order-rules.js';
import type { SimCredentials } from './auth.js';
import type { InstrumentTable } from './instrument-table.js';
import type { SimInstrument } from './instruments.js';
import type { MatchingCore } from './matching.js';
import { SimError } from './sim-error.js';

const DAY = 86_400_000;
const THREE_MONTHS = 90 * DAY;

/**
 * Wire form of an account fill: the spec's five fields (2.13), plus, when `fillIds` is on, the
 * simulator's orderId/clientOid extension, which the venue does not give.
 */
export interface SimRealityFill extends RealityFill {
  readonly orderId?: string;
  readonly clientOid?: string;
}

/**
 * Whether reality-fills carries orderId and clientOid when `fillIds` is not given: off, as on the
 * venue, which gives only the five fields of spec 2.13 (the daemon attributes fills without them, see
 * `src/execution/fill-router.ts`). On only as an explicit debug option that no daemon test uses.
 */
export const DEFAULT_FILL_IDS = false;

/** What orders are placed on and checked against. */
export interface OrderDesk {
  readonly table: InstrumentTable;
  readonly core: MatchingCore;
  /** Reality codes whose trading is suspended. */
  readonly suspended: ReadonlySet<string>;
}

type PlaceParams = ParamsOut<'placeRealityOrder'>;

/** Throws a rule's refusal as the venue's error. */
function refuse(r: OrderRuleRefusal | undefined): void {
  if (r !== undefined) throw new SimError(r.code, r.msg);
}

/** The Reality pair of an order, refused when it is unknown, not Reality, offline, suspended or closed. */
function tradablePair(desk: OrderDesk, p: PlaceParams, acct: SimCredentials, now: number): SimInstrument {
  const inst = desk.table.get('SPOT', p.symbol);
  refuse(pairRefusal(inst?.wire, p));
  const found = inst as SimInstrument;
  if (p.clientOid !== undefined && desk.core.hasClientOid(acct.uid, p.clientOid)) {
    throw new SimError(
      '95212',
      `Duplicate clientOid: ${p.clientOid} was already used by an order of this account`,
    );
  }
  const code = found.realityCode ?? found.wire.baseCoin;
  refuse(tradingRefusal(found.wire, { realityCode: code, suspended: desk.suspended.has(code), now }));
  return found;
}

/** place-reality-order for an account at `now`: the order's ids, or the venue error that refuses it. */
export function placeRealityOrder(
  desk: OrderDesk,
  p: PlaceParams,
  acct: SimCredentials,
  now: number,
): { orderId: string; clientOid: string } {
  const inst = tradablePair(desk, p, acct, now);
  if (p.category === 'MARGIN' && desk.table.get('MARGIN', p.symbol) === undefined)
    throw new SimError(
      '95403',
      `${p.symbol} is not a margin pair (not listed under MARGIN): trade it as SPOT`,
    );
  refuse(precisionRefusal(inst.wire, p));
  const qty = new Decimal(p.qty);
  const last = new Decimal(desk.table.marketOf(inst).lastPrice(now));
  refuse(limitsRefusal(inst.wire, p, last));
  const r = desk.core.place(
    acct.uid,
    {
      symbol: p.symbol,
      side: p.side,
      orderType: p.orderType,
      qty,
      price: p.orderType === 'limit' && p.price !== undefined ? new Decimal(p.price) : undefined,
      clientOid: p.clientOid,
      category: p.category,
    },
    now,
  );
  if (!r.ok) throw new SimError(r.code, r.msg);
  return { orderId: r.order.orderId, clientOid: r.order.clientOid };
}

/** reality-fills for an account at `now`: its fills of the last three months, newest first. */
export function realityFills(
  desk: OrderDesk,
  p: ParamsOut<'realityFills'>,
  acct: SimCredentials,
  now: number,
  fillIds: boolean,
): SimRealityFill[] {
  const inst = desk.table.get('SPOT', p.symbol);
  if (!inst || inst.wire.isReality !== 'yes')
    throw new SimError(
      '95249',
      `${p.symbol} is not a Reality stock pair; reality-fills supports only Reality pairs`,
    );
  desk.core.advance(now);
  return desk.core
    .listFills(acct.uid, p.symbol, now - THREE_MONTHS)
    .slice(0, p.limit)
    .map((f) => ({
      execId: f.execId,
      price: toWire(f.price),
      size: toWire(f.size),
      side: f.side,
      ts: String(f.ts),
      ...(fillIds ? { orderId: f.orderId, clientOid: f.clientOid } : {}),
    }));
}
