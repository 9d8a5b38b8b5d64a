// `tradebot lookahead --config <backtest.yaml>`: replays the backtest with its data cut off at many
// points and reports every signal (intent or exposed indicator) that changes when future candles are
// removed. Exit 0 clean, 1 lookahead found, 2 invalid input.
import { progressBar } from '../progress.js';
import type { Command } from 'commander';
import { z } from 'zod';
import { lookahead, type LookaheadFinding } from '../../research/lookahead.js';
import {
  backtestOptionsOf,
  jobDatasetName,
  jobFromConfig,
  openJobSources,
  hasCandlesIn,
} from '../../backtest/run-config.js';
import type { CandleSource } from '../../data/format.js';
import { BacktestConfigSchema, loadYaml, strategyLookupFor } from '../../config/index.js';
import { loadStrategy } from '../../strategy/loader.js';
import { counted } from '../../market/spelling.js';
import { EXIT_CODES_HELP } from '../exit-codes.js';
import { checkRange, dateFlag, noCandles, numberFlag, parseFlags } from '../flags.js';
import { asInput } from './data.js';

const Flags = z.strictObject({
  config: z.string({ error: '--config is required, e.g. --config config/backtest.yaml' }),
  strategy: z.string().optional(),
  cuts: numberFlag(
    z
      .number({ error: '--cuts must be a whole number' })
      .int('--cuts must be a whole number')
      .min(1, '--cuts must be at least 1')
      .max(10_000, '--cuts must be at most 10000'),
  ).default(20),
  from: dateFlag('--from'),
  to: dateFlag('--to'),
});

const when = (t: number) => new Date(t).toISOString().replace('.000Z', 'Z');
const show = (v: number | string | undefined) => (v === undefined ? '(none)' : String(v));

/** One line per finding: which signal, on which candle, its two values. */
export function formatFinding(f: LookaheadFinding): string {
  return `  ${f.name} on ${f.symbol} candle ${when(f.openTime)}: ${show(f.full)} with all the data, ${show(f.truncated)} with the data cut after ${when(f.cut)}`;
}

export function register(program: Command): void {
  program
    .command('lookahead')
    .description(
      "Replay a backtest with its data cut off at many points and report any signal (intent, or a value the strategy exposes with ctx.expose) that changes when future candles are removed (freqtrade's lookahead-analysis)",
    )
    .option('-c, --config <file>', 'backtest definition (e.g. config/backtest.yaml)')
    .option('--strategy <name>', 'strategy name or path (default: the one in the file)')
    .option('--cuts <n>', 'cut points spread over the data, as many more at candles with intents', '20')
    .option('--from <date>', 'first candle time, e.g. 2008-01-01 (UTC)')
    .option('--to <date>', 'last candle time (inclusive)')
    .addHelpText(
      'after',
      `\nExamples:\n  tradebot lookahead --config config/backtest.yaml\n  tradebot lookahead --config config/backtest.yaml --cuts 50\nExit codes: 0 no lookahead, 1 lookahead found, 2 invalid input.\n(${EXIT_CODES_HELP})`,
    )
    .action(async (raw: Record<string, unknown>) => {
      const f = parseFlags(Flags, raw);
      const cfg = loadYaml(BacktestConfigSchema, f.config).config;
      const base = jobFromConfig(cfg, strategyLookupFor(f.config, cfg.strategiesDir));
      const job = {
        ...base,
        strategy: f.strategy ?? base.strategy,
        from: f.from ?? base.from,
        to: f.to ?? base.to,
      };
      checkRange(job.from, job.to);
      const strategy = await loadStrategy(job.strategy, job.strategyLookup);
      const source = await asInput(() => openJobSources(job));
      const first = (Array.isArray(source) ? source[0] : source) as CandleSource;
      if (!(await hasCandlesIn(first, job.from, job.to)))
        throw noCandles({ ...job, dataset: jobDatasetName(job) });
      const bar = progressBar('lookahead {bar} {value}/{total} replays');
      bar?.start(1, 0);
      const report = await lookahead({
        ...backtestOptionsOf(job, strategy, source),
        cuts: f.cuts,
        onProgress: (done, total) => {
          bar?.setTotal(total);
          bar?.update(done);
        },
      });
      bar?.stop();
      const head = `lookahead: ${strategy.name} on ${jobDatasetName(job)}, ${report.steps.toLocaleString('en-US')} candles, ${report.cuts.length} cuts, ${report.signals.toLocaleString('en-US')} signals (${report.names.join(', ') || 'none'})`;
      if (report.findings.length === 0) {
        process.stdout.write(
          `${head}\nno lookahead: every signal is the same with the future candles removed\n`,
        );
        return;
      }
      process.stdout.write(
        `${head}\nLOOKAHEAD: ${counted(report.findings.length, 'signal')} ${report.findings.length === 1 ? 'changes' : 'change'} when future candles are removed (first candle of each):\n${report.findings.map(formatFinding).join('\n')}\n`,
      );
      process.exitCode = 1;
    });
}
