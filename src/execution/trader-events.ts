// What the trading pipeline tells its subscribers (logs, metrics, journal views, backtest results,
// dashboards, the strategy's `orders$`): typed events through one bus that every step emits on.
import { Observable } from 'rxjs';
import type { Decimal } from '../market/decimal.js';
import type { Liquidity } from '../portfolio/fees.js';
import type { DenialCode } from '../risk/gate.js';
import type { TradingState } from '../risk/trading-state.js';
import type { ControlInput } from '../store/control.js';
import type { StoredFill } from '../store/fills.js';
import type { OrderFeedback } from '../strategy/contract.js';
import type { ExitReason } from '../strategy/exits.js';
import type { OrderIntent } from '../strategy/intent.js';
import type { OrderOutcome } from './executor.js';
import type { ProtectionLock } from './protections.js';
import type { VenueOrder } from './venue.js';

/** A fill as the pipeline booked it: the journaled fill, its liquidity, and the intent's tag. */
export interface TraderFill extends Omit<StoredFill, 'orderId' | 'clientOid'> {
  readonly orderId: string | undefined;
  readonly clientOid: string | undefined;
  readonly liquidity: Liquidity;
  /** price x size, in the quote coin (worked out once per fill: the fee, the portfolio and results use it). */
  readonly notional: Decimal;
  /** True when the venue did not say maker or taker and the pipeline inferred it (see `liquidityOf`). */
  readonly liquidityInferred: boolean;
  readonly tag: string;
  /** Set when the order was one of the pipeline's exits (its tag is the reason). */
  readonly exitReason?: ExitReason | undefined;
  /**
   * The venue's fills could not be read (`fills: estimated`): the fill was made up from the market
   * order's acknowledgement at the touch (see `FillBooking.bookEstimated`); its execId starts with `est:`.
   */
  readonly estimated?: boolean | undefined;
}

/** What the pipeline tells its subscribers (logs, metrics, journal views, backtest results, dashboards). */
export type TraderEvent =
  | {
      readonly type: 'intent';
      readonly bot: string;
      readonly ts: number;
      readonly intent: OrderIntent;
      /** When the data the strategy decided on was complete (a candle's close). */
      readonly signalTime: number;
    }
  | {
      readonly type: 'denied';
      readonly bot: string;
      readonly ts: number;
      readonly intent: OrderIntent;
      readonly code: DenialCode;
      readonly message: string;
      /** When the data the strategy decided on was complete (a candle's close; 0: none), as on the intent. */
      readonly signalTime?: number | undefined;
      /** EXIT_BLOCKED: the clientOid of the bot's own resting order that holds the position. */
      readonly blockedBy?: string | undefined;
    }
  | {
      readonly type: 'order';
      readonly bot: string;
      readonly ts: number;
      readonly intent: OrderIntent;
      readonly order: VenueOrder;
      readonly outcome: OrderOutcome;
      /** From the signal's time to the venue's answer, on the pipeline's clock. */
      readonly signalToAnswerMs: number;
    }
  | { readonly type: 'fill'; readonly bot: string; readonly ts: number; readonly fill: TraderFill }
  | {
      readonly type: 'trading-state';
      readonly bot: string;
      readonly ts: number;
      readonly from: TradingState;
      readonly to: TradingState;
      readonly reason: string;
    }
  | { readonly type: 'equity'; readonly bot: string; readonly ts: number; readonly equity: Decimal }
  | {
      readonly type: 'protection';
      readonly bot: string;
      readonly ts: number;
      readonly lock: ProtectionLock;
    }
  | {
      readonly type: 'control';
      readonly bot: string;
      readonly ts: number;
      /** What the operator asked for, who asked and why (journaled before it was applied). */
      readonly control: Omit<ControlInput, 'bot'>;
    };

export type TraderListener = (e: TraderEvent) => void;

/** The pipeline's subscribers: every step emits on the one bus of its Trader. */
export class TraderEvents {
  private readonly listeners: TraderListener[] = [];

  /** Subscribes to the pipeline's events (`first`: before every listener so far); answers the unsubscribe function. */
  subscribe(listener: TraderListener, o: { first?: boolean } = {}): () => void {
    // `first`: a tally every other subscriber may read while it handles the event (the live bot's counts,
    // which a log line's redraw of the status block shows) sees the event before them.
    if (o.first === true) this.listeners.unshift(listener);
    else this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  emit(e: TraderEvent): void {
    const ls = this.listeners;
    for (let i = 0; i < ls.length; i++) (ls[i] as TraderListener)(e);
  }

  /**
   * What became of the bot's intents, as the strategy sees them (the `orders$` input of its run):
   * denials, placements, refusals and fills, delivered as the pipeline emits them.
   */
  feedback$(): Observable<OrderFeedback> {
    return new Observable<OrderFeedback>((sub) =>
      this.subscribe((e) => {
        const f = feedbackOf(e);
        if (f !== undefined) sub.next(f);
      }),
    );
  }
}

/** An event as the strategy's feedback, undefined for the events it does not see. */
function feedbackOf(e: TraderEvent): OrderFeedback | undefined {
  switch (e.type) {
    case 'denied':
      return { type: 'denied', ts: e.ts, intent: e.intent, code: e.code, message: e.message };
    case 'order':
      if (e.outcome.status === 'acked')
        return {
          type: 'placed',
          ts: e.ts,
          intent: e.intent,
          clientOid: e.outcome.clientOid,
          orderId: e.outcome.orderId,
        };
      if (e.outcome.status === 'rejected')
        return {
          type: 'refused',
          ts: e.ts,
          intent: e.intent,
          clientOid: e.outcome.clientOid,
          code: e.outcome.code,
          message: e.outcome.message,
        };
      return undefined;
    case 'fill': {
      const f = e.fill;
      return {
        type: 'fill',
        ts: e.ts,
        fill: {
          symbol: f.symbol,
          side: f.side,
          price: f.price,
          size: f.size,
          fee: f.fee,
          tag: f.tag,
          clientOid: f.clientOid,
          exitReason: f.exitReason,
          ts: f.ts,
        },
      };
    }
    default:
      return undefined;
  }
}
