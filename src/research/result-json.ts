// result.json of a backtest: the engine's result with its metrics, every money figure a decimal string.
import type { BacktestResult } from '../backtest/result.js';
import { Decimal } from '../market/decimal.js';
import type { Metrics } from './metrics.js';

/**
 * result.json: every money figure as a decimal string. The equity samples are rounded to `quoteDp`
 * places of the quote coin (exact for any balance below 10^13: a float carries 15 significant digits).
 */
export function resultJson(r: BacktestResult, metrics: Metrics, quoteDp: number): unknown {
  return {
    meta: r.meta,
    finalEquity: r.finalEquity,
    fees: r.fees,
    metrics,
    inMarket: r.inMarket,
    warmUp: r.warmUp,
    // Every intent the gate judged, with its decision: what `tradebot compare` checks a paper run against.
    intents: r.intents,
    denials: r.denials,
    firstDenials: r.firstDenials,
    bySymbol: r.bySymbol,
    openPositions: r.openPositions,
    trades: r.trades,
    fills: r.fills,
    // The strategy's ctx.plot series: per symbol and name, arrays of times and of decimal strings.
    ...(r.plots === undefined ? {} : { plots: r.plots }),
    equity: r.equity.map((p) => ({
      ts: p.ts,
      equity: new Decimal(p.equity).toDecimalPlaces(quoteDp).toFixed(),
    })),
  };
}
