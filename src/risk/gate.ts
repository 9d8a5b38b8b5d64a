// The risk gate: ordered, pure checks between a strategy's intent and the venue. A refusal is data
// (a stable code and a sentence that says what to do), never an exception; an approval carries the
// normalised intent and the wire order.
import type { DeliveryStatus } from '../api/index.js';
import type { VenueOrder } from '../execution/venue.js';
import { Decimal, ZERO, toWire } from '../market/decimal.js';
import { deliveryAllowsOrders } from '../market/delivery.js';
import type { InstrumentRules } from '../market/instrument-rules.js';
import { normaliseIntent } from '../market/precision.js';
import type { SessionState } from '../market/sessions.js';
import type { PortfolioView } from '../portfolio/view.js';
import type { OrderIntent } from '../strategy/intent.js';
import type { RiskLimits } from './limits.js';
import type { TradingState } from './trading-state.js';

export const DENIAL_CODES = [
  'TRADING_HALTED',
  'UNKNOWN_INSTRUMENT',
  'INSTRUMENT_STATUS',
  'DELIVERY_STATE',
  'SUSPENDED',
  'CALENDAR_CLOSED',
  'SESSION_NOT_ALLOWED',
  'NO_MARKET_PRICE',
  'STALE_DATA',
  'REDUCING_ONLY',
  'PRECISION_ZERO_AFTER_ROUNDING',
  'BELOW_MIN_QTY',
  'ABOVE_MAX_QTY',
  'ABOVE_MAX_MARKET_QTY',
  'BELOW_MIN_AMOUNT',
  'LIMIT_PRICE_RATIO',
  'INSUFFICIENT_CASH',
  'OVERSELL',
  'MAX_NOTIONAL_ORDER',
  'MAX_POSITION',
  'MAX_NOTIONAL_POSITION',
  'MAX_GROSS_EXPOSURE',
  'ORDER_RATE',
] as const;
export type DenialCode = (typeof DENIAL_CODES)[number];

export interface MarketSnapshot {
  /** Last traded price: "the market price" of the limit price ratios. */
  readonly last: Decimal;
  readonly bid?: Decimal | undefined;
  readonly ask?: Decimal | undefined;
  /** When the data was produced (venue ts), Unix ms. */
  readonly ts: number;
}

export interface RiskContext {
  readonly now: number;
  readonly rules: InstrumentRules | undefined;
  readonly market: MarketSnapshot | undefined;
  readonly session?: SessionState | undefined;
  readonly deliveryStatus?: DeliveryStatus | undefined;
  readonly suspended?: boolean | undefined;
  readonly portfolio: PortfolioView;
  readonly tradingState: TradingState;
  /** Times of the bot's recent orders (any symbol), for the order rate. */
  readonly recentOrderTimes: readonly number[];
  /** Price of other symbols for the gross exposure (defaults to their average price). */
  readonly markOf?: ((symbol: string) => Decimal | undefined) | undefined;
}

export type RiskDecision =
  | { readonly ok: true; readonly intent: OrderIntent; readonly order: Omit<VenueOrder, 'clientOid'> }
  | { readonly ok: false; readonly code: DenialCode; readonly message: string; readonly intent: OrderIntent };

type Deny = { code: DenialCode; message: string };
const deny = (code: DenialCode, message: string): Deny => ({ code, message });

/** The price an intent is expected to trade at. */
function tradePrice(i: OrderIntent, m: MarketSnapshot): Decimal {
  if (i.type === 'limit') return i.price;
  return i.side === 'buy' ? (m.ask ?? m.last) : (m.bid ?? m.last);
}

/**
 * Whether the intent makes |position| smaller without flipping it: it trades against the position, by at
 * most its size. Exact, and without a division: a market buy of q quote at px buys q / px base, which
 * reduces a short iff q <= px x |position|.
 */
export function isReducing(i: OrderIntent, position: Decimal, px: Decimal): boolean {
  if (position.isZero()) return false;
  if ('quoteAmount' in i)
    return position.isNeg() && px.gt(0) && i.quoteAmount.gt(0) && i.quoteAmount.lte(px.mul(position.neg()));
  const delta = i.side === 'buy' ? i.quantity : i.quantity.neg();
  return !delta.isZero() && delta.isNeg() !== position.isNeg() && delta.abs().lte(position.abs());
}

/**
 * The gate. Checks run in this order and the first failure decides: trading state, instrument,
 * status, delivery, suspension, calendar and session, market data, reducing-only, precision, sizes,
 * limit price ratio, cash, order and position notional, gross exposure, order rate.
 */
export class RiskGate {
  constructor(readonly limits: RiskLimits) {}

  check(intent: OrderIntent, ctx: RiskContext): RiskDecision {
    const r = this.evaluate(intent, ctx);
    return 'code' in r ? { ok: false, code: r.code, message: r.message, intent } : r;
  }

  private evaluate(
    raw: OrderIntent,
    ctx: RiskContext,
  ): Deny | { ok: true; intent: OrderIntent; order: Omit<VenueOrder, 'clientOid'> } {
    const L = this.limits;
    if (ctx.tradingState === 'HALTED')
      return deny(
        'TRADING_HALTED',
        'trading is halted (kill switch or daily loss limit); resume the bot to trade again',
      );
    const rules = ctx.rules;
    if (rules === undefined)
      return deny(
        'UNKNOWN_INSTRUMENT',
        `no instrument rules for ${raw.symbol}; check the symbol and category`,
      );
    const position = ctx.portfolio.position(raw.symbol).quantity;
    const m = ctx.market;
    const px = m === undefined ? ZERO : tradePrice(raw, m);
    const reducing = isReducing(raw, position, px);

    switch (rules.status) {
      case 'online':
        break;
      case 'limit_open':
        if (!reducing)
          return deny(
            'INSTRUMENT_STATUS',
            `${raw.symbol} is limit_open: only orders that reduce the position are allowed`,
          );
        break;
      case 'limit_close':
        if (reducing)
          return deny(
            'INSTRUMENT_STATUS',
            `${raw.symbol} is limit_close: only orders that open a position are allowed`,
          );
        break;
      default:
        return deny('INSTRUMENT_STATUS', `${raw.symbol} is ${rules.status}: no orders are allowed`);
    }
    if (!deliveryAllowsOrders(ctx.deliveryStatus)) {
      return deny(
        'DELIVERY_STATE',
        `${raw.symbol} is in ${ctx.deliveryStatus}: no new orders until delivery is over`,
      );
    }
    if (rules.isReality) {
      if (ctx.suspended)
        return deny(
          'SUSPENDED',
          `${raw.symbol} is suspended; wait for resumption (suspension-resumption-info)`,
        );
      const s = ctx.session;
      if (s === undefined)
        return deny('NO_MARKET_PRICE', 'the market session is not known yet; wait for the session feed');
      if (s.session === 'closed') {
        return s.closure
          ? deny('CALENDAR_CLOSED', `the US market is closed for ${s.closure}`)
          : deny('CALENDAR_CLOSED', 'the US market is closed (weekly closure)');
      }
      if (!L.allowedSessions.includes(s.session)) {
        return deny(
          'SESSION_NOT_ALLOWED',
          `session ${s.session} is not in allowedSessions (${L.allowedSessions.join(', ')})`,
        );
      }
    }
    if (m === undefined || !m.last.gt(0))
      return deny('NO_MARKET_PRICE', `no market price for ${raw.symbol} yet`);
    if (ctx.now - m.ts > L.maxDataAgeMs) {
      return deny(
        'STALE_DATA',
        `market data of ${raw.symbol} is ${ctx.now - m.ts} ms old (limit ${L.maxDataAgeMs} ms)`,
      );
    }
    if (ctx.tradingState === 'REDUCING' && !reducing) {
      return deny(
        'REDUCING_ONLY',
        'the bot is REDUCING after losses: only orders that reduce a position are allowed',
      );
    }

    const intent = normaliseIntent(rules, raw);
    const size = 'quoteAmount' in intent ? intent.quoteAmount : intent.quantity;
    if (!size.gt(0))
      return deny(
        'PRECISION_ZERO_AFTER_ROUNDING',
        `the order size of ${raw.symbol} rounds to zero at the instrument precision`,
      );
    const price = tradePrice(intent, m);
    // The base quantity of a market buy is an estimate (a division): computed only if a check needs it.
    let estimated: Decimal | undefined;
    const baseQty = (): Decimal =>
      'quoteAmount' in intent ? (estimated ??= intent.quoteAmount.div(price)) : intent.quantity;
    const notional = 'quoteAmount' in intent ? intent.quoteAmount : intent.quantity.mul(price);

    if (rules.minOrderQty && !('quoteAmount' in intent) && baseQty().lt(rules.minOrderQty)) {
      return deny(
        'BELOW_MIN_QTY',
        `quantity ${baseQty().toFixed()} is below minOrderQty ${rules.minOrderQty.toFixed()}`,
      );
    }
    if (intent.type === 'limit' && rules.maxOrderQty && baseQty().gt(rules.maxOrderQty)) {
      return deny(
        'ABOVE_MAX_QTY',
        `quantity ${baseQty().toFixed()} is above maxOrderQty ${rules.maxOrderQty.toFixed()}; split the order`,
      );
    }
    if (intent.type === 'market' && rules.maxMarketOrderQty && baseQty().gt(rules.maxMarketOrderQty)) {
      return deny(
        'ABOVE_MAX_MARKET_QTY',
        `quantity ${baseQty().toFixed()} is above maxMarketOrderQty ${rules.maxMarketOrderQty.toFixed()}`,
      );
    }
    if (rules.minOrderAmount && notional.lt(rules.minOrderAmount)) {
      return deny(
        'BELOW_MIN_AMOUNT',
        `order amount ${notional.toFixed()} is below minOrderAmount ${rules.minOrderAmount.toFixed()}`,
      );
    }
    if (intent.type === 'limit') {
      // The ratios are fractions of the last traded price: a buy may bid at most last x (1 + ratio),
      // a sell may ask at least last x (1 - ratio).
      if (
        intent.side === 'buy' &&
        rules.buyLimitPriceRatio &&
        intent.price.gt(m.last.mul(rules.buyLimitPriceRatio.plus(1)))
      ) {
        return deny(
          'LIMIT_PRICE_RATIO',
          `buy limit ${intent.price.toFixed()} is above last ${m.last.toFixed()} x (1 + ${rules.buyLimitPriceRatio.toFixed()})`,
        );
      }
      if (
        intent.side === 'sell' &&
        rules.sellLimitPriceRatio &&
        intent.price.lt(m.last.mul(new Decimal(1).minus(rules.sellLimitPriceRatio)))
      ) {
        return deny(
          'LIMIT_PRICE_RATIO',
          `sell limit ${intent.price.toFixed()} is below last ${m.last.toFixed()} x (1 - ${rules.sellLimitPriceRatio.toFixed()})`,
        );
      }
    }
    if (intent.side === 'buy') {
      const cash = ctx.portfolio.cash(rules.quoteCoin);
      if (notional.gt(cash))
        return deny(
          'INSUFFICIENT_CASH',
          `order needs ${notional.toFixed()} ${rules.quoteCoin}, ${cash.toFixed()} is free`,
        );
    } else if (rules.category === 'SPOT' && baseQty().gt(position.gt(0) ? position : ZERO)) {
      return deny(
        'OVERSELL',
        `sell of ${baseQty().toFixed()} ${rules.baseCoin} exceeds the ${position.toFixed()} held (spot cannot go short)`,
      );
    }
    if (!reducing) {
      if (L.maxOrderNotional && notional.gt(L.maxOrderNotional)) {
        return deny(
          'MAX_NOTIONAL_ORDER',
          `order value ${notional.toFixed()} is above maxOrderNotional ${L.maxOrderNotional.toFixed()}`,
        );
      }
      const after =
        L.maxPositionQty || L.maxPositionNotional || L.maxGrossExposure
          ? position.plus(intent.side === 'buy' ? baseQty() : baseQty().neg()).abs()
          : ZERO;
      if (L.maxPositionQty && after.gt(L.maxPositionQty)) {
        return deny(
          'MAX_POSITION',
          `position would be ${after.toFixed()}, above maxPositionQty ${L.maxPositionQty.toFixed()}`,
        );
      }
      if (L.maxPositionNotional && after.mul(price).gt(L.maxPositionNotional)) {
        return deny(
          'MAX_NOTIONAL_POSITION',
          `position value would be ${after.mul(price).toFixed()}, above maxPositionNotional ${L.maxPositionNotional.toFixed()}`,
        );
      }
      if (L.maxGrossExposure) {
        let gross = after.mul(price);
        for (const p of ctx.portfolio.positions()) {
          if (p.symbol === intent.symbol) continue;
          gross = gross.plus(p.quantity.abs().mul(ctx.markOf?.(p.symbol) ?? p.avgPrice));
        }
        if (gross.gt(L.maxGrossExposure)) {
          return deny(
            'MAX_GROSS_EXPOSURE',
            `gross exposure would be ${gross.toFixed()}, above maxGrossExposure ${L.maxGrossExposure.toFixed()}`,
          );
        }
      }
    }
    const rate = L.maxOrdersPerSecond ?? (L.whitelisted ? 30 : 5);
    let lastSecond = 0;
    for (const t of ctx.recentOrderTimes) if (t > ctx.now - 1000) lastSecond++;
    if (lastSecond >= rate)
      return deny('ORDER_RATE', `${lastSecond} orders in the last second; the limit is ${rate}/s`);

    const order: Omit<VenueOrder, 'clientOid'> = {
      category: intent.category,
      symbol: intent.symbol,
      side: intent.side,
      orderType: intent.type,
      qty: toWire(size),
      ...(intent.type === 'limit' ? { price: toWire(intent.price) } : {}),
    };
    return { ok: true, intent, order };
  }
}
