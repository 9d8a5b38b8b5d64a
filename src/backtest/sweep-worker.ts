// A sweep worker thread: runs the backtest jobs it is sent and answers their metrics.
import { parentPort } from 'node:worker_threads';
import { runJob, type BacktestJob } from './run-config.js';

parentPort?.on('message', (msg: { id: number; job: BacktestJob }) => {
  runJob({ ...msg.job, chart: false })
    .then(({ result, metrics }) =>
      parentPort?.postMessage({ id: msg.id, ok: true, metrics, tradeHash: result.meta.tradeHash, candles: result.meta.candles, equity: result.equity, from: result.meta.from, to: result.meta.to }),
    )
    .catch((e: unknown) => parentPort?.postMessage({ id: msg.id, ok: false, error: e instanceof Error ? e.message : String(e) }));
});
