// The long/short split of a run's closed round trips (freqtrade's backtest summary shows it): how many trades of
// each side, their win rate, PnL after fees and fees. A SPOT run has longs only; a MARGIN run's sellShort opens
// shorts (docs/margin.md).
import { Decimal } from '../market/decimal.js';
import type { BacktestTrade } from '../backtest/result.js';

/** One side's closed trades. */
export interface SideFigures {
  readonly side: 'long' | 'short';
  readonly trades: number;
  readonly wins: number;
  /** PnL after fees, quote coin. */
  readonly pnl: Decimal;
  readonly fees: Decimal;
}

/** The closed trades split by side: long then short, each present even when it has no trade. */
export function sideSplit(trades: readonly BacktestTrade[]): [SideFigures, SideFigures] {
  const of = (side: 'long' | 'short'): SideFigures => {
    let n = 0;
    let wins = 0;
    let pnl = new Decimal(0);
    let fees = new Decimal(0);
    for (const t of trades) {
      if (t.side !== side) continue;
      n++;
      if (new Decimal(t.pnl).gt(0)) wins++;
      pnl = pnl.plus(t.pnl);
      fees = fees.plus(t.fees);
    }
    return { side, trades: n, wins, pnl, fees };
  };
  return [of('long'), of('short')];
}

/** Whether a run's split says anything a single "trades" line does not: it has a short (closed or open). */
export const hasShorts = (trades: readonly BacktestTrade[], open: readonly { size: string }[]): boolean =>
  trades.some((t) => t.side === 'short') || open.some((p) => new Decimal(p.size).lt(0));
