// Sweeps across machines on BullMQ (Redis): the sweep enqueues one job per run; `tradebot worker` processes,
// on any machine, run each job on a local SweepPool (the same worker-thread code as a local sweep) and return
// its outcome. The dataset travels as a reference plus its content hash: a worker whose file differs refuses
// the job with a sentence instead of computing results on other candles. A worker killed mid-job loses its
// lock; BullMQ's stalled-job check puts the job back in the queue for another worker, and each run's outcome is
// taken from the one completion BullMQ accepts, so no run is counted twice.
import { randomUUID } from 'node:crypto';
import { Queue, QueueEvents, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { BacktestJob } from '../backtest/run-config.js';
import { SweepPool } from './sweep.js';
import {
  datasetIdentity,
  resolveDataset,
  type DatasetIdentity,
  type JobOutcome,
  type JobRunner,
} from './job.js';

export const QUEUE_NAME = 'tradebot-sweep';

interface QueueJobData {
  readonly sweepId: string;
  readonly index: number;
  readonly job: BacktestJob;
  readonly dataset: DatasetIdentity;
  /** Each dataset of a job over several symbols (the first is `dataset`). */
  readonly datasets?: readonly DatasetIdentity[] | undefined;
}

/** `redis://HOST:PORT` (optionally `/DB`) as an ioredis connection for BullMQ; refuses anything else. */
export function parseQueueUrl(url: string): {
  host: string;
  port: number;
  db: number;
  maxRetriesPerRequest: null;
} {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`--queue ${url}: write redis://HOST:PORT, e.g. redis://127.0.0.1:6379`);
  }
  if (u.protocol !== 'redis:' || u.hostname === '')
    throw new Error(`--queue ${url}: write redis://HOST:PORT, e.g. redis://127.0.0.1:6379`);
  const db = u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0;
  if (!Number.isInteger(db) || db < 0)
    throw new Error(`--queue ${url}: the database after the / is a number`);
  // BullMQ's blocking commands need ioredis to retry forever rather than fail a request.
  return { host: u.hostname, port: u.port === '' ? 6379 : Number(u.port), db, maxRetriesPerRequest: null };
}

/** Closes BullMQ connections, or cuts them after `ms` (a close waits on a Redis that never answered). */
async function closeWithin(
  ms: number,
  ...xs: { close(): Promise<void>; disconnect(): Promise<void> }[]
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const closed = await Promise.race([
    Promise.allSettled(xs.map((x) => x.close())).then(() => true),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
  ]);
  clearTimeout(timer);
  // disconnect() too can wait on a connection that is still being retried: it is asked, not awaited.
  if (!closed) for (const x of xs) x.disconnect().catch(() => undefined);
}

/** Runs jobs on the queue: the sweep side. Same interface as a SweepPool, so sweeps and walk-forward use either. */
export class QueueRunner implements JobRunner {
  readonly shared = undefined;
  private constructor(
    readonly dataset: string,
    private readonly identity: DatasetIdentity,
    private readonly queue: Queue,
    private readonly events: QueueEvents,
    private readonly identities: readonly DatasetIdentity[] | undefined,
  ) {}

  static async open(o: {
    url: string;
    dataset: string;
    /** The datasets of jobs over several symbols: each is named, with its hash, in every job. */
    datasets?: readonly string[] | undefined;
  }): Promise<QueueRunner> {
    const connection = parseQueueUrl(o.url);
    const identity = await datasetIdentity(o.dataset);
    const identities =
      o.datasets === undefined ? undefined : await Promise.all(o.datasets.map((d) => datasetIdentity(d)));
    const queue = new Queue(QUEUE_NAME, { connection });
    const events = new QueueEvents(QUEUE_NAME, { connection });
    // ioredis reconnects forever; its errors are reported here, and an unreachable Redis ends in a sentence.
    let lastError = '';
    queue.on('error', (e) => (lastError = e.message));
    events.on('error', (e) => (lastError = e.message));
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        Promise.all([queue.waitUntilReady(), events.waitUntilReady()]),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(lastError || 'no answer within 10 s')), 10_000);
        }),
      ]);
    } catch (e) {
      // A queue that never connected may never finish closing (ioredis keeps reconnecting): disconnect instead.
      await closeWithin(2_000, queue, events);
      throw new Error(
        `no Redis at ${o.url} (${e instanceof Error ? e.message : String(e)}); start one or fix --queue`,
      );
    } finally {
      clearTimeout(timer);
    }
    return new QueueRunner(o.dataset, identity, queue, events, identities);
  }

  async run(
    jobs: readonly BacktestJob[],
    onProgress?: (done: number, total: number) => void,
    onOutcome?: (index: number, outcome: JobOutcome) => void,
  ): Promise<JobOutcome[]> {
    const other = jobs.find((j) => j.dataset !== this.dataset);
    if (other) throw new Error(`QueueRunner.run: this runner is for ${this.dataset}, not ${other.dataset}`);
    const sweepId = randomUUID();
    // The job id makes an enqueue idempotent; attempts let a job whose worker died be run again elsewhere.
    const added = await this.queue.addBulk(
      jobs.map((job, index) => ({
        name: 'backtest',
        data: {
          sweepId,
          index,
          job: { ...job, chart: false },
          dataset: this.identity,
          ...(this.identities !== undefined ? { datasets: this.identities } : {}),
        } satisfies QueueJobData,
        opts: { jobId: `${sweepId}-${index}`, attempts: 3, removeOnComplete: false, removeOnFail: false },
      })),
    );
    let done = 0;
    try {
      return await Promise.all(
        added.map(async (j, index) => {
          let out: JobOutcome;
          try {
            out = (await j.waitUntilFinished(this.events)) as JobOutcome;
          } catch (e) {
            throw new Error(e instanceof Error ? e.message : String(e));
          }
          onOutcome?.(index, out);
          onProgress?.(++done, jobs.length);
          return out;
        }),
      );
    } finally {
      await Promise.allSettled(added.map((j) => j.remove()));
    }
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.events.close(), this.queue.close()]);
  }
}

/** A running `tradebot worker`: takes jobs until closed. */
export interface SweepWorker {
  close(): Promise<void>;
}

/**
 * Starts a queue worker: one job at a time on a local SweepPool of `threads` (kept open while jobs name the
 * same dataset). `lockMs` is how long a job stays claimed without a heartbeat: a killed worker's job is
 * back in the queue about that long after it died. The backtest runs in a worker thread, so the heartbeat
 * is never starved by the run itself.
 */
export async function startSweepWorker(o: {
  url: string;
  dataDir?: string | undefined;
  lockMs?: number | undefined;
  onEvent?: ((line: string) => void) | undefined;
}): Promise<SweepWorker> {
  const connection = parseQueueUrl(o.url);
  let pool: { key: string; pool: SweepPool } | undefined;
  const lockDuration = o.lockMs ?? 30_000;
  const worker = new Worker<QueueJobData, JobOutcome>(
    QUEUE_NAME,
    async (job: Job<QueueJobData, JobOutcome>) => {
      o.onEvent?.(`started job ${job.id ?? ''} (attempt ${job.attemptsMade + 1})`);
      let path: string;
      let paths: string[] | undefined;
      try {
        path = await resolveDataset(job.data.dataset, o.dataDir);
        paths =
          job.data.datasets === undefined
            ? undefined
            : await Promise.all(job.data.datasets.map((d) => resolveDataset(d, o.dataDir)));
      } catch (e) {
        o.onEvent?.(`refused job ${job.id ?? ''}: ${(e as Error).message}`);
        throw new UnrecoverableError((e as Error).message);
      }
      const key = `${path}\0${JSON.stringify(job.data.datasets ?? job.data.dataset)}\0${JSON.stringify(job.data.job.instrument ?? {})}`;
      if (pool?.key !== key) {
        await pool?.pool.close();
        pool = {
          key,
          pool: await SweepPool.open({
            dataset: path,
            datasets: paths,
            workers: 1,
            instrument: job.data.job.instrument,
          }),
        };
      }
      const [out] = await pool.pool.run([{ ...job.data.job, dataset: path, datasets: paths }]);
      if (!out) throw new Error('the sweep pool answered nothing');
      o.onEvent?.(`finished job ${job.id ?? ''}`);
      return out;
    },
    { connection, concurrency: 1, lockDuration, stalledInterval: lockDuration, maxStalledCount: 2 },
  );
  worker.on('error', (e) => o.onEvent?.(`queue error: ${e.message}`));
  await worker.waitUntilReady();
  return {
    async close() {
      await worker.close();
      await pool?.pool.close();
    },
  };
}
