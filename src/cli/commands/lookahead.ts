// `tradebot lookahead --config <backtest.yaml>`: replays the backtest with its data cut off at many
// points and reports every signal (intent or exposed indicator) that changes when future candles are
// removed; then the recursive check: the start replayed with N, 2N and 4N candles of history (N the
// strategy's warm-up), every signal from it on the same. Exit 0 clean (both parts ran), 1 lookahead or a warm-up
// too short, 2 invalid input, 3 a part did not run (a check that did not look is not a pass).
import { progressBar } from '../progress.js';
import type { Command } from 'commander';
import { z } from 'zod';
import { lookahead, type LookaheadFinding, type LookaheadReport } from '../../research/lookahead.js';
import {
  recursiveCheck,
  type RecursiveFinding,
  type RecursiveReport,
} from '../../research/lookahead-recursive.js';
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
import { EXIT_CHECK_NOT_RUN, EXIT_FAILED } from '../exit-codes.js';
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
  tolerance: numberFlag(
    z
      .number({ error: '--tolerance must be a number such as 0.0001' })
      .min(0, '--tolerance must be 0 or more, such as 0.0001 (0.01%)')
      .max(1, '--tolerance must be at most 1 (100%), such as 0.0001'),
  ).default(0.0001),
});

const when = (t: number) => new Date(t).toISOString().replace('.000Z', 'Z');
const show = (v: number | string | undefined) => (v === undefined ? '(none)' : String(v));

/** One line per finding: which signal, on which candle, its two values. */
export function formatFinding(f: LookaheadFinding): string {
  return `  ${f.name} on ${f.symbol} candle ${when(f.openTime)}: ${show(f.full)} with all the data, ${show(f.truncated)} with the data cut after ${when(f.cut)}`;
}

/** One line per recursive finding: which signal, on which candle, its value with each history. */
export function formatRecursiveFinding(f: RecursiveFinding, histories: readonly number[]): string {
  const apart = f.apart === undefined ? '' : ` (${(f.apart * 100).toPrecision(2)}% apart)`;
  return `  ${f.name} on ${f.symbol} candle ${when(f.openTime)}: ${f.values.map((v, k) => `${show(v)} with ${counted(histories[k] ?? 0, 'candle')}`).join(', ')}${apart}`;
}

/** The recursive check's lines, whether it found the warm-up too short, and whether it ran. */
function recursiveLines(r: RecursiveReport): { text: string; short: boolean; ran: boolean } {
  const [n, n2, n4] = r.histories;
  const what = `warm-up ${counted(r.warmUp.candles, 'candle')} (${r.warmUp.source})`;
  if (r.start === undefined)
    return {
      text: `recursive check not run: ${what}; comparing it with ${n4} candles of history needs ${r.needs.toLocaleString('en-US')} candles, the data has ${r.has.toLocaleString('en-US')}: widen --from/--to or use a longer dataset\n`,
      short: false,
      ran: false,
    };
  const head = `recursive: ${what}; the start ${when(r.start)} replayed with ${n}, ${n2} and ${n4} candles of history, ${r.signals.toLocaleString('en-US')} signals from it on`;
  if (r.findings.length === 0)
    return {
      text: `${head}\nwarm-up long enough: every signal is the same with more history\n`,
      short: false,
      ran: true,
    };
  const kinds = new Set<string>(r.findings.map((f) => (f.name === 'intent' ? 'intents' : 'indicators')));
  const names = ['intents', 'indicators'].filter((k) => kinds.has(k));
  const first = r.findings[0] as RecursiveFinding;
  return {
    text: `${head}\nWARM-UP TOO SHORT: ${names.join(' and ')} differ at ${when(first.openTime)} with more history (first candle of each signal); declare a larger startupCandles:\n${r.findings.map((f) => formatRecursiveFinding(f, r.histories)).join('\n')}\n`,
    short: true,
    ran: true,
  };
}

/**
 * The lookahead part's lines, then the recursive part's, and the exit code: 1 for a finding of either, else
 * 3 when a part did not run (no cut point, or no signal to compare; the data too short for the recursive
 * part): a check that did not look is not a pass.
 */
function verdict(
  report: LookaheadReport,
  rec: ReturnType<typeof recursiveLines>,
): { text: string; code: number } {
  if (report.findings.length > 0)
    return {
      text: `LOOKAHEAD: ${counted(report.findings.length, 'signal')} ${report.findings.length === 1 ? 'changes' : 'change'} when future candles are removed (first candle of each):\n${report.findings.map(formatFinding).join('\n')}\n${rec.text}`,
      code: EXIT_FAILED,
    };
  const notRun =
    report.cuts.length === 0
      ? `lookahead check not run: ${report.steps.toLocaleString('en-US')} time steps leave no point to cut the data at: widen --from/--to\n`
      : report.signals === 0
        ? 'lookahead check not run: the strategy produced no signal to compare (no intent, nothing exposed with ctx.expose): expose the indicators its decisions read\n'
        : undefined;
  const text = `${notRun ?? 'no lookahead: every signal is the same with the future candles removed\n'}${rec.text}`;
  if (rec.short) return { text, code: EXIT_FAILED };
  if (notRun === undefined && rec.ran) return { text, code: 0 };
  const which =
    notRun !== undefined && !rec.ran
      ? 'neither check ran'
      : notRun !== undefined
        ? 'the lookahead check did not run'
        : 'the recursive check did not run';
  return { text: `${text}NOT A PASS: ${which} (exit ${EXIT_CHECK_NOT_RUN})\n`, code: EXIT_CHECK_NOT_RUN };
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
    .option(
      '--tolerance <ratio>',
      'recursive check: indicator values closer than this (relative) are the same, e.g. 0.0001 (0.01%)',
      '0.0001',
    )
    .addHelpText(
      'after',
      `\nExamples:\n  tradebot lookahead --config config/backtest.yaml\n  tradebot lookahead --config config/backtest.yaml --cuts 50\nThen the recursive check (freqtrade's recursive-analysis): the start replayed with N, 2N and 4N candles of\nhistory before it (N the strategy's warm-up, startupCandles); any signal that differs means the warm-up is too short.\nExit codes:\n  0  both checks ran: no lookahead, and the warm-up long enough\n  1  lookahead found, or the warm-up too short\n  2  invalid input (flags, the backtest file, its data or strategy)\n  3  a check did not run (the data too short for the recursive check, no cut point, or no signal to\n     compare): not a pass; the sentence says what to change`,
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
      const options = backtestOptionsOf(job, strategy, source);
      // The recursive check's three replays follow the lookahead's on the same bar.
      let replays = 0;
      const report = await lookahead({
        ...options,
        cuts: f.cuts,
        onProgress: (done, total) => {
          replays = total;
          bar?.setTotal(total + 3);
          bar?.update(done);
        },
      });
      const recursive = await recursiveCheck({
        ...options,
        tolerance: f.tolerance,
        onProgress: (done) => bar?.update(replays + done),
      });
      bar?.stop();
      const perSymbol =
        report.symbols > 1
          ? ` (${report.symbols} symbols, ${report.steps.toLocaleString('en-US')} time steps)`
          : '';
      const head = `lookahead: ${strategy.name} on ${jobDatasetName(job)}, ${report.candles.toLocaleString('en-US')} candles${perSymbol}, ${report.cuts.length} cuts, ${report.signals.toLocaleString('en-US')} signals (${report.names.join(', ') || 'none'})`;
      const v = verdict(report, recursiveLines(recursive));
      process.stdout.write(`${head}\n${v.text}`);
      if (v.code !== 0) process.exitCode = v.code;
    });
}
