// Bundled datasets: the real S&P 500 daily series 2000-2020 shipped by the vega-datasets package
// (BSD-3-Clause), mapped onto a Reality stock token, and seeded synthetic series of any length.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CANDLE_INTERVALS, type Instrument } from '../api/index.js';
import { etToUtc } from '../market/sessions.js';
import {
  appendCandle,
  CandleFileError,
  checkCandleFile,
  FORMAT_NAME,
  FORMAT_VERSION,
  newBatch,
  openCandleFile,
  readFirstLine,
  type CandleSource,
} from './format.js';
import { isForeignText, openForeignText } from './foreign-text.js';
import { syntheticSource } from './synthetic.js';
import { cachedCandleSource, candleCacheDir } from './candle-cache.js';
import { columnarKind, openColumnarFile, type ColumnarOptions } from './columnar.js';

/** The Reality token the S&P 500 series is mapped onto. */
export const SPX_INSTRUMENT: Instrument = {
  category: 'SPOT',
  symbol: 'SPXUSDT',
  baseCoin: 'SPX',
  quoteCoin: 'USDT',
  isRwa: 'YES',
  isReality: 'yes',
  symbolType: 'stock',
  status: 'online',
  pricePrecision: '2',
  quantityPrecision: '4',
  quotePrecision: '2',
  minOrderAmount: '1',
  buyLimitPriceRatio: '0.05',
  sellLimitPriceRatio: '0.05',
};

/** `synthetic-<interval>:<seed>:<count>[:<SYMBOL>]`: the interval as written (checked against the list). */
const SYNTHETIC_RE = /^synthetic-(\w+):(\d+):(\d+)(?::([A-Z0-9]+))?$/;

export const DATASETS = {
  'sp500-daily':
    'the S&P 500 daily series 2000-2020 (vega-datasets, BSD-3-Clause) as the Reality token SPXUSDT',
  'synthetic-1m:<seed>:<count>': 'a seeded synthetic one-minute series of <count> candles',
  'synthetic-<interval>:<seed>:<count>': `the same at another interval (${CANDLE_INTERVALS.join(', ')}), e.g. synthetic-5m:3:5000`,
  'synthetic-1m:<seed>:<count>:<SYMBOL>,<SYMBOL>...':
    'one seeded synthetic series per symbol (seeds <seed>, <seed>+1 ...), for a backtest over several symbols',
} as const;

export function listDatasets(): { name: string; description: string }[] {
  return Object.entries(DATASETS).map(([name, description]) => ({ name, description }));
}

/** The vega-datasets CSV of the S&P 500 from 2000. */
export function sp500Path(): string {
  // The package exports only its code; its data folder sits beside the build folder.
  return join(
    dirname(createRequire(import.meta.url).resolve('vega-datasets')),
    '..',
    'data',
    'sp500-2000.csv',
  );
}

/** The S&P 500 daily candles: open at 09:30 ET of each date, values as published (volume in shares). */
export function sp500Source(): CandleSource {
  const path = sp500Path();
  return {
    meta: {
      format: FORMAT_NAME,
      version: FORMAT_VERSION,
      symbol: 'SPXUSDT',
      category: 'SPOT',
      interval: '1D',
      instrument: SPX_INSTRUMENT,
      source: 'vega-datasets sp500-2000.csv (BSD-3-Clause)',
    },
    async *batches() {
      const lines = readFileSync(path, 'utf8').trim().split('\n').slice(1);
      const b = newBatch(lines.length);
      for (const line of lines) {
        const [date, open, high, low, close, , volume] = line.split(',');
        if (!date || !/^\d{4}-\d{2}-\d{2}$/.test(date))
          throw new CandleFileError(`${path}: unexpected line ${line}`);
        const r = (s: string | undefined) => Math.round(Number(s) * 100) / 100;
        // A daily candle opens at the regular session open, 09:30 Eastern Time (DST through Intl).
        appendCandle(
          b,
          etToUtc(date, 9, 30),
          r(open),
          r(high),
          r(low),
          r(close),
          Number(volume),
          Math.round(Number(volume) * r(close)),
        );
      }
      yield b;
    },
  };
}

export interface DatasetOptions extends ColumnarOptions {
  /** The columnar cache folder for text files (default `candleCacheDir()`; undefined turns it off). */
  readonly cacheDir?: string | undefined;
}

/**
 * Opens a bundled dataset by name, or a recorded file by path: CSV or JSONL (through the columnar cache),
 * Feather/Arrow IPC or Parquet (read as columns; `instrument` fills in the rules of a file that has none),
 * or a CSV or freqtrade JSON file another tool wrote (foreign-text.ts, through the cache too; `instrument` as for
 * columnar files).
 */
export function openDataset(ref: string, o: DatasetOptions = { cacheDir: candleCacheDir() }): CandleSource {
  if (ref === 'sp500-daily') return sp500Source();
  const m = SYNTHETIC_RE.exec(ref);
  const interval = CANDLE_INTERVALS.find((i) => i === m?.[1]);
  if (m && interval !== undefined)
    return syntheticSource({ interval, seed: Number(m[2]), count: Number(m[3]), symbol: m[4] });
  if (ref.startsWith('synthetic'))
    throw new CandleFileError(
      `dataset ${ref}: write synthetic-<interval>:<seed>:<count> with an interval of ${CANDLE_INTERVALS.join(', ')}, e.g. synthetic-1m:42:1000000 or synthetic-5m:42:5000, or synthetic-1m:<seed>:<count>:BTCUSDT,ETHUSDT for several symbols`,
    );
  // Every file reader below may assume a readable regular file at `ref`.
  if (columnarKind(ref) !== undefined) {
    checkCandleFile(ref, 'check the path (freqtrade keeps its data in user_data/data/<exchange>/)');
    return openColumnarFile(ref, o);
  }
  checkCandleFile(ref, 'record one with `tradebot record` or use a bundled dataset');
  const cacheDir = 'cacheDir' in o ? o.cacheDir : candleCacheDir();
  if (isForeignText(ref, () => readFirstLine(ref))) return openForeignText(ref, o, cacheDir);
  return cachedCandleSource(ref, openCandleFile(ref), cacheDir);
}

/** The references a dataset reference stands for: a multi-symbol synthetic is one series per symbol. */
export function expandDatasetRef(ref: string): string[] {
  const m = /^synthetic-(\w+):(\d+):(\d+):([A-Z0-9]+(?:,[A-Z0-9]+)+)$/.exec(ref);
  if (!m) return [ref];
  const seed = Number(m[2]);
  return (m[4] as string)
    .split(',')
    .map((symbol, k) => `synthetic-${m[1] as string}:${seed + k}:${m[3] as string}:${symbol}`);
}

/**
 * Opens the datasets of one backtest, one source per symbol (a backtest over several symbols merges them
 * in time order, ties in this order).
 */
export function openDatasets(refs: readonly string[], o?: DatasetOptions): CandleSource[] {
  return refs.flatMap(expandDatasetRef).map((r) => (o === undefined ? openDataset(r) : openDataset(r, o)));
}
