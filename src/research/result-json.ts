// result.json of a backtest: the engine's result with its metrics, every money figure a decimal string.
import type { BacktestResult } from '../backtest/result.js';
import { Decimal } from '../market/decimal.js';
import type { Metrics } from './metrics.js';
import { MAX_STORED_EQUITY_POINTS, thinEquity } from '../backtest/equity-curve.js';

/**
 * result.json: every money figure as a decimal string. `equity` is the equity at every candle's close, rounded
 * to `quoteDp` places of the quote coin (exact for any balance below 10^13: a float carries 15 significant
 * digits); past MAX_STORED_EQUITY_POINTS points it is thinned (each bucket's lowest and highest, the first and
 * the last), and `equityPoints` says so: the metrics always come from every close.
 */
export function resultJson(r: BacktestResult, metrics: Metrics, quoteDp: number): unknown {
  const thin = thinEquity(r.equity, MAX_STORED_EQUITY_POINTS);
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
    equityPoints: {
      closes: r.equity.length,
      stored: thin.points.length,
      rule:
        thin.points.length === r.equity.length
          ? 'every candle close'
          : "thinned: the first and last close and each bucket's lowest and highest; metrics from every close",
    },
    equity: thin.points.map((p) => ({
      ts: p.ts,
      equity: new Decimal(p.equity).toDecimalPlaces(quoteDp).toFixed(),
    })),
  };
}
