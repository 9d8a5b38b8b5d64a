// Candle files written by hand for the reader's tests: a tradebot header line for a symbol and interval, and
// CSV rows a fixed step apart, so a test can build a file of another symbol, interval or spacing in one line.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CandleFileMetaSchema, candlesOf, openCandleFile } from '../../src/data/format.js';
import { SYNTHETIC_INSTRUMENT } from '../../src/data/synthetic.js';

export const T0 = Date.UTC(2026, 0, 1);
export const HOUR = 3_600_000;

/** The metadata of a tradebot candle file of `symbol` at `interval`. */
export const metaOf = (symbol: string, interval: string, category = 'SPOT') =>
  CandleFileMetaSchema.parse({
    format: 'tradebot-candles',
    version: 1,
    symbol,
    category,
    interval,
    instrument: { ...SYNTHETIC_INSTRUMENT(symbol, 2), category },
  });

/** The first two lines of a tradebot CSV candle file: the metadata line and the column header. */
export const headOf = (symbol: string, interval: string) =>
  `# tradebot-candles v1 ${JSON.stringify(metaOf(symbol, interval))}\nopenTime,open,high,low,close,volume,turnover\n`;

/** `n` candles `stepMs` apart from T0, as CSV lines. */
export const rowsOf = (n: number, stepMs: number) =>
  Array.from({ length: n }, (_, i) => `${T0 + i * stepMs},100.5,101,100,100.75,12.5,1259.4\n`).join('');

/** A writer of text files in `dir`: `file(name, text)` writes one and answers its path. */
export const fileWriterIn =
  (dir: string) =>
  (name: string, text: string): string => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };

/** Every candle of a candle file, read as the backtester reads it. */
export async function readCandles(path: string) {
  const out = [];
  for await (const c of candlesOf(openCandleFile(path))) out.push(c);
  return out;
}
