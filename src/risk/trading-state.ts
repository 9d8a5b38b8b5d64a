// The trading state of a bot, explicit and journaled: ACTIVE trades freely, REDUCING only reduces
// positions, HALTED places nothing (the kill switch). Driven by a daily loss limit on equity and by hand.
import type { Decimal } from '../market/decimal.js';

import type { TradingState } from '../market/trading-state.js';

export type { TradingState };

export interface TradingStateChange {
  readonly from: TradingState;
  readonly to: TradingState;
  readonly reason: string;
  readonly ts: number;
}

const utcDay = (ms: number): number => Math.floor(ms / 86_400_000);

/** Tracks day-start equity and moves between the states; pure apart from its own fields. */
export class TradingStateMachine {
  private current: TradingState;
  private manualHalt = false;
  private day = Number.NaN;
  private dayStart: Decimal | undefined;
  private readonly listeners: ((c: TradingStateChange) => void)[] = [];

  constructor(
    private readonly limits: { readonly dailyLossLimit?: Decimal | undefined; readonly reduceAt: number },
    initial: TradingState = 'ACTIVE',
  ) {
    this.current = initial;
    // A bot restarted while halted stays halted until someone resumes it.
    this.manualHalt = initial === 'HALTED';
  }

  get state(): TradingState {
    return this.current;
  }

  onChange(listener: (c: TradingStateChange) => void): void {
    this.listeners.push(listener);
  }

  /** Feeds the current equity; a new UTC day resets the loss budget (unless halted by hand). */
  update(equity: Decimal, now: number): TradingState {
    const day = utcDay(now);
    if (day !== this.day || this.dayStart === undefined) {
      this.day = day;
      this.dayStart = equity;
      if (!this.manualHalt && this.current !== 'ACTIVE')
        this.set('ACTIVE', 'a new trading day resets the daily loss limit', now);
    }
    const limit = this.limits.dailyLossLimit;
    if (limit === undefined || this.manualHalt) return this.current;
    const loss = this.dayStart.minus(equity);
    if (loss.gte(limit)) {
      if (this.current !== 'HALTED')
        this.set('HALTED', `daily loss ${loss.toFixed()} reached the limit ${limit.toFixed()}`, now);
    } else if (loss.gte(limit.mul(this.limits.reduceAt))) {
      if (this.current === 'ACTIVE')
        this.set(
          'REDUCING',
          `daily loss ${loss.toFixed()} passed ${this.limits.reduceAt * 100}% of the limit`,
          now,
        );
    }
    return this.current;
  }

  /** The kill switch. */
  halt(reason: string, now: number): void {
    this.manualHalt = true;
    if (this.current !== 'HALTED') this.set('HALTED', reason, now);
  }

  resume(reason: string, now: number): void {
    this.manualHalt = false;
    if (this.current !== 'ACTIVE') this.set('ACTIVE', reason, now);
  }

  private set(to: TradingState, reason: string, ts: number): void {
    const change = { from: this.current, to, reason, ts };
    this.current = to;
    for (const l of this.listeners) l(change);
  }
}
