// The trading state of a bot (DESIGN principle 3), declared at the bottom because the risk layer decides it
// and the journal stores it: ACTIVE trades freely, PAUSED takes no new entry (the operator's pause; exits
// run), REDUCING only reduces positions (losses), HALTED places nothing.
export type TradingState = 'ACTIVE' | 'PAUSED' | 'REDUCING' | 'HALTED';

/** Every trading state (the metrics' `state` labels, the journal's allowed values). */
export const TRADING_STATES: readonly TradingState[] = ['ACTIVE', 'PAUSED', 'REDUCING', 'HALTED'];

/**
 * A bot's state in one word, as the terminal and `tradebot status` show it: the trading state, with a pause
 * the state does not show (a halt shows over it: HALTED+PAUSED, PAUSED again once re-armed).
 */
export function stateWord(tradingState: string, paused: boolean, degraded = false): string {
  // ACTIVE with a pause is a journal written before PAUSED was a state: it reads PAUSED all the same.
  const word = !paused
    ? tradingState
    : tradingState === 'PAUSED' || tradingState === 'ACTIVE'
      ? 'PAUSED'
      : `${tradingState}+PAUSED`;
  return degraded ? `${word}+DEGRADED` : word;
}
