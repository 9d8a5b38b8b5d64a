// The columnar cache's entries (and `data convert`'s Feather files): whole columns written as an Arrow IPC file
// in record batches, and an entry read back a record batch at a time, so a pass over a cached series holds
// one batch of it, not the file.
import { renameSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import {
  RecordBatch,
  RecordBatchReader,
  Schema,
  Table,
  makeTable,
  tableToIPC,
  type Vector,
} from 'apache-arrow';
import { COLUMNS, META_KEY } from './columnar.js';
import { BATCH_SIZE, batchesOf, type CandleBatch, type CandleFileMeta, type CandleSource } from './format.js';

/** Rows per record batch of a written Arrow file: what a streamed read holds at once (3.5 MB of columns). */
export const ARROW_BATCH_ROWS = 4 * BATCH_SIZE;

/**
 * Writes whole columns as an Arrow IPC file (uncompressed: read back without a copy) with the metadata, in
 * record batches of ARROW_BATCH_ROWS rows (so streamArrowEntry holds one batch, not the file).
 */
export function writeArrowFile(
  path: string,
  meta: CandleFileMeta,
  cols: Record<(typeof COLUMNS)[number], Float64Array>,
): void {
  const n = cols.openTime.length;
  const parts: Table[] = [];
  for (let from = 0; from < n || parts.length === 0; from += ARROW_BATCH_ROWS) {
    const to = Math.min(n, from + ARROW_BATCH_ROWS);
    const part = {} as Record<(typeof COLUMNS)[number], Float64Array>;
    for (const c of COLUMNS) part[c] = cols[c].subarray(from, to);
    parts.push(makeTable(part));
  }
  const schema = new Schema((parts[0] as Table).schema.fields, new Map([[META_KEY, JSON.stringify(meta)]]));
  const table = new Table(
    schema,
    parts.flatMap((t) => t.batches.map((b) => new RecordBatch(schema, b.data))),
  );
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, tableToIPC(table, 'file'));
  // Readers never see half a file: the write goes to a temporary name, then one rename.
  renameSync(tmp, path);
}

/**
 * A columnar cache entry (written by writeArrowFile from validated candles, tradebot's column names, Float64)
 * read one record batch at a time from the file: memory holds one batch, not the file, on every pass.
 */
export function streamArrowEntry(path: string, meta: CandleFileMeta): CandleSource {
  return {
    meta,
    async *batches(): AsyncGenerator<CandleBatch> {
      const file = await open(path, 'r');
      try {
        const reader = await RecordBatchReader.from(file);
        for await (const b of reader) {
          const col = (c: (typeof COLUMNS)[number]) => (b.getChild(c) as Vector).toArray() as Float64Array;
          yield* batchesOf(
            {
              openTime: col('openTime'),
              open: col('open'),
              high: col('high'),
              low: col('low'),
              close: col('close'),
              volume: col('volume'),
              turnover: col('turnover'),
            },
            b.numRows,
          );
        }
      } finally {
        await file.close();
      }
    },
  };
}
