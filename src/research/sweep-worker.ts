// A sweep worker thread: runs the backtest jobs it is sent and answers their metrics. A job may carry the
// dataset in shared memory (loaded once by the pool); otherwise the worker opens the dataset itself.
import { parentPort } from 'node:worker_threads';
import { type BacktestJob } from '../backtest/run-config.js';
import { runJob } from './run-job.js';
import { MAX_CHART_EQUITY_POINTS, thinEquity } from '../backtest/equity-curve.js';
import { sharedCandleSource, type SharedCandles } from '../data/shared-candles.js';

parentPort?.on('message', (msg: { id: number; job: BacktestJob; shared?: SharedCandles }) => {
  // A job over several symbols reads its datasets itself: the shared memory holds one.
  const shared = msg.job.datasets === undefined ? msg.shared : undefined;
  runJob({ ...msg.job, chart: false }, undefined, shared ? sharedCandleSource(shared) : undefined)
    .then(({ result, metrics }) =>
      parentPort?.postMessage({
        id: msg.id,
        ok: true,
        metrics,
        tradeHash: result.meta.tradeHash,
        finalEquity: result.finalEquity,
        candles: result.meta.candles,
        ...(msg.job.datasets !== undefined ? { bySymbol: result.bySymbol } : {}),
        // For a chart: a point per candle would be copied to the pool for nothing.
        equity: thinEquity(result.equity, MAX_CHART_EQUITY_POINTS).points,
        from: result.meta.from,
        to: result.meta.to,
      }),
    )
    .catch((e: unknown) =>
      parentPort?.postMessage({ id: msg.id, ok: false, error: e instanceof Error ? e.message : String(e) }),
    );
});
