// The trading state of a bot, explicit and journaled: ACTIVE trades freely, PAUSED takes no new entry (the
// operator's pause, until resumed), REDUCING only reduces positions, HALTED places nothing (the kill switch).
// Driven by a daily loss limit on equity and by hand. The state shown is the strictest that holds: a halt
// over a pause reads HALTED (with `paused` still true: re-armed, the bot is PAUSED until resumed), a pause
// over losses reads PAUSED (resumed, the bot is REDUCING until the day ends).
import type { Decimal } from '../market/decimal.js';

import type { TradingState } from '../market/trading-state.js';

export type { TradingState };

export interface TradingStateChange {
  readonly from: TradingState;
  readonly to: TradingState;
  readonly reason: string;
  readonly ts: number;
  /** Whether the operator's pause holds after the change (a pause under a halt changes no state). */
  readonly paused: boolean;
}

const utcDay = (ms: number): number => Math.floor(ms / 86_400_000);

/** What the losses and the kill switch allow, before the operator's pause. */
type RiskState = Exclude<TradingState, 'PAUSED'>;

/** Tracks day-start equity and moves between the states; pure apart from its own fields. */
export class TradingStateMachine {
  private risk: RiskState;
  private manualHalt = false;
  private pausedByOperator: boolean;
  private day = Number.NaN;
  private dayStart: Decimal | undefined;
  private readonly listeners: ((c: TradingStateChange) => void)[] = [];

  constructor(
    private readonly limits: { readonly dailyLossLimit?: Decimal | undefined; readonly reduceAt: number },
    initial: TradingState = 'ACTIVE',
    /** The operator's pause, restored (a pause under a halt is journaled as paused with the state HALTED). */
    paused = initial === 'PAUSED',
  ) {
    this.risk = initial === 'HALTED' ? 'HALTED' : 'ACTIVE';
    this.pausedByOperator = paused;
    // A bot restarted while halted stays halted until someone re-arms it.
    this.manualHalt = initial === 'HALTED';
  }

  get state(): TradingState {
    if (this.risk === 'HALTED') return 'HALTED';
    return this.pausedByOperator ? 'PAUSED' : this.risk;
  }

  /** Whether the operator paused the bot (also under a halt, which the pause outlives). */
  get paused(): boolean {
    return this.pausedByOperator;
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
      if (!this.manualHalt && this.risk !== 'ACTIVE')
        this.change(() => (this.risk = 'ACTIVE'), 'a new trading day resets the daily loss limit', now);
    }
    const limit = this.limits.dailyLossLimit;
    if (limit === undefined || this.manualHalt) return this.state;
    const loss = this.dayStart.minus(equity);
    if (loss.gte(limit)) {
      if (this.risk !== 'HALTED')
        this.change(
          () => (this.risk = 'HALTED'),
          `daily loss ${loss.toFixed()} reached the limit ${limit.toFixed()}`,
          now,
        );
    } else if (loss.gte(limit.mul(this.limits.reduceAt))) {
      if (this.risk === 'ACTIVE')
        this.change(
          () => (this.risk = 'REDUCING'),
          `daily loss ${loss.toFixed()} passed ${this.limits.reduceAt * 100}% of the limit`,
          now,
        );
    }
    return this.state;
  }

  /** The kill switch. */
  halt(reason: string, now: number): void {
    this.manualHalt = true;
    if (this.risk !== 'HALTED') this.change(() => (this.risk = 'HALTED'), reason, now);
  }

  /** Lifts a halt or REDUCING (only ever by an explicit action); an operator's pause stays until resumed. */
  rearm(reason: string, now: number): void {
    this.manualHalt = false;
    if (this.risk !== 'ACTIVE') this.change(() => (this.risk = 'ACTIVE'), reason, now);
  }

  /** The operator's pause (true) or resume (false): no new entry while paused; exits still run. */
  setPaused(paused: boolean, reason: string, now: number): void {
    if (paused !== this.pausedByOperator) this.change(() => (this.pausedByOperator = paused), reason, now);
  }

  /** Applies `apply` and tells the listeners, also when the state shown stays (a pause under a halt). */
  private change(apply: () => void, reason: string, ts: number): void {
    const from = this.state;
    apply();
    const c = { from, to: this.state, reason, ts, paused: this.pausedByOperator };
    for (const l of this.listeners) l(c);
  }
}
