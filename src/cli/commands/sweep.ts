// `tradebot sweep`: a parameter grid on all cores, or a walk-forward analysis.
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { z } from 'zod';
import { SORT_KEYS, formatSweep, parseGrid, runSweep, type SortKey } from '../../backtest/sweep.js';
import { QueueRunner } from '../../backtest/sweep-queue.js';
import { walkForward } from '../../backtest/walk-forward.js';
import { BacktestConfigSchema, loadYaml } from '../../config/index.js';
import { jobFromConfig } from '../../backtest/run-config.js';
import { parseFlags } from '../flags.js';

const duration = (flag: string) =>
  z
    .string()
    .regex(/^\d+[dhm]$/, `${flag} must be a length such as 90d, 12h or 30m`)
    .transform(
      (s) =>
        Number(s.slice(0, -1)) * { d: 86_400_000, h: 3_600_000, m: 60_000 }[s.slice(-1) as 'd' | 'h' | 'm'],
    );

const Flags = z.strictObject({
  config: z.string({ error: '--config is required (a backtest file such as config/backtest.yaml)' }),
  grid: z.string({ error: '--grid is required, e.g. --grid "fast=5,10,20 slow=50,100"' }),
  sort: z
    .enum(SORT_KEYS as [SortKey, ...SortKey[]], { error: `--sort must be one of ${SORT_KEYS.join(', ')}` })
    .default('sharpe'),
  workers: z.coerce.number().int().min(1).default(availableParallelism()),
  walkForward: z.boolean().default(false),
  inSample: duration('--in-sample').optional(),
  outOfSample: duration('--out-of-sample').optional(),
  out: z.string().default('backtest/results'),
  queue: z
    .string()
    .regex(/^redis:\/\/[^/:]+(:\d+)?(\/\d+)?$/, '--queue must look like redis://HOST:PORT')
    .optional(),
});

export function register(program: Command): void {
  program
    .command('sweep')
    .description('Run a grid of strategy parameters on all cores, or a walk-forward analysis')
    .requiredOption('-c, --config <file>', 'backtest definition (dataset, strategy, fees, risk)')
    .requiredOption('--grid <spec>', 'parameter grid, e.g. "fast=5,10,20 slow=50,100"')
    .option('--sort <metric>', `metric to sort by (${SORT_KEYS.join(', ')})`, 'sharpe')
    .option('--workers <n>', 'worker threads (default: all cores)')
    .option('--walk-forward', 'rolling in-sample optimisation and out-of-sample evaluation', false)
    .option('--in-sample <length>', 'walk-forward in-sample length, e.g. 365d')
    .option('--out-of-sample <length>', 'walk-forward out-of-sample length, e.g. 90d')
    .option('--out <dir>', 'results folder', 'backtest/results')
    .option(
      '--queue <url>',
      'run on `tradebot worker` processes through Redis (BullMQ), e.g. redis://127.0.0.1:6379',
    )
    .addHelpText(
      'after',
      '\nExample: tradebot sweep -c config/backtest.yaml --grid "fast=10,20,50 slow=100,200" --sort sharpe\nExit codes: 0 done, 1 failed, 2 invalid input.',
    )
    .action(async (raw: Record<string, unknown>) => {
      const f = parseFlags(Flags, raw);
      const { config } = loadYaml(BacktestConfigSchema, f.config);
      const grid = parseGrid(f.grid);
      const base = jobFromConfig(config);
      const bar = process.stderr.isTTY
        ? new cliProgress.SingleBar(
            { format: '{task} {bar} {value}/{total}', stream: process.stderr },
            cliProgress.Presets.shades_classic,
          )
        : undefined;
      const dir = join(f.out, `${config.name}-${f.walkForward ? 'walk-forward' : 'sweep'}`);
      mkdirSync(dir, { recursive: true });
      const t0 = Date.now();
      // On a queue the runs go to `tradebot worker` processes; the table and files are the same as local.
      const runner = f.queue ? await QueueRunner.open({ url: f.queue, dataset: base.dataset }) : undefined;
      try {
        if (f.walkForward) {
          if (f.inSample === undefined || f.outOfSample === undefined)
            throw new Error(
              '--walk-forward needs --in-sample and --out-of-sample, e.g. --in-sample 730d --out-of-sample 180d',
            );
          bar?.start(1, 0, { task: 'walk-forward windows' });
          const wf = await walkForward({
            base,
            grid,
            inSampleMs: f.inSample,
            outOfSampleMs: f.outOfSample,
            sortBy: f.sort,
            workers: f.workers,
            onStep: (d, t) => (bar?.setTotal(t), bar?.update(d)),
            runner,
          });
          bar?.stop();
          writeFileSync(join(dir, 'walk-forward.json'), JSON.stringify(wf, null, 1));
          for (const s of wf.steps) {
            process.stdout.write(
              `${new Date(s.window.outOfSample.from).toISOString().slice(0, 10)}..${new Date(s.window.outOfSample.to).toISOString().slice(0, 10)}  best ${JSON.stringify(s.best)}  out-of-sample return ${(s.outOfSample.totalReturn * 100).toFixed(2)}%\n`,
            );
          }
          process.stdout.write(
            `stitched out-of-sample: return ${(wf.metrics.totalReturn * 100).toFixed(2)}%, Sharpe ${wf.metrics.sharpe.toFixed(2)}, max drawdown ${(wf.metrics.maxDrawdown * 100).toFixed(2)}%\nwrote ${join(dir, 'walk-forward.json')}\n`,
          );
          return;
        }
        bar?.start(1, 0, { task: 'parameter sets' });
        const rows = await runSweep({
          base,
          grid,
          sortBy: f.sort,
          workers: f.workers,
          onProgress: (d, t) => {
            bar?.setTotal(t);
            bar?.update(d);
            // Without a terminal, a queued sweep still shows progress: workers may be far away and slow.
            if (!bar && runner) process.stderr.write(`${d}/${t} runs done\n`);
          },
          pool: runner,
        });
        bar?.stop();
        writeFileSync(join(dir, 'sweep.json'), JSON.stringify(rows, null, 1));
        process.stdout.write(
          `${formatSweep(rows, f.sort)}\n${rows.length} runs on ${runner ? `the queue ${f.queue}` : `${f.workers} workers`} in ${((Date.now() - t0) / 1000).toFixed(1)} s; wrote ${join(dir, 'sweep.json')}\n`,
        );
      } finally {
        await runner?.close();
      }
    });
}
