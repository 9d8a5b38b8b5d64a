// The operator's control of one bot (dashboard or control API): pause and resume new entries, the kill
// switch by hand and its re-arming. Each action is journaled with who asked and why, and emitted, before
// it is applied. The pause and the halt are states of the trading state machine (PAUSED, HALTED): one place
// holds them, the journal keeps them, and the gate reads them from the state.
import type { Clock } from '../feeds/clock.js';
import type { TradingStateMachine } from '../risk/trading-state.js';
import type { ControlInput } from '../store/control.js';
import type { TraderJournal } from './journal.js';
import type { TraderEvents } from './trader-events.js';

export interface OperatorControlOptions {
  readonly bot: string;
  readonly clock: Clock;
  readonly journal: TraderJournal;
  readonly tradingState: TradingStateMachine;
  readonly events: TraderEvents;
}

export class OperatorControl {
  constructor(private readonly o: OperatorControlOptions) {}

  /** Whether the operator paused the bot: the gate denies new entries (PAUSED); exits still run. */
  get paused(): boolean {
    return this.o.tradingState.paused;
  }

  /** Pauses (true) or resumes (false) new entries; see the gate's `paused` check. */
  setPaused(paused: boolean, reason: string): void {
    this.o.tradingState.setPaused(paused, reason, this.o.clock.now());
  }

  /** The kill switch by hand: HALTED until `rearm` (a new day does not lift it). */
  halt(reason: string): void {
    this.o.tradingState.halt(reason, this.o.clock.now());
  }

  /** HALTED (or REDUCING) -> ACTIVE (or PAUSED, when paused), only ever by an explicit action. */
  rearm(reason: string): void {
    this.o.tradingState.rearm(reason, this.o.clock.now());
  }

  /** Journals an operator's action (who and why) and emits it, before the action is applied. */
  record(c: Omit<ControlInput, 'bot'>): void {
    const { o } = this;
    const now = o.clock.now();
    o.journal.recordControl?.({ ...c, bot: o.bot }, now);
    o.events.emit({ type: 'control', bot: o.bot, ts: now, control: c });
  }
}
