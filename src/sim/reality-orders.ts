// Orders and fills of Reality stock pairs (spec 4.3 and 4.4): place-reality-order's checks in the
// venue's order (the pair, its status and suspension, the US session, precision, minimums and the price
// band around the last price) before the matching core places it; reality-fills from the core's fills.
import type { ParamsOut, RealityFill } from '../api/index.js';
import { Decimal, ZERO, toWire } from '../market/decimal.js';
import { usSessionAt } from '../market/sessions.js';
import type { SimCredentials } from './auth.js';
import type { InstrumentTable } from './instrument-table.js';
import type { SimInstrument } from './instruments.js';
import type { MatchingCore } from './matching.js';
import { SimError } from './sim-error.js';

const DAY = 86_400_000;
const THREE_MONTHS = 90 * DAY;
const decimals = (s: string): number => (s.split('.')[1] ?? '').replace(/0+$/, '').length;

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

const isMarketBuy = (p: PlaceParams): boolean => p.orderType === 'market' && p.side === 'buy';

/** The Reality pair of an order, refused when it is unknown, not Reality, offline, suspended or closed. */
function tradablePair(desk: OrderDesk, p: PlaceParams, acct: SimCredentials, now: number): SimInstrument {
  const inst = desk.table.get('SPOT', p.symbol);
  if (!inst) throw new SimError('40034', `symbol ${p.symbol} does not exist`);
  const w = inst.wire;
  if (w.isReality !== 'yes')
    throw new SimError(
      '95249',
      `${p.symbol} is not a Reality stock pair; place-reality-order supports only pairs with isReality yes`,
    );
  if (p.clientOid !== undefined && desk.core.hasClientOid(acct.uid, p.clientOid)) {
    throw new SimError(
      '95212',
      `Duplicate clientOid: ${p.clientOid} was already used by an order of this account`,
    );
  }
  if (w.status !== 'online')
    throw new SimError('95248', `${p.symbol} has status ${w.status}; only online pairs accept orders`);
  const code = inst.realityCode ?? w.baseCoin;
  if (desk.suspended.has(code))
    throw new SimError('95247', `${code} is suspended; see suspension-resumption-info`);
  const session = usSessionAt(now);
  if (session.session === 'closed') {
    throw new SimError(
      '95246',
      `the US market is closed${session.closure ? ` (${session.closure})` : ''}; it opens at ${new Date(session.nextChange).toISOString()}`,
    );
  }
  return inst;
}

/** Refuses a price or quantity with more decimals than the pair allows (a market buy's qty is quote). */
function checkPrecision(w: SimInstrument['wire'], p: PlaceParams): void {
  const pp = Number(w.pricePrecision);
  const qp = Number(w.quantityPrecision);
  const quoteP = Number(w.quotePrecision ?? w.pricePrecision);
  const marketBuy = isMarketBuy(p);
  if (p.orderType === 'limit' && p.price !== undefined && decimals(p.price) > pp) {
    throw new SimError('95244', `price ${p.price} has more than pricePrecision ${pp} decimals`);
  }
  if (marketBuy ? decimals(p.qty) > quoteP : decimals(p.qty) > qp) {
    throw new SimError(
      '95210',
      marketBuy
        ? `qty ${p.qty} (quote amount of a market buy) has more than quotePrecision ${quoteP} decimals`
        : `qty ${p.qty} has more than quantityPrecision ${qp} decimals`,
    );
  }
}

/** Refuses an order below the pair's minimum quantity or amount, or a limit price outside its band around `last`. */
function checkLimits(w: SimInstrument['wire'], p: PlaceParams, qty: Decimal, last: Decimal): void {
  const marketBuy = isMarketBuy(p);
  const minQty = w.minOrderQty ? new Decimal(w.minOrderQty) : ZERO;
  if (!marketBuy && qty.lt(minQty))
    throw new SimError('95207', `qty ${p.qty} is below the minimum quantity ${w.minOrderQty}`);
  const minAmount = w.minOrderAmount ? new Decimal(w.minOrderAmount) : ZERO;
  const amount = marketBuy
    ? qty
    : qty.mul(p.price !== undefined && p.orderType === 'limit' ? new Decimal(p.price) : last);
  if (amount.lt(minAmount))
    throw new SimError(
      '95208',
      `order amount ${amount.toFixed()} ${w.quoteCoin} is below the minimum ${w.minOrderAmount}`,
    );
  if (p.orderType === 'limit' && p.price !== undefined) {
    const price = new Decimal(p.price);
    const buyMax = last.mul(new Decimal(w.buyLimitPriceRatio ?? '1').plus(1));
    const sellMin = last.mul(new Decimal(1).minus(w.sellLimitPriceRatio ?? '1'));
    if (p.side === 'buy' && price.gt(buyMax)) {
      throw new SimError(
        '95245',
        `buy price ${p.price} is above last price ${last.toFixed()} x (1 + buyLimitPriceRatio ${w.buyLimitPriceRatio})`,
      );
    }
    if (p.side === 'sell' && price.lt(sellMin)) {
      throw new SimError(
        '95245',
        `sell price ${p.price} is below last price ${last.toFixed()} x (1 - sellLimitPriceRatio ${w.sellLimitPriceRatio})`,
      );
    }
  }
}

/** place-reality-order for an account at `now`: the order's ids, or the venue error that refuses it. */
export function placeRealityOrder(
  desk: OrderDesk,
  p: PlaceParams,
  acct: SimCredentials,
  now: number,
): { orderId: string; clientOid: string } {
  const inst = tradablePair(desk, p, acct, now);
  checkPrecision(inst.wire, p);
  const qty = new Decimal(p.qty);
  const last = new Decimal(desk.table.marketOf(inst).lastPrice(now));
  checkLimits(inst.wire, p, qty, last);
  const r = desk.core.place(
    acct.uid,
    {
      symbol: p.symbol,
      side: p.side,
      orderType: p.orderType,
      qty,
      price: p.orderType === 'limit' && p.price !== undefined ? new Decimal(p.price) : undefined,
      clientOid: p.clientOid,
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
