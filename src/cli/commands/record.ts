// `tradebot record`: downloads candles into the recorded format through the client (history-candles,
// chunked and rate-limited), resuming where a previous run stopped, with a progress bar.
import { progressBar } from '../progress.js';
import type { Command } from 'commander';
import { z } from 'zod';
import { CANDLE_INTERVALS, INTERVAL_MS, type Instrument } from '../../api/index.js';
import { OUTPUT_FORMATS, outputFormatOf, writeCandles } from '../../data/convert.js';
import { CandleFileWriter, metaFor, openCandleFile, resumePoint } from '../../data/format.js';
import { RestClient, historyCandlesRange } from '../../client/index.js';
import { startSimulator, type Simulator } from '../../sim/index.js';
import { EXIT_CODES_HELP } from '../exit-codes.js';
import { FlagError, checkRange, enumFlag, parseFlags, requiredDateFlag } from '../flags.js';
import { existsSync, rmSync } from 'node:fs';
import { counted, didYouMean } from '../../market/spelling.js';
import { outputPathProblem, prepareOutput, type OutputPathOptions } from '../../data/output-path.js';

const Flags = z.strictObject({
  category: enumFlag('--category', ['SPOT', 'USDT-FUTURES', 'COIN-FUTURES', 'USDC-FUTURES']),
  symbol: z
    .string({ error: '--symbol is required' })
    .regex(/^[A-Z0-9]+$/, '--symbol is upper case, e.g. BTCUSDT'),
  interval: enumFlag('--interval', CANDLE_INTERVALS),
  from: requiredDateFlag('--from'),
  to: requiredDateFlag('--to'),
  out: z
    .string({ error: '--out is required, e.g. backtest/data/btc-1m.csv' })
    .regex(/\.(csv|jsonl|parquet|feather|arrow)$/, '--out must end in .csv, .jsonl, .parquet or .feather'),
  format: enumFlag('--format', OUTPUT_FORMATS).optional(),
  baseUrl: z.string().optional(),
  sim: z.boolean().default(false),
});

export function register(program: Command): void {
  program
    .command('record')
    .description('Download candles into the recorded format (resumes where it stopped)')
    .requiredOption('--category <c>', 'SPOT or a futures category')
    .requiredOption('--symbol <s>', 'symbol, e.g. BTCUSDT')
    .requiredOption('--interval <i>', `one of ${CANDLE_INTERVALS.join(', ')}`)
    .requiredOption('--from <date>', 'first day, e.g. 2026-01-01')
    .requiredOption('--to <date>', 'end (exclusive), e.g. 2026-03-01')
    .requiredOption('--out <file>', 'output .csv, .jsonl, .parquet or .feather')
    .option('--format <f>', `${OUTPUT_FORMATS.join(', ')} (default: from the --out extension)`)
    .option('--base-url <url>', 'venue base URL (default $TRADEBOT_BASE_URL)')
    .option('--sim', 'record from an embedded simulator', false)
    .addHelpText(
      'after',
      '\nExample: tradebot record --sim --category SPOT --symbol BTCUSDT --interval 1m --from 2026-01-01 --to 2026-01-08 --out backtest/data/btc-1m.csv\n' +
        EXIT_CODES_HELP,
    )
    .action(runRecordCommand);
}

type RecordFlags = z.output<typeof Flags>;

/** A recording checked before the venue is asked anything: its files, and where a previous run stopped. */
interface RecordPlan {
  readonly f: RecordFlags;
  /** The file asked for (--out). */
  readonly finalOut: string;
  /** The file recorded into: --out itself, or for Feather and Parquet a CSV beside it, converted at the end. */
  readonly out: string;
  readonly columnar: boolean;
  readonly output: OutputPathOptions;
  /** The time of the last candle a previous run wrote to `out`, or undefined for a new recording. */
  readonly resumeFrom: number | undefined;
}

/** `tradebot record`: the flags checked into a plan, then the candles downloaded from the venue (or --sim). */
async function runRecordCommand(raw: Record<string, unknown>): Promise<void> {
  const plan = planRecording(parseFlags(Flags, raw));
  const { f } = plan;
  let sim: Simulator | undefined;
  try {
    if (f.sim) sim = await startSimulator({ seed: 42, startTime: Math.max(Date.now(), f.to) });
    const baseUrl = sim?.baseUrl ?? f.baseUrl ?? process.env.TRADEBOT_BASE_URL;
    if (!baseUrl) throw new FlagError('no venue: pass --base-url URL, set TRADEBOT_BASE_URL, or use --sim');
    const client = new RestClient({ baseUrl });
    try {
      await record(client, baseUrl, plan);
    } finally {
      client.close();
    }
  } finally {
    await sim?.stop();
  }
}

function planRecording(f: RecordFlags): RecordPlan {
  checkRange(f.from, f.to);
  const format = f.format ?? outputFormatOf(f.out);
  if (format !== outputFormatOf(f.out))
    throw new FlagError(`--format ${f.format} and --out ${f.out} disagree: name the file .${format}`);
  // Feather and Parquet are written whole: record (resumably) into a CSV beside it, then convert.
  const columnar = format === 'parquet' || format === 'feather';
  const finalOut = f.out;
  if (columnar && existsSync(finalOut))
    throw new FlagError(
      `${finalOut} exists; a ${format} file is written whole: remove it or pick another name`,
    );
  const out = columnar ? `${finalOut}.partial.csv` : finalOut;
  // Checked before the venue is asked anything; the folder is made when the first candle is written.
  const output: OutputPathOptions = { what: '--out', kind: 'file', example: 'backtest/data/btc-1m.csv' };
  for (const p of columnar ? [finalOut, out] : [out]) {
    const problem = outputPathProblem(p, output);
    if (problem !== undefined) throw new FlagError(problem);
  }
  // A file there must be this recording's (symbol, category, interval) to be resumed.
  const resumeFrom = resumePoint(out, { symbol: f.symbol, category: f.category, interval: f.interval });
  return { f, finalOut, out, columnar, output, resumeFrom };
}

/** The candles from where the recording stands to --to, written and (for Feather and Parquet) converted. */
async function record(client: RestClient, baseUrl: string, plan: RecordPlan): Promise<void> {
  const { f, out, resumeFrom } = plan;
  const instrument = await instrumentAt(client, baseUrl, f);
  const start = resumeFrom !== undefined ? resumeFrom + INTERVAL_MS[f.interval] : f.from;
  const end = f.to - 1;
  if (start > end) {
    // A recording that was complete but not yet written whole (stopped right before the conversion).
    await convertColumnar(plan);
    process.stdout.write(`${out} is complete up to ${new Date(resumeFrom ?? f.from).toISOString()}\n`);
    return;
  }
  prepareOutput(out, plan.output);
  const w = new CandleFileWriter(out, metaFor(instrument, f.interval, baseUrl));
  const n = await download(client, f, w, start, end);
  await convertColumnar(plan);
  process.stdout.write(
    `${resumeFrom !== undefined ? 'resumed; ' : ''}wrote ${counted(n, 'candle')} to ${plan.finalOut}\n`,
  );
}

/** --symbol among every instrument of its category: a symbol that is none of them is answered with the nearest. */
async function instrumentAt(client: RestClient, baseUrl: string, f: RecordFlags): Promise<Instrument> {
  const all = await client.instruments({ category: f.category });
  const instrument = all.find((x) => x.symbol === f.symbol);
  if (!instrument)
    throw new FlagError(
      `--symbol: ${f.symbol} is not an instrument of ${f.category} at ${baseUrl}${didYouMean(
        f.symbol,
        all.map((x) => x.symbol),
      )}`,
    );
  return instrument;
}

/** history-candles from `start` to `end` into `w`, window by window, with a progress bar; answers the count. */
async function download(
  client: RestClient,
  f: RecordFlags,
  w: CandleFileWriter,
  start: number,
  end: number,
): Promise<number> {
  const bar = progressBar('record {bar} {percentage}% | {value}/{total} windows');
  bar?.start(1, 0);
  let n = 0;
  try {
    for await (const c of historyCandlesRange(client, {
      category: f.category,
      symbol: f.symbol,
      interval: f.interval,
      startTime: start,
      endTime: end,
      onWindow: (d, t) => (bar?.setTotal(t), bar?.update(d)),
    })) {
      w.write(c);
      n++;
    }
  } finally {
    bar?.stop();
    await w.close();
  }
  return n;
}

/** A Feather or Parquet file written whole from the CSV recorded beside it, which then goes. */
async function convertColumnar(plan: RecordPlan): Promise<void> {
  if (!plan.columnar) return;
  await writeCandles(plan.finalOut, openCandleFile(plan.out));
  rmSync(plan.out);
}
