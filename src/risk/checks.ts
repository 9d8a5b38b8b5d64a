// The gate's rules: the denial codes and RISK_CHECKS, the named checks in the order they run, each a pure
// function of the facts its stage establishes that passes or denies with a code and a sentence.
import { Decimal, ONE, ZERO, aboveZero } from '../market/decimal.js';
import { deliveryAllowsOrders } from '../market/delivery.js';
import { formatDuration } from '../market/duration.js';
import { marginPairRules, maxLiabilities, riskRatio } from '../market/margin.js';
import type { InstrumentFacts, IntentFacts, MarketFacts, OrderFacts } from './facts.js';
import { DEFAULT_MARGIN_SAFETY } from './limits.js';

export const DENIAL_CODES = [
  'TRADING_HALTED',
  'PROTECTION_LOCK',
  'PAUSED',
  'LIMIT_WITHOUT_FILLS',
  'UNKNOWN_INSTRUMENT',
  'INSTRUMENT_STATUS',
  'DELIVERY_STATE',
  'SUSPENDED',
  'SESSION_UNKNOWN',
  'CALENDAR_CLOSED',
  'SESSION_NOT_ALLOWED',
  'NO_MARKET_PRICE',
  'STALE_DATA',
  'STALE_SIGNAL',
  'REDUCING_ONLY',
  'PRECISION_ZERO_AFTER_ROUNDING',
  'BELOW_MIN_QTY',
  'ABOVE_MAX_QTY',
  'ABOVE_MAX_MARKET_QTY',
  'BELOW_MIN_AMOUNT',
  'LIMIT_PRICE_RATIO',
  'INSUFFICIENT_CASH',
  'HELD_BY_ORDERS',
  'EXIT_BLOCKED',
  'OVERSELL',
  'MARGIN_NOT_MARGIN_PAIR',
  'MARGIN_NOT_BORROWABLE',
  'MARGIN_BELOW_MIN_BORROW',
  'MARGIN_LEVERAGE',
  'MARGIN_RISK_RATIO',
  'MAX_NOTIONAL_ORDER',
  'MAX_POSITION',
  'MAX_NOTIONAL_POSITION',
  'MAX_GROSS_EXPOSURE',
  'ORDER_RATE',
] as const;
export type DenialCode = (typeof DENIAL_CODES)[number];

/** A money amount for a sentence: two decimals and thousands separators ("9,879.50"). */
export function formatAmount(d: Decimal): string {
  const [int = '0', frac] = d.toFixed(2).split('.');
  return `${int.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${frac === undefined ? '' : `.${frac}`}`;
}

/**
 * A refusal: a stable code and a sentence that says what to do; `blockedBy`, for EXIT_BLOCKED, the clientOid
 * of the bot's own resting order that holds what the intent would sell.
 */
export type Deny = {
  readonly code: DenialCode;
  readonly message: string;
  readonly blockedBy?: string | undefined;
};
export const deny = (code: DenialCode, message: string, blockedBy?: string): Deny =>
  blockedBy === undefined ? { code, message } : { code, message, blockedBy };

/** One named rule of the gate, typed by what it may read: a denial, or undefined to pass. */
export type RiskCheck =
  | { readonly name: string; readonly needs: 'intent'; check(f: IntentFacts): Deny | undefined }
  | { readonly name: string; readonly needs: 'instrument'; check(f: InstrumentFacts): Deny | undefined }
  | { readonly name: string; readonly needs: 'market'; check(f: MarketFacts): Deny | undefined }
  | { readonly name: string; readonly needs: 'order'; check(f: OrderFacts): Deny | undefined };

/**
 * Phase two, judging: the rules in the order they run, the first denial decides; each stage's checks come
 * after the previous stage's (a test holds the list to it); the steps of phase one between them are the gate's
 * NORMALISE_STEPS (gate.ts). Adding a rule is adding an entry here (and its code to DENIAL_CODES), with a table
 * test in test/unit/risk/gate.test.ts.
 */
export const RISK_CHECKS: readonly RiskCheck[] = [
  {
    name: 'tradingState',
    needs: 'intent',
    check: (f) =>
      f.ctx.tradingState === 'HALTED'
        ? deny(
            'TRADING_HALTED',
            "trading is halted: nothing is placed until the bot is re-armed (the dashboard's Re-arm, or POST /api/bots/<name>/rearm; a daily loss limit's halt also ends with the next UTC day); resume does not lift a halt",
          )
        : undefined,
  },
  {
    name: 'paused',
    needs: 'intent',
    check: ({ ctx, raw, reducing }) =>
      ctx.tradingState === 'PAUSED' && !reducing
        ? deny(
            'PAUSED',
            `the bot is paused by the operator: no new entry on ${raw.symbol} (orders that reduce a position still run); resume it from the dashboard or POST /api/bots/<name>/resume`,
          )
        : undefined,
  },
  {
    name: 'protections',
    needs: 'intent',
    check: ({ ctx, reducing }) =>
      ctx.entryLock !== undefined && !reducing
        ? deny('PROTECTION_LOCK', `entry refused: ${ctx.entryLock}`)
        : undefined,
  },
  {
    name: 'limitWithoutFills',
    needs: 'intent',
    check: ({ ctx, raw }) =>
      ctx.fillsEstimated === true && raw.type === 'limit'
        ? deny(
            'LIMIT_WITHOUT_FILLS',
            `a limit order on ${raw.symbol} is refused: the account cannot read its fills (fills: estimated, no whitelist access), so a resting order's fills could never be booked; use market orders, or apply for whitelist access through the venue and set fills: venue`,
          )
        : undefined,
  },
  {
    name: 'signalAge',
    needs: 'intent',
    check: ({ ctx }) => {
      const s = ctx.signal;
      if (s === undefined || s.maxAgeMs <= 0 || s.time <= 0 || ctx.now - s.time <= s.maxAgeMs)
        return undefined;
      return deny(
        'STALE_SIGNAL',
        `the signal comes from data complete ${formatDuration(ctx.now - s.time)} ago (limit ${formatDuration(s.maxAgeMs)}): a replay after a gap is not traded`,
      );
    },
  },
  // (normalise: `instrument`, UNKNOWN_INSTRUMENT)
  {
    name: 'instrumentStatus',
    needs: 'instrument',
    check: ({ rules, raw, reducing }) => {
      switch (rules.status) {
        case 'online':
          return undefined;
        case 'limit_open':
          return reducing
            ? undefined
            : deny(
                'INSTRUMENT_STATUS',
                `${raw.symbol} is limit_open: only orders that reduce the position are allowed`,
              );
        case 'limit_close':
          return reducing
            ? deny(
                'INSTRUMENT_STATUS',
                `${raw.symbol} is limit_close: only orders that open a position are allowed`,
              )
            : undefined;
        default:
          return deny('INSTRUMENT_STATUS', `${raw.symbol} is ${rules.status}: no orders are allowed`);
      }
    },
  },
  {
    name: 'deliveryState',
    needs: 'instrument',
    check: ({ ctx, raw }) =>
      deliveryAllowsOrders(ctx.deliveryStatus)
        ? undefined
        : deny(
            'DELIVERY_STATE',
            `${raw.symbol} is in ${ctx.deliveryStatus}: no new orders until delivery is over`,
          ),
  },
  {
    name: 'suspension',
    needs: 'instrument',
    check: ({ rules, ctx, raw }) =>
      rules.isReality && ctx.suspended
        ? deny('SUSPENDED', `${raw.symbol} is suspended; wait for resumption (suspension-resumption-info)`)
        : undefined,
  },
  {
    name: 'session',
    needs: 'instrument',
    check: ({ rules, ctx, L, raw }) => {
      if (!rules.isReality) return undefined;
      const s = ctx.session;
      if (s === undefined)
        return deny(
          'SESSION_UNKNOWN',
          `the US market session is not known yet, and ${raw.symbol} trades only in the sessions allowedSessions names; wait for the session feed (market-session-info)`,
        );
      if (s.session === 'closed')
        return s.closure
          ? deny('CALENDAR_CLOSED', `the US market is closed for ${s.closure}`)
          : deny('CALENDAR_CLOSED', 'the US market is closed (weekly closure)');
      if (!L.allowedSessions.includes(s.session))
        return deny(
          'SESSION_NOT_ALLOWED',
          `session ${s.session} is not in allowedSessions (${L.allowedSessions.join(', ')})`,
        );
      return undefined;
    },
  },
  // (normalise: `marketPrice`, NO_MARKET_PRICE)
  {
    name: 'dataAge',
    needs: 'market',
    check: ({ ctx, market, L, raw }) =>
      ctx.now - market.ts > L.maxDataAgeMs
        ? deny(
            'STALE_DATA',
            `market data of ${raw.symbol} is ${formatDuration(ctx.now - market.ts)} old (limit ${formatDuration(L.maxDataAgeMs)})`,
          )
        : undefined,
  },
  {
    name: 'reducingOnly',
    needs: 'market',
    check: ({ ctx, reducing }) =>
      ctx.tradingState === 'REDUCING' && !reducing
        ? deny(
            'REDUCING_ONLY',
            'the bot is REDUCING after losses: only orders that reduce a position are allowed',
          )
        : undefined,
  },
  // (normalise: `precision`, PRECISION_ZERO_AFTER_ROUNDING)
  {
    name: 'minQty',
    needs: 'order',
    check: (f) =>
      f.rules.minOrderQty && !('quoteAmount' in f.intent) && f.baseQty.lt(f.rules.minOrderQty)
        ? deny(
            'BELOW_MIN_QTY',
            `quantity ${f.baseQty.toFixed()} is below minOrderQty ${f.rules.minOrderQty.toFixed()}`,
          )
        : undefined,
  },
  {
    name: 'maxQty',
    needs: 'order',
    check: (f) => {
      const r = f.rules;
      if (f.intent.type === 'limit' && r.maxOrderQty && f.baseQty.gt(r.maxOrderQty))
        return deny(
          'ABOVE_MAX_QTY',
          `quantity ${f.baseQty.toFixed()} is above maxOrderQty ${r.maxOrderQty.toFixed()}; split the order`,
        );
      if (f.intent.type === 'market' && r.maxMarketOrderQty && f.baseQty.gt(r.maxMarketOrderQty))
        return deny(
          'ABOVE_MAX_MARKET_QTY',
          `quantity ${f.baseQty.toFixed()} is above maxMarketOrderQty ${r.maxMarketOrderQty.toFixed()}`,
        );
      return undefined;
    },
  },
  {
    name: 'minAmount',
    needs: 'order',
    check: ({ rules, notional }) =>
      rules.minOrderAmount && notional.lt(rules.minOrderAmount)
        ? deny(
            'BELOW_MIN_AMOUNT',
            `order amount ${notional.toFixed()} is below minOrderAmount ${rules.minOrderAmount.toFixed()}`,
          )
        : undefined,
  },
  {
    name: 'limitPriceRatio',
    needs: 'order',
    check: ({ intent, rules, market }) => {
      if (intent.type !== 'limit') return undefined;
      // The ratios are fractions of the last traded price: a buy may bid at most last x (1 + ratio),
      // a sell may ask at least last x (1 - ratio).
      if (
        intent.side === 'buy' &&
        rules.buyLimitPriceRatio &&
        intent.price.gt(market.last.mul(rules.buyLimitPriceRatio.plus(1)))
      )
        return deny(
          'LIMIT_PRICE_RATIO',
          `buy limit ${intent.price.toFixed()} is above last ${market.last.toFixed()} x (1 + ${rules.buyLimitPriceRatio.toFixed()})`,
        );
      if (
        intent.side === 'sell' &&
        rules.sellLimitPriceRatio &&
        intent.price.lt(market.last.mul(ONE.minus(rules.sellLimitPriceRatio)))
      )
        return deny(
          'LIMIT_PRICE_RATIO',
          `sell limit ${intent.price.toFixed()} is below last ${market.last.toFixed()} x (1 - ${rules.sellLimitPriceRatio.toFixed()})`,
        );
      return undefined;
    },
  },
  {
    name: 'balance',
    needs: 'order',
    check: (f) => {
      const { intent, rules, ctx, notional, position } = f;
      const held = ctx.heldByOrders;
      if (intent.side === 'buy') {
        // A MARGIN buy may borrow the quote coin it lacks: the margin check judges that.
        if (intent.category === 'MARGIN') return undefined;
        const cash = ctx.portfolio.cash(rules.quoteCoin);
        if (held !== undefined && held.buys > 0 && notional.gt(cash.minus(held.quote))) {
          const free = Decimal.max(cash.minus(held.quote), ZERO);
          return deny(
            'HELD_BY_ORDERS',
            `order needs ${formatAmount(notional)} ${rules.quoteCoin}: cash ${formatAmount(free)} ${rules.quoteCoin} free, ${held.buys} limit ${held.buys === 1 ? 'order holds' : 'orders hold'} ${formatAmount(held.quote)} ${rules.quoteCoin} (the venue has no cancel: wait for them to fill, or quote smaller)`,
          );
        }
        return notional.gt(cash)
          ? deny(
              'INSUFFICIENT_CASH',
              `order needs ${notional.toFixed()} ${rules.quoteCoin}, ${cash.toFixed()} is free`,
            )
          : undefined;
      }
      // Spot is long only: every sell exits some of the position, and one that the bot's own resting limit
      // sells leave no room for is an exit blocked (a stop-loss behind a resting take-profit, say).
      if (held !== undefined && held.sells > 0 && f.baseQty.gt(position.minus(held.base))) {
        const free = Decimal.max(position.minus(held.base), ZERO);
        const first = held.firstSell === undefined ? '' : `, first ${held.firstSell}`;
        return deny(
          'EXIT_BLOCKED',
          `exit blocked: sell of ${f.baseQty.toFixed()} ${rules.baseCoin} (${intent.tag}): ${free.toFixed()} ${rules.baseCoin} free, ${held.sells} resting limit ${held.sells === 1 ? 'sell holds' : 'sells hold'} ${held.base.toFixed()} ${rules.baseCoin}${first} (the venue has no cancel: the position cannot be sold until they fill; see docs/strategies.md, "Exits behind resting orders")`,
          held.firstSell,
        );
      }
      return rules.category === 'SPOT' && f.baseQty.gt(aboveZero(position) ? position : ZERO)
        ? deny(
            'OVERSELL',
            `sell of ${f.baseQty.toFixed()} ${rules.baseCoin} exceeds the ${position.toFixed()} held (spot cannot go short)`,
          )
        : undefined;
    },
  },
  {
    name: 'margin',
    needs: 'order',
    check: marginCheck,
  },
  {
    name: 'exposure',
    needs: 'order',
    check: (f) => {
      const { L, reducing, notional, position, intent, price, ctx } = f;
      if (reducing) return undefined;
      if (L.maxOrderNotional && notional.gt(L.maxOrderNotional))
        return deny(
          'MAX_NOTIONAL_ORDER',
          `order value ${notional.toFixed()} is above maxOrderNotional ${L.maxOrderNotional.toFixed()}`,
        );
      if (!(L.maxPositionQty || L.maxPositionNotional || L.maxGrossExposure)) return undefined;
      const after = position.plus(intent.side === 'buy' ? f.baseQty : f.baseQty.neg()).abs();
      if (L.maxPositionQty && after.gt(L.maxPositionQty))
        return deny(
          'MAX_POSITION',
          `position would be ${after.toFixed()}, above maxPositionQty ${L.maxPositionQty.toFixed()}`,
        );
      if (L.maxPositionNotional && after.mul(price).gt(L.maxPositionNotional))
        return deny(
          'MAX_NOTIONAL_POSITION',
          `position value would be ${after.mul(price).toFixed()}, above maxPositionNotional ${L.maxPositionNotional.toFixed()}`,
        );
      if (L.maxGrossExposure) {
        let gross = after.mul(price);
        for (const p of ctx.portfolio.positions()) {
          if (p.symbol === intent.symbol) continue;
          gross = gross.plus(p.quantity.abs().mul(ctx.markOf?.(p.symbol) ?? p.avgPrice));
        }
        if (gross.gt(L.maxGrossExposure))
          return deny(
            'MAX_GROSS_EXPOSURE',
            `gross exposure would be ${gross.toFixed()}, above maxGrossExposure ${L.maxGrossExposure.toFixed()}`,
          );
      }
      return undefined;
    },
  },
  {
    name: 'orderRate',
    needs: 'order',
    check: ({ L, ctx }) => {
      const rate = L.maxOrdersPerSecond ?? (L.whitelisted ? 30 : 5);
      let lastSecond = 0;
      // An index loop: the iterator's result objects cost 3 KB per intent where this rule ran unoptimised.
      const times = ctx.recentOrderTimes;
      for (let k = 0; k < times.length; k++) if ((times[k] as number) > ctx.now - 1000) lastSecond++;
      return lastSecond >= rate
        ? deny('ORDER_RATE', `${lastSecond} orders in the last second; the limit is ${rate}/s`)
        : undefined;
    },
  },
];

/**
 * The bot's account after an order, in the quote coin at the marks (the order's symbol at its price): assets
 * (positive cash, long positions) and liabilities (shorts, negative cash, interest owed), as the simulator's
 * model counts them (src/market/margin.ts), and what the order borrows of the coin it lacks.
 */
function projectedMargin(f: OrderFacts): {
  assets: Decimal;
  liabilities: Decimal;
  lack: Decimal;
  coin: string;
} {
  const { intent, rules, ctx, price, position } = f;
  const buy = intent.side === 'buy';
  const cash = ctx.portfolio.cash(rules.quoteCoin);
  const cost = buy ? f.notional : f.notional.neg();
  const cashAfter = cash.minus(cost);
  let assets = aboveZero(cashAfter) ? cashAfter : ZERO;
  let liabilities = (aboveZero(cashAfter) ? ZERO : cashAfter.neg()).plus(ctx.margin?.interest ?? ZERO);
  for (const p of ctx.portfolio.positions()) {
    const qty = p.symbol === intent.symbol ? position.plus(buy ? f.baseQty : f.baseQty.neg()) : p.quantity;
    const mark = p.symbol === intent.symbol ? price : (ctx.markOf?.(p.symbol) ?? p.avgPrice);
    if (aboveZero(qty)) assets = assets.plus(qty.mul(mark));
    else liabilities = liabilities.plus(qty.neg().mul(mark));
  }
  if (!ctx.portfolio.positions().some((p) => p.symbol === intent.symbol)) {
    const qty = buy ? f.baseQty : f.baseQty.neg();
    if (aboveZero(qty)) assets = assets.plus(qty.mul(price));
    else liabilities = liabilities.plus(qty.neg().mul(price));
  }
  const lack = buy
    ? Decimal.max(f.notional.minus(Decimal.max(cash, ZERO)), ZERO)
    : Decimal.max(f.baseQty.minus(Decimal.max(position, ZERO)), ZERO);
  return { assets, liabilities, lack, coin: buy ? rules.quoteCoin : rules.baseCoin };
}

/**
 * MARGIN orders that borrow: on a margin pair, of a borrowable coin, at least userMinBorrow, within the
 * leverage set for the coin (capped by maxCrossedLeverage), and leaving the risk ratio below the pair's
 * warningRiskRatio less the bot's marginSafety. An order that borrows nothing (a cover, a sell of what is
 * held) passes.
 */
function marginCheck(f: OrderFacts): Deny | undefined {
  const { intent, rules, ctx, L, reducing, price } = f;
  if (intent.category !== 'MARGIN' || reducing) return undefined;
  const { assets, liabilities, lack, coin } = projectedMargin(f);
  if (!aboveZero(lack)) return undefined;
  if (rules.category !== 'MARGIN')
    return deny(
      'MARGIN_NOT_MARGIN_PAIR',
      `${intent.symbol} is not listed under MARGIN: it cannot borrow ${coin}; trade it as SPOT`,
    );
  const m = marginPairRules(rules.raw);
  const base = coin === rules.baseCoin;
  if (!(base ? m.baseBorrowable : m.quoteBorrowable))
    return deny(
      'MARGIN_NOT_BORROWABLE',
      `${coin} is not borrowable on ${intent.symbol} (${base ? 'isIsolatedBaseBorrowable' : 'isIsolatedQuotedBorrowable'} is not true): the order lacks ${lack.toFixed()} ${coin}; hold it, or trade another pair`,
    );
  if (lack.lt(m.userMinBorrow))
    return deny(
      'MARGIN_BELOW_MIN_BORROW',
      `the order would borrow ${lack.toFixed()} ${coin}, below userMinBorrow ${m.userMinBorrow.toFixed()} of ${intent.symbol}: trade a size that borrows at least that, or nothing`,
    );
  const set = ctx.margin?.leverage(coin) ?? ONE;
  const leverage = Decimal.min(set, m.maxCrossedLeverage);
  const cap = maxLiabilities(assets.minus(liabilities), leverage);
  if (liabilities.gt(cap))
    return deny(
      'MARGIN_LEVERAGE',
      `the account would owe ${formatAmount(liabilities)} ${rules.quoteCoin}, above ${formatAmount(cap)} at leverage ${leverage.toFixed()} for ${coin} (equity x (leverage - 1); set ${set.toFixed()}, pair maximum ${m.maxCrossedLeverage.toFixed()}): raise the bot's leverage entry for ${coin}, or trade smaller`,
    );
  const ratio = riskRatio(assets, liabilities);
  const safety = L.marginSafety ?? DEFAULT_MARGIN_SAFETY;
  const ceiling = m.warningRiskRatio.minus(safety);
  if (ratio.gte(ceiling))
    return deny(
      'MARGIN_RISK_RATIO',
      `the risk ratio would be ${ratio.toDecimalPlaces(4).toFixed()} at ${price.toFixed()}, not below ${intent.symbol}'s warningRiskRatio ${m.warningRiskRatio.toFixed()} less marginSafety ${safety.toFixed()}: trade smaller`,
    );
  return undefined;
}
