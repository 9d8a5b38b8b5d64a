// Writing any candle source in any of the formats tradebot reads: `tradebot data convert` and
// `tradebot record --format` both end here, so every format is written by one code path.
import { existsSync } from 'node:fs';
import { Decimal } from 'decimal.js';
import { collectColumns, columnarKind, writeParquetFile } from './columnar.js';
import { writeArrowFile } from './arrow-entry.js';
import { CandleFileError, CandleFileWriter, type CandleSource } from './format.js';

export const OUTPUT_FORMATS = ['csv', 'jsonl', 'feather', 'parquet'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** The output format a path names by its extension, or undefined. */
export function outputFormatOf(path: string): OutputFormat | undefined {
  if (/\.csv$/i.test(path)) return 'csv';
  if (/\.jsonl$/i.test(path)) return 'jsonl';
  if (columnarKind(path) === 'arrow') return 'feather';
  if (columnarKind(path) === 'parquet') return 'parquet';
  return undefined;
}

/** A float as the plain decimal the text formats require (String() would write 1e-7 as an exponent). */
export function plainDecimal(x: number): string {
  const s = String(x);
  return s.includes('e') ? new Decimal(s).toFixed() : s;
}

/**
 * Writes every candle of `source` to `path` in the format its extension names (.csv, .jsonl, .feather/.arrow,
 * .parquet), with the source's metadata. Refuses to overwrite an existing file. Answers the candle count.
 */
export async function writeCandles(path: string, source: CandleSource): Promise<number> {
  const format = outputFormatOf(path);
  if (format === undefined)
    throw new CandleFileError(`${path}: write .csv, .jsonl, .feather (or .arrow) or .parquet`);
  if (existsSync(path)) throw new CandleFileError(`${path} exists; remove it or pick another name`);
  if (format === 'csv' || format === 'jsonl') {
    const w = new CandleFileWriter(path, source.meta);
    let n = 0;
    try {
      for await (const b of source.batches()) {
        for (let i = 0; i < b.length; i++) {
          w.write([
            String(b.openTime[i]),
            plainDecimal(b.open[i] as number),
            plainDecimal(b.high[i] as number),
            plainDecimal(b.low[i] as number),
            plainDecimal(b.close[i] as number),
            plainDecimal(b.volume[i] as number),
            plainDecimal(b.turnover[i] as number),
          ]);
        }
        n += b.length;
      }
    } finally {
      await w.close();
    }
    return n;
  }
  const cols = await collectColumns(source);
  if (format === 'feather') writeArrowFile(path, source.meta, cols);
  else writeParquetFile(path, source.meta, cols);
  return cols.length;
}
