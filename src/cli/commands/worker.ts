// `tradebot worker --queue redis://HOST:PORT`: takes sweep runs from the queue until stopped (SIGINT/SIGTERM
// finish the current run first). Run any number, on any machine that has the sweep's dataset.
import type { Command } from 'commander';
import { z } from 'zod';
import { QUEUE_NAME, startSweepWorker } from '../../research/sweep-queue.js';
import { watchSignals } from '../../daemon/signals.js';
import { numberFlag, parseFlags } from '../flags.js';

const Flags = z.strictObject({
  queue: z
    .string({ error: '--queue is required, e.g. --queue redis://127.0.0.1:6379' })
    .regex(/^redis:\/\/[^/:]+(:\d+)?(\/\d+)?$/, '--queue must look like redis://HOST:PORT'),
  dataDir: z.string().optional(),
  lockMs: numberFlag(
    z
      .number({ error: '--lock-ms must be a number of milliseconds' })
      .int('--lock-ms must be a whole number of milliseconds')
      .min(1000, '--lock-ms must be at least 1000'),
  ).default(30_000),
});

export function register(program: Command): void {
  program
    .command('worker')
    .description('Run sweep and walk-forward jobs from a Redis queue (BullMQ) until stopped')
    .requiredOption('--queue <url>', 'the Redis the sweep uses, e.g. redis://127.0.0.1:6379')
    .option('--data-dir <dir>', 'where to find a dataset whose path does not exist here (by its file name)')
    .option('--lock-ms <ms>', "how soon a dead worker's run goes back to the queue", '30000')
    .addHelpText(
      'after',
      '\nExample: tradebot worker --queue redis://10.0.0.5:6379 --data-dir /data\nExit codes: 0 stopped, 1 failed, 2 invalid input.',
    )
    .action(async (raw: Record<string, unknown>) => {
      const f = parseFlags(Flags, raw);
      const log = (line: string) => process.stdout.write(`${new Date().toISOString()} ${line}\n`);
      const w = await startSweepWorker({ url: f.queue, dataDir: f.dataDir, lockMs: f.lockMs, onEvent: log });
      log(`worker ready on ${f.queue}, queue ${QUEUE_NAME}`);
      await watchSignals(() => log('already stopping: the current run is finished first'));
      log('stopping after the current run');
      await w.close();
    });
}
