// The loss functions of `tradebot hyperopt`, as freqtrade names them (its HyperOptLoss classes), from the
// product's own metrics (metrics.ts): lower is better. A trial with fewer round trips than the minimum gets
// MAX_LOSS, as freqtrade's `hyperopt_min_trades` does, so the sampler learns to avoid it.
import type { Metrics } from './metrics.js';

export const LOSSES = ['sharpe', 'sortino', 'calmar', 'max-drawdown', 'profit'] as const;
export type LossName = (typeof LOSSES)[number];

/** freqtrade's class names, accepted for `--loss` too. */
export const FREQTRADE_LOSSES: Readonly<Record<string, LossName>> = {
  SharpeHyperOptLoss: 'sharpe',
  SortinoHyperOptLoss: 'sortino',
  CalmarHyperOptLoss: 'calmar',
  MaxDrawDownHyperOptLoss: 'max-drawdown',
  OnlyProfitHyperOptLoss: 'profit',
};

/** The loss of a failed run or of one under the minimum of trades (freqtrade's MAX_LOSS). */
export const MAX_LOSS = 100_000;

/**
 * The loss of one trial: -Sharpe, -Sortino, -Calmar; max-drawdown is -return / max drawdown (freqtrade's
 * MaxDrawDownHyperOptLoss: more profit per drawdown is better; -return when nothing was lost); profit is
 * -total return. A failed run or fewer than `minTrades` round trips: MAX_LOSS.
 */
export function lossOf(name: LossName, m: Metrics | undefined, minTrades = 1): number {
  if (m === undefined || m.trades < minTrades) return MAX_LOSS;
  const v = ((): number => {
    switch (name) {
      case 'sharpe':
        return -m.sharpe;
      case 'sortino':
        return -m.sortino;
      case 'calmar':
        return -m.calmar;
      case 'max-drawdown':
        return m.maxDrawdown > 0 ? -m.totalReturn / m.maxDrawdown : -m.totalReturn;
      case 'profit':
        return -m.totalReturn;
    }
  })();
  return Number.isFinite(v) ? v : MAX_LOSS;
}
