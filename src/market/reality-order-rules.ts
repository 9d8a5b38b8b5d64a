// place-reality-order's rules (spec 4.3) as pure checks, in the venue's order: the pair, its status and
// suspension, the US session, precision, minimums and the price band around the last price. One copy for
// the simulator (which answers them on the wire) and the paper venue (which answers them locally), so a
// refusal reads the same on both. Each check answers the venue's error code and sentence, or nothing.
import type { Instrument } from '../api/index.js';
import { Decimal, ZERO } from './decimal.js';
import { usSessionAt, type MarketCalendarData } from './sessions.js';

/** A refusal as the venue words it: its error code and a sentence naming the cause. */
export interface OrderRuleRefusal {
  readonly code: string;
  readonly msg: string;
}

/** The order as the rules read it: the wire's strings. */
export interface RealityOrderInput {
  readonly symbol: string;
  readonly side: 'buy' | 'sell';
  readonly orderType: 'limit' | 'market';
  /** Quote amount for a market buy, base quantity otherwise. */
  readonly qty: string;
  readonly price?: string | undefined;
}

const decimals = (s: string): number => (s.split('.')[1] ?? '').replace(/0+$/, '').length;
const isMarketBuy = (p: RealityOrderInput): boolean => p.orderType === 'market' && p.side === 'buy';

/** The pair is listed and a Reality stock pair (checked before anything else). */
export function pairRefusal(
  w: Instrument | undefined,
  p: Pick<RealityOrderInput, 'symbol'>,
): OrderRuleRefusal | undefined {
  if (w === undefined) return { code: '40034', msg: `symbol ${p.symbol} does not exist` };
  if (w.isReality !== 'yes')
    return {
      code: '95249',
      msg: `${p.symbol} is not a Reality stock pair; place-reality-order supports only pairs with isReality yes`,
    };
  return undefined;
}

/** The pair is online, its company not suspended, and the US market open at `now` (after the clientOid check). */
export function tradingRefusal(
  w: Instrument,
  o: {
    readonly realityCode: string;
    readonly suspended: boolean;
    readonly now: number;
    readonly calendar?: MarketCalendarData | undefined;
  },
): OrderRuleRefusal | undefined {
  if (w.status !== 'online')
    return { code: '95248', msg: `${w.symbol} has status ${w.status}; only online pairs accept orders` };
  if (o.suspended)
    return { code: '95247', msg: `${o.realityCode} is suspended; see suspension-resumption-info` };
  const session = usSessionAt(o.now, o.calendar);
  if (session.session === 'closed')
    return {
      code: '95246',
      msg: `the US market is closed${session.closure ? ` (${session.closure})` : ''}; it opens at ${new Date(session.nextChange).toISOString()}`,
    };
  return undefined;
}

/** A price or quantity with more decimals than the pair allows (a market buy's qty is quote). */
export function precisionRefusal(w: Instrument, p: RealityOrderInput): OrderRuleRefusal | undefined {
  const pp = Number(w.pricePrecision);
  const qp = Number(w.quantityPrecision);
  const quoteP = Number(w.quotePrecision ?? w.pricePrecision);
  const marketBuy = isMarketBuy(p);
  if (p.orderType === 'limit' && p.price !== undefined && decimals(p.price) > pp)
    return { code: '95244', msg: `price ${p.price} has more than pricePrecision ${pp} decimals` };
  if (marketBuy ? decimals(p.qty) > quoteP : decimals(p.qty) > qp)
    return {
      code: '95210',
      msg: marketBuy
        ? `qty ${p.qty} (quote amount of a market buy) has more than quotePrecision ${quoteP} decimals`
        : `qty ${p.qty} has more than quantityPrecision ${qp} decimals`,
    };
  return undefined;
}

/** An order below the pair's minimum quantity or amount, or a limit price outside its band around `last`. */
export function limitsRefusal(
  w: Instrument,
  p: RealityOrderInput,
  last: Decimal,
): OrderRuleRefusal | undefined {
  const qty = new Decimal(p.qty);
  const marketBuy = isMarketBuy(p);
  const minQty = w.minOrderQty ? new Decimal(w.minOrderQty) : ZERO;
  if (!marketBuy && qty.lt(minQty))
    return { code: '95207', msg: `qty ${p.qty} is below the minimum quantity ${w.minOrderQty}` };
  const minAmount = w.minOrderAmount ? new Decimal(w.minOrderAmount) : ZERO;
  const amount = marketBuy
    ? qty
    : qty.mul(p.price !== undefined && p.orderType === 'limit' ? new Decimal(p.price) : last);
  if (amount.lt(minAmount))
    return {
      code: '95208',
      msg: `order amount ${amount.toFixed()} ${w.quoteCoin} is below the minimum ${w.minOrderAmount}`,
    };
  if (p.orderType === 'limit' && p.price !== undefined) {
    const price = new Decimal(p.price);
    const buyMax = last.mul(new Decimal(w.buyLimitPriceRatio ?? '1').plus(1));
    const sellMin = last.mul(new Decimal(1).minus(w.sellLimitPriceRatio ?? '1'));
    if (p.side === 'buy' && price.gt(buyMax))
      return {
        code: '95245',
        msg: `buy price ${p.price} is above last price ${last.toFixed()} x (1 + buyLimitPriceRatio ${w.buyLimitPriceRatio})`,
      };
    if (p.side === 'sell' && price.lt(sellMin))
      return {
        code: '95245',
        msg: `sell price ${p.price} is below last price ${last.toFixed()} x (1 - sellLimitPriceRatio ${w.sellLimitPriceRatio})`,
      };
  }
  return undefined;
}
