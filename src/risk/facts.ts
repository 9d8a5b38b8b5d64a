// What the risk gate's checks read: the context an intent is judged in, and the facts each normalising step
// establishes (the instrument's rules, a market price, the intent at the instrument's precision).
import type { DeliveryStatus } from '../api/index.js';
import { aboveZero, type Decimal } from '../market/decimal.js';
import type { InstrumentRules } from '../market/instrument-rules.js';
import type { SessionState } from '../market/sessions.js';
import type { PortfolioView } from '../portfolio/view.js';
import type { OrderIntent } from '../strategy/intent.js';
import type { RiskLimits } from './limits.js';
import type { TradingState } from './trading-state.js';

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
  /**
   * The signal: when the data the strategy decided on was complete (a candle's close), and how old a
   * signal may be when it reaches the gate (0: no limit). A signal replayed after a gap is not traded.
   */
  readonly signal?: { readonly time: number; readonly maxAgeMs: number } | undefined;
  /**
   * The account cannot read its fills (no whitelist access, `fills: estimated`): fills are estimated
   * from the acknowledgement, which only a market order's immediate fill allows.
   */
  readonly fillsEstimated?: boolean | undefined;
  /**
   * What the bot's resting limit orders hold at the venue: quote coin by its limit buys (fees
   * reserved included) and base coin of the symbol by its limit sells. A new order only has what is left.
   */
  readonly heldByOrders?:
    | {
        readonly quote: Decimal;
        readonly buys: number;
        readonly base: Decimal;
        readonly sells: number;
        /** The clientOid of the symbol's oldest resting limit sell: the order that blocks an exit. */
        readonly firstSell?: string | undefined;
      }
    | undefined;
  /**
   * The bot's margin account (MARGIN bots): the cross-margin leverage set per coin (undefined: not set, 1)
   * and the interest owed, in the quote coin.
   */
  readonly margin?:
    { readonly leverage: (coin: string) => Decimal | undefined; readonly interest: Decimal } | undefined;
  /** A protection's lock on new entries of the symbol (its sentence), when one is in force. */
  readonly entryLock?: string | undefined;
}

/** The price an intent is expected to trade at. */
export function tradePrice(i: OrderIntent, m: MarketSnapshot): Decimal {
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
    return (
      position.isNeg() &&
      aboveZero(px) &&
      aboveZero(i.quoteAmount) &&
      i.quoteAmount.lte(px.mul(position.neg()))
    );
  const delta = i.side === 'buy' ? i.quantity : i.quantity.neg();
  return !delta.isZero() && delta.isNeg() !== position.isNeg() && delta.abs().lte(position.abs());
}

/**
 * What every check may assume: the intent as the strategy emitted it, the context, the limits, and the
 * position it trades against. The gate judges in two phases whose types say what each may read: normalising
 * establishes, step by step, the instrument's rules, a market price and the intent rounded to the
 * instrument's precision, each as a new record (nothing is written into a record a check reads); judging
 * runs the checks, each reading only the record its `needs` names.
 */
export interface IntentFacts {
  readonly raw: OrderIntent;
  readonly ctx: RiskContext;
  readonly L: RiskLimits;
  readonly position: Decimal;
  readonly reducing: boolean;
}

/** Established by the `instrument` step: the symbol's rules are known. */
export interface InstrumentFacts extends IntentFacts {
  readonly rules: InstrumentRules;
}

/** Established by the `marketPrice` step: a market snapshot with a last price above zero. */
export interface MarketFacts extends InstrumentFacts {
  readonly market: MarketSnapshot;
}

/** Established by the `precision` step: the intent normalised to the instrument's precision, its size above zero. */
export interface OrderFacts extends MarketFacts {
  /** The normalised intent (what is sent). */
  readonly intent: OrderIntent;
  /** Its size on the wire: a quote amount for a market buy, a base quantity otherwise. */
  readonly size: Decimal;
  /** The price it is expected to trade at. */
  readonly price: Decimal;
  readonly notional: Decimal;
  /** Its base quantity; a market buy's is an estimate (a division), worked out on first read. */
  readonly baseQty: Decimal;
}

/** What a check needs established before it runs (see IntentFacts). */
export type RiskStage = 'intent' | 'instrument' | 'market' | 'order';

/** The facts of an order: the normalised intent's size, price and notional, its base quantity when read. */
export function orderFacts(f: MarketFacts, intent: OrderIntent, size: Decimal): OrderFacts {
  return new OrderFactsRecord(f, intent, size);
}

/**
 * OrderFacts as a class: a spread of the market facts with a getter in the literal made V8 (Node 20) build
 * each record in dictionary mode, ten times the cost of these fields; the getter lives on the prototype.
 */
class OrderFactsRecord implements OrderFacts {
  readonly raw: OrderIntent;
  readonly ctx: RiskContext;
  readonly L: RiskLimits;
  readonly position: Decimal;
  readonly reducing: boolean;
  readonly rules: InstrumentRules;
  readonly market: MarketSnapshot;
  readonly price: Decimal;
  readonly notional: Decimal;
  private estimated: Decimal | undefined = undefined;

  constructor(
    f: MarketFacts,
    readonly intent: OrderIntent,
    readonly size: Decimal,
  ) {
    this.raw = f.raw;
    this.ctx = f.ctx;
    this.L = f.L;
    this.position = f.position;
    this.reducing = f.reducing;
    this.rules = f.rules;
    this.market = f.market;
    this.price = tradePrice(intent, f.market);
    this.notional = 'quoteAmount' in intent ? intent.quoteAmount : intent.quantity.mul(this.price);
  }

  get baseQty(): Decimal {
    const i = this.intent;
    return 'quoteAmount' in i ? (this.estimated ??= i.quoteAmount.div(this.price)) : i.quantity;
  }
}
