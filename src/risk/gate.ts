// The risk gate: ordered, pure checks between a strategy's intent and the venue. A refusal is data
// (a stable code and a sentence that says what to do), never an exception; an approval carries the
// normalised intent and the wire order. Two phases: normalising establishes what the checks may assume
// (the instrument, a market price, the intent at the instrument's precision), judging runs the checks.
// The checks and their codes are in checks.ts, what they read in facts.ts; both are exported from here too.
import type { VenueOrder } from '../api/index.js';
import { ZERO, aboveZero, toWire } from '../market/decimal.js';
import { normaliseIntent } from '../market/precision.js';
import type { OrderIntent } from '../strategy/intent.js';
import { RISK_CHECKS, deny, type DenialCode, type Deny, type RiskCheck } from './checks.js';
import {
  isReducing,
  orderFacts,
  tradePrice,
  type InstrumentFacts,
  type IntentFacts,
  type MarketFacts,
  type OrderFacts,
  type RiskContext,
} from './facts.js';
import type { RiskLimits } from './limits.js';

export { DENIAL_CODES, RISK_CHECKS, formatAmount, type DenialCode, type RiskCheck } from './checks.js';
export {
  isReducing,
  type InstrumentFacts,
  type IntentFacts,
  type MarketFacts,
  type MarketSnapshot,
  type OrderFacts,
  type RiskContext,
  type RiskStage,
} from './facts.js';

export type RiskDecision =
  | { readonly ok: true; readonly intent: OrderIntent; readonly order: Omit<VenueOrder, 'clientOid'> }
  | {
      readonly ok: false;
      readonly code: DenialCode;
      readonly message: string;
      readonly intent: OrderIntent;
      /** EXIT_BLOCKED: the clientOid of the resting order that holds the position. */
      readonly blockedBy?: string | undefined;
    };

/**
 * Phase one, normalising (each step's record written out field by field: V8 (Node 20) copies an object with a
 * spread several times slower, and the gate normalises every intent): the steps that establish what the checks of the next stage may assume, in
 * order, each with the denial when it cannot. The gate takes a step just before the first check that
 * needs it, so denials come in the order the README lists.
 */
export const NORMALISE_STEPS = {
  instrument: (f: IntentFacts): InstrumentFacts | Deny => {
    const rules = f.ctx.rules;
    return rules === undefined
      ? deny('UNKNOWN_INSTRUMENT', `no instrument rules for ${f.raw.symbol}; check the symbol and category`)
      : { raw: f.raw, ctx: f.ctx, L: f.L, position: f.position, reducing: f.reducing, rules };
  },
  marketPrice: (f: InstrumentFacts): MarketFacts | Deny => {
    const market = f.ctx.market;
    return market !== undefined && aboveZero(market.last)
      ? { raw: f.raw, ctx: f.ctx, L: f.L, position: f.position, reducing: f.reducing, rules: f.rules, market }
      : deny('NO_MARKET_PRICE', `no market price for ${f.raw.symbol} yet`);
  },
  precision: (f: MarketFacts): OrderFacts | Deny => {
    const intent = normaliseIntent(f.rules, f.raw);
    const size = 'quoteAmount' in intent ? intent.quoteAmount : intent.quantity;
    return aboveZero(size)
      ? orderFacts(f, intent, size)
      : deny(
          'PRECISION_ZERO_AFTER_ROUNDING',
          `the order size of ${f.raw.symbol} rounds to zero at the instrument precision`,
        );
  },
} as const;

const isDeny = (x: IntentFacts | Deny): x is Deny => 'code' in x;

/** One intent's facts, each stage normalised once, when a check first needs it (phase one). */
class Normalising {
  private instrumentFacts: InstrumentFacts | Deny | undefined;
  private marketFacts: MarketFacts | Deny | undefined;
  private orderFacts: OrderFacts | Deny | undefined;

  constructor(readonly intentFacts: IntentFacts) {}

  instrument(): InstrumentFacts | Deny {
    return (this.instrumentFacts ??= NORMALISE_STEPS.instrument(this.intentFacts));
  }
  market(): MarketFacts | Deny {
    const i = this.instrument();
    return isDeny(i) ? i : (this.marketFacts ??= NORMALISE_STEPS.marketPrice(i));
  }
  order(): OrderFacts | Deny {
    const m = this.market();
    return isDeny(m) ? m : (this.orderFacts ??= NORMALISE_STEPS.precision(m));
  }
}

/** Phase two for one check: it reads the facts its stage establishes (a denial of that stage decides first). */
function judge(c: RiskCheck, n: Normalising): Deny | undefined {
  switch (c.needs) {
    case 'intent':
      return c.check(n.intentFacts);
    case 'instrument': {
      const f = n.instrument();
      return isDeny(f) ? f : c.check(f);
    }
    case 'market': {
      const f = n.market();
      return isDeny(f) ? f : c.check(f);
    }
    case 'order': {
      const f = n.order();
      return isDeny(f) ? f : c.check(f);
    }
  }
}

/** The gate: RISK_CHECKS in order, each stage normalised before its first check; the first denial decides. */
export class RiskGate {
  constructor(readonly limits: RiskLimits) {}

  check(intent: OrderIntent, ctx: RiskContext): RiskDecision {
    const m = ctx.market;
    const position = ctx.portfolio.position(intent.symbol).quantity;
    const n = new Normalising({
      raw: intent,
      ctx,
      L: this.limits,
      position,
      reducing: isReducing(intent, position, m === undefined ? ZERO : tradePrice(intent, m)),
    });
    for (const c of RISK_CHECKS) {
      const d = judge(c, n);
      if (d !== undefined)
        return { ok: false, code: d.code, message: d.message, intent, blockedBy: d.blockedBy };
    }
    const f = n.order();
    if (isDeny(f)) return { ok: false, code: f.code, message: f.message, intent };
    const i = f.intent;
    const order: { -readonly [K in keyof Omit<VenueOrder, 'clientOid'>]: VenueOrder[K] } = {
      category: i.category,
      symbol: i.symbol,
      side: i.side,
      orderType: i.type,
      qty: toWire(f.size),
    };
    if (i.type === 'limit') order.price = toWire(i.price);
    return { ok: true, intent: i, order };
  }
}
