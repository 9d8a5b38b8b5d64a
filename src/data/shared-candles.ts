// A dataset loaded once into SharedArrayBuffer columns, for sweeps and walk-forward: every worker thread
// reads the same memory without a copy, instead of each job parsing (or generating) the series again,
// which cost as much as the run itself. Above a memory cap the dataset is not shared and each job
// streams it as a single backtest does, so memory stays flat for series of any length.
import { BATCH_SIZE, type CandleBatch, type CandleFileMeta, type CandleSource } from './format.js';

const COLUMNS = ['openTime', 'open', 'high', 'low', 'close', 'volume', 'turnover'] as const;
type Column = (typeof COLUMNS)[number];

/** Bytes a candle takes in shared memory: seven float64 columns. */
export const SHARED_BYTES_PER_CANDLE = COLUMNS.length * Float64Array.BYTES_PER_ELEMENT;

/** Default cap of a shared dataset: 256 MiB, about 4.8 million candles. */
export const DEFAULT_SHARED_LIMIT_BYTES = 256 * 1024 * 1024;

/** A whole dataset in shared memory; structured-clones to a worker without copying the columns. */
export interface SharedCandles {
  readonly meta: CandleFileMeta;
  readonly length: number;
  readonly columns: Readonly<Record<Column, SharedArrayBuffer>>;
}

/**
 * Reads `source` into shared columns, or answers undefined (having stopped reading) as soon as it holds
 * more than `limitBytes` worth of candles.
 */
export async function shareCandles(
  source: CandleSource,
  limitBytes = DEFAULT_SHARED_LIMIT_BYTES,
): Promise<SharedCandles | undefined> {
  const limit = Math.floor(limitBytes / SHARED_BYTES_PER_CANDLE);
  // Batches may be reused by the source after the next call: copy each before asking for another.
  const parts: CandleBatch[] = [];
  let length = 0;
  for await (const b of source.batches()) {
    if (b.length === 0) continue;
    length += b.length;
    if (length > limit) return undefined;
    const copy = {} as Record<Column, Float64Array>;
    for (const c of COLUMNS) copy[c] = b[c].slice(0, b.length);
    parts.push({ length: b.length, ...copy });
  }
  const columns = {} as Record<Column, SharedArrayBuffer>;
  for (const c of COLUMNS) {
    const buf = new SharedArrayBuffer(length * Float64Array.BYTES_PER_ELEMENT);
    const view = new Float64Array(buf);
    let at = 0;
    for (const p of parts) {
      view.set(p[c], at);
      at += p.length;
    }
    columns[c] = buf;
  }
  return { meta: source.meta, length, columns };
}

/** A candle source over shared columns: batches are views into the shared memory, never copies. */
export function sharedCandleSource(shared: SharedCandles): CandleSource {
  return {
    meta: shared.meta,
    async *batches() {
      const all = {} as Record<Column, Float64Array>;
      for (const c of COLUMNS) all[c] = new Float64Array(shared.columns[c]);
      for (let from = 0; from < shared.length; from += BATCH_SIZE) {
        const to = Math.min(shared.length, from + BATCH_SIZE);
        const cols = {} as Record<Column, Float64Array>;
        for (const c of COLUMNS) cols[c] = all[c].subarray(from, to);
        const batch: CandleBatch = { length: to - from, ...cols };
        yield batch;
      }
    },
  };
}
