// A backtest job of a sweep, as the runners see it: its outcome, the runner interface (worker threads here, or
// workers on a queue) and the identity of the dataset every job names (checked by a worker before it runs).
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { BacktestJob } from '../backtest/run-config.js';
import type { EquityCurvePoint, SymbolResult } from '../backtest/result.js';
import { rememberedSha256 } from '../data/candle-cache.js';
import type { SharedCandles } from '../data/shared-candles.js';
import type { Metrics } from './metrics.js';

/** What a worker answers for one job. */
export interface JobOutcome {
  readonly ok: boolean;
  readonly metrics?: Metrics | undefined;
  readonly error?: string | undefined;
  readonly tradeHash?: string | undefined;
  readonly equity?: EquityCurvePoint[] | undefined;
  readonly finalEquity?: string | undefined;
  readonly candles?: number | undefined;
  /** A run over several symbols: each one's figures in the account they share. */
  readonly bySymbol?: Readonly<Record<string, SymbolResult>> | undefined;
}

/** Runs backtest jobs of one dataset somewhere (worker threads here, or workers on a queue) in job order. */
export interface JobRunner {
  /** The dataset every job must name. */
  readonly dataset: string;
  /** The dataset in this process's shared memory, when the runner holds it. */
  readonly shared: SharedCandles | undefined;
  run(
    jobs: readonly BacktestJob[],
    onProgress?: (done: number, total: number) => void,
    /** Each outcome as it arrives, with its job's index (a checkpoint records it at once). */
    onOutcome?: (index: number, outcome: JobOutcome) => void,
  ): Promise<JobOutcome[]>;
  close(): Promise<void>;
}

/** A dataset as a job carries it: the reference the sweep used and, for a file, the SHA-256 of its bytes. */
export interface DatasetIdentity {
  readonly ref: string;
  readonly sha256?: string | undefined;
}

const isFile = (ref: string) => !/^(sp500-daily|synthetic-\w+:)/.test(ref);

/**
 * The identity of a dataset: bundled ones are their name (generated or shipped identically); files their hash
 * (memoised, so a queued sweep's checkpoint and its queue hash a file once).
 */
export async function datasetIdentity(ref: string): Promise<DatasetIdentity> {
  return isFile(ref) ? { ref, sha256: await rememberedSha256(ref) } : { ref };
}

/**
 * Where this worker finds the sweep's dataset: the same path, else a file of the same name in `dataDir`.
 * Throws the sentence the sweep shows when the file is missing or differs.
 */
export async function resolveDataset(id: DatasetIdentity, dataDir?: string): Promise<string> {
  if (id.sha256 === undefined) return id.ref;
  const candidates = [id.ref, ...(dataDir ? [join(dataDir, basename(id.ref))] : [])];
  const path = candidates.find((p) => existsSync(p));
  if (path === undefined)
    throw new Error(
      `worker has no dataset ${id.ref}${dataDir ? ` (nor ${candidates[1]})` : ''}: copy the file there, or start the worker with --data-dir pointing at a folder that holds it`,
    );
  const local = await rememberedSha256(path);
  if (local !== id.sha256)
    throw new Error(
      `worker refused the job: its ${path} is not the sweep's dataset (SHA-256 ${local.slice(0, 12)}… here, ${id.sha256.slice(0, 12)}… in the sweep); copy the sweep's file to this machine`,
    );
  return path;
}
