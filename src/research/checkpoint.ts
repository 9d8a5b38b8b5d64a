// The finished runs of a sweep, one JSON line each as they finish, so that a sweep stopped part way (Ctrl-C,
// a crash, a machine that went down) resumes where it stopped: a run is taken from the file only when
// everything it depends on is the same: the job (parameters, costs, risk, range), the dataset's bytes, the
// strategy's source files and the tradebot version. Anything else runs again.
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { TRADEBOT_VERSION } from '../api/version.js';
import { resolveStrategyFile } from '../strategy/loader.js';
import type { BacktestJob } from '../backtest/run-config.js';
import type { JobOutcome } from './job.js';
import { datasetIdentity } from './job.js';

/** JSON with object keys in order, so equal jobs give equal text. */
function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (v !== null && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stableJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

/** SHA-256 of a strategy's source: its file, or every file of its folder when it is `NAME/index.ts`. */
function strategySourceHash(job: BacktestJob): string {
  const file = resolveStrategyFile(job.strategy, job.strategyLookup);
  const h = createHash('sha256');
  const folder = /^index\.[cm]?[jt]s$/.test(basename(file)) ? dirname(file) : undefined;
  const files =
    folder === undefined
      ? [file]
      : readdirSync(folder, { recursive: true, encoding: 'utf8' })
          .map((f) => join(folder, f))
          .filter((f) => statSync(f).isFile())
          .sort();
  for (const f of files) h.update(f).update('\0').update(readFileSync(f)).update('\0');
  return h.digest('hex');
}

interface Line {
  readonly key: string;
  readonly outcome: JobOutcome;
}

// A metric may be Infinity (the profit factor of a run without a loss): JSON would write it as null, and a
// resumed sweep would then differ from the run it resumes. Written as {"$number":"Infinity"}, read back.
const keepNonFinite = (_k: string, v: unknown): unknown =>
  typeof v === 'number' && !Number.isFinite(v) ? { $number: String(v) } : v;
const reviveNonFinite = (_k: string, v: unknown): unknown =>
  typeof v === 'object' && v !== null && typeof (v as { $number?: unknown }).$number === 'string'
    ? Number((v as { $number: string }).$number)
    : v;

export class SweepCheckpoint {
  private readonly done = new Map<string, JobOutcome>();

  private constructor(
    readonly path: string,
    private readonly identity: string,
  ) {
    if (!existsSync(path)) return;
    for (const text of readFileSync(path, 'utf8').split('\n')) {
      if (text.trim() === '') continue;
      let line: Line;
      try {
        line = JSON.parse(text, reviveNonFinite) as Line;
      } catch {
        continue; // the last line of a run killed while writing it
      }
      if (typeof line?.key === 'string' && line.outcome !== undefined) this.done.set(line.key, line.outcome);
    }
  }

  /** The checkpoint at `path` for jobs of `base` (its dataset and strategy fix what a finished run means). */
  static async open(path: string, base: BacktestJob): Promise<SweepCheckpoint> {
    const identity = stableJson({
      version: TRADEBOT_VERSION,
      // Over several symbols, every dataset's bytes (one dataset: as before, so its checkpoints still resume).
      dataset:
        base.datasets === undefined
          ? await datasetIdentity(base.dataset)
          : await Promise.all(base.datasets.map((d) => datasetIdentity(d))),
      strategy: strategySourceHash(base),
    });
    return new SweepCheckpoint(path, identity);
  }

  private keyOf(job: BacktestJob): string {
    return createHash('sha256').update(this.identity).update('\0').update(stableJson(job)).digest('hex');
  }

  /** The outcome of `job` from an earlier attempt, if it finished there. */
  get(job: BacktestJob): JobOutcome | undefined {
    return this.done.get(this.keyOf(job));
  }

  /** Records a finished run (appended at once: a kill loses at most the run being written). */
  add(job: BacktestJob, outcome: JobOutcome): void {
    const key = this.keyOf(job);
    this.done.set(key, outcome);
    appendFileSync(this.path, `${JSON.stringify({ key, outcome } satisfies Line, keepNonFinite)}\n`);
  }

  /** The sweep finished and its results are written: the checkpoint is no longer needed. */
  remove(): void {
    rmSync(this.path, { force: true });
  }
}
