// Several recorded series as one replay: candles of all sources in time order, ties broken by the
// order of the sources (stable), each tagged with the index of its source (its lane). One source passes
// through untouched, so a single-symbol backtest pays nothing for this.
import { BATCH_SIZE, newBatch, type CandleBatch, type CandleSource } from './format.js';

/** A batch of candles of several sources: `lane[i]` is the index of the source candle i comes from. */
export interface LaneBatch extends CandleBatch {
  /** Undefined when there is only one source (every candle is lane 0). */
  readonly lane: Uint16Array | undefined;
}

/**
 * A batch with its lanes, always spelled as this one literal: every LaneBatch then has one hidden class, and
 * the replay loop's reads of its columns stay monomorphic. A spread (`{ ...b, lane }`) gave batches of
 * one run different hidden classes, and the loop read every column through V8's megamorphic lookup.
 */
function laneBatch(b: CandleBatch, lane: Uint16Array | undefined): LaneBatch {
  return {
    length: b.length,
    openTime: b.openTime,
    open: b.open,
    high: b.high,
    low: b.low,
    close: b.close,
    volume: b.volume,
    turnover: b.turnover,
    lane,
  };
}

/** The candles of `sources` merged by open time (ties: lower source index first). */
export async function* mergeByTime(sources: readonly CandleSource[]): AsyncGenerator<LaneBatch> {
  if (sources.length === 1) {
    for await (const b of (sources[0] as CandleSource).batches()) yield laneBatch(b, undefined);
    return;
  }
  interface Cursor {
    readonly it: AsyncIterator<CandleBatch>;
    b: CandleBatch | undefined;
    i: number;
  }
  const next = async (c: Cursor): Promise<void> => {
    for (;;) {
      const r = await c.it.next();
      if (r.done === true) {
        c.b = undefined;
        return;
      }
      if (r.value.length > 0) {
        c.b = r.value;
        c.i = 0;
        return;
      }
    }
  };
  const cursors: Cursor[] = sources.map((s) => ({
    it: s.batches()[Symbol.asyncIterator](),
    b: undefined,
    i: 0,
  }));
  for (const c of cursors) await next(c);
  const lanes = new Uint16Array(BATCH_SIZE);
  const out = laneBatch(newBatch(BATCH_SIZE), lanes);
  for (;;) {
    let k = -1;
    let best = Infinity;
    for (let j = 0; j < cursors.length; j++) {
      const c = cursors[j] as Cursor;
      if (c.b === undefined) continue;
      const t = c.b.openTime[c.i] as number;
      if (t < best) {
        best = t;
        k = j;
      }
    }
    if (k < 0) break;
    const c = cursors[k] as Cursor;
    const b = c.b as CandleBatch;
    const n = out.length++;
    out.openTime[n] = best;
    out.open[n] = b.open[c.i] as number;
    out.high[n] = b.high[c.i] as number;
    out.low[n] = b.low[c.i] as number;
    out.close[n] = b.close[c.i] as number;
    out.volume[n] = b.volume[c.i] as number;
    out.turnover[n] = b.turnover[c.i] as number;
    lanes[n] = k;
    if (++c.i >= b.length) await next(c);
    if (out.length === BATCH_SIZE) {
      yield out;
      out.length = 0;
    }
  }
  if (out.length > 0) yield out;
}
