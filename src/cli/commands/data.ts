// `tradebot data convert IN OUT`: a candle file or bundled dataset into CSV, JSONL, Feather or Parquet, by
// the same readers (and the same row checks) a backtest uses.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import { InstrumentOverrideSchema, type InstrumentOverride } from '../../data/columnar.js';
import { OUTPUT_FORMATS, outputFormatOf, writeCandles } from '../../data/convert.js';
import { openDataset } from '../../data/datasets.js';
import { CandleFileError } from '../../data/format.js';
import { plainIssue } from '../../market/spelling.js';
import { FlagError } from '../flags.js';
import { prepareOutput } from '../../data/output-path.js';

/**
 * `--instrument` as JSON, or a path to a JSON/YAML file holding the instrument object (spec 2.1; at least
 * pricePrecision and quantityPrecision for a file without tradebot metadata).
 */
export function parseInstrumentFlag(value: string | undefined): InstrumentOverride | undefined {
  if (value === undefined) return undefined;
  let raw: unknown;
  try {
    raw = value.trim().startsWith('{') ? JSON.parse(value) : parseYaml(readFileSync(value, 'utf8'));
  } catch (e) {
    throw new FlagError(
      `--instrument: give JSON such as '{"pricePrecision":"2","quantityPrecision":"4"}' or a JSON/YAML file (${e instanceof Error ? e.message : String(e)})`,
    );
  }
  const r = InstrumentOverrideSchema.safeParse(raw, { error: plainIssue });
  if (!r.success)
    throw new FlagError(
      `--instrument: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')} (values are decimal strings, e.g. "pricePrecision":"2")`,
    );
  return r.data;
}

/** Dataset errors are invalid input: exit 2 with the reader's sentence. */
export async function asInput<T>(f: () => Promise<T> | T): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof CandleFileError) throw new FlagError(e.message);
    throw e;
  }
}

export function register(program: Command): void {
  const data = program
    .command('data')
    .description('Candle files: convert between CSV, JSONL, Feather and Parquet');
  data
    .command('convert')
    .description('Convert a candle file (or a bundled dataset) to the format OUT names by its extension')
    .argument(
      '<in>',
      "a .csv/.jsonl (.gz), .feather/.arrow or .parquet file, another tool's CSV or freqtrade's .json, or a bundled dataset",
    )
    .argument('<out>', `the new file: ${OUTPUT_FORMATS.map((f) => `.${f}`).join(', ')}`)
    .option(
      '--instrument <json|file>',
      "instrument rules for a file without tradebot metadata (freqtrade's, another tool's CSV)",
    )
    .addHelpText(
      'after',
      '\nExamples:\n  tradebot data convert backtest/data/btc-1m.csv backtest/data/btc-1m.parquet\n  tradebot data convert ~/freqtrade/user_data/data/binance/BTC_USDT-1m.feather btc.csv --instrument \'{"pricePrecision":"2","quantityPrecision":"5"}\'\n  tradebot data convert AAPL.csv aapl.parquet --instrument \'{"symbol":"AAPLUSDT","baseCoin":"AAPL","quoteCoin":"USDT","pricePrecision":"2","quantityPrecision":"4"}\'\nExit codes: 0 done, 1 failed, 2 invalid input.',
    )
    .action(async (input: string, out: string, raw: { instrument?: string }) => {
      if (outputFormatOf(out) === undefined)
        throw new FlagError(`OUT ${out}: end it in ${OUTPUT_FORMATS.map((f) => `.${f}`).join(', ')}`);
      const instrument = parseInstrumentFlag(raw.instrument);
      prepareOutput(out, { what: 'OUT', kind: 'file', example: 'backtest/data/btc-1m.parquet' });
      const t0 = performance.now();
      const n = await asInput(() =>
        writeCandles(out, openDataset(input, { instrument, cacheDir: undefined })),
      );
      process.stdout.write(
        `wrote ${n.toLocaleString('en-US')} candles to ${out} (${outputFormatOf(out)}) in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
      );
    });
}
