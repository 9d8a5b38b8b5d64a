// Feather/Arrow and Parquet: CSV -> Parquet -> Feather -> CSV keeps every candle and the trade hash; a
// freqtrade-layout Feather file (written here through apache-arrow, LZ4 as freqtrade writes it) backtests
// with the instrument given by the user; the cache is keyed by content; refusals carry row numbers.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import {
  CompressionType,
  Field,
  RecordBatch,
  Schema,
  Struct,
  Table,
  TimestampNanosecond,
  makeData,
  makeTable,
  tableToIPC,
} from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { cacheEntryPath, fileSha256 } from '../../../src/data/candle-cache.js';
import { writeCandles } from '../../../src/data/convert.js';
import { openDataset } from '../../../src/data/datasets.js';
import { candlesOf } from '../../../src/data/format.js';
import { type BacktestJob } from '../../../src/backtest/run-config.js';
import { runJob } from '../../../src/research/run-job.js';
import { runSweep } from '../../../src/research/sweep.js';
import { syntheticSource } from '../../../src/data/synthetic.js';
import { candleRows } from '../../helpers/candle-series.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-columnar-'));
const cache = join(dir, 'cache');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const N = 6000;
const job = (dataset: string, extra: Partial<BacktestJob> = {}): BacktestJob => ({
  dataset,
  strategy: 'ma-crossover',
  params: { fast: 10, slow: 40, quoteAmount: '1000' },
  capital: '100000',
  feeRate: '0.001',
  slippageBps: 2,
  risk: { allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'], maxDataAgeMs: 604_800_000 },
  ...extra,
});
const rows = (path: string) => candleRows(openDataset(path, { cacheDir: undefined }));
const hashOf = async (path: string, extra: Partial<BacktestJob> = {}) =>
  (await runJob(job(path, extra), undefined, openDataset(path, { cacheDir: cache, ...extra }))).result.meta
    .tradeHash;

describe('Feather and Parquet candle files', () => {
  it('round-trips CSV -> Parquet -> Feather -> CSV: same candles, same metadata, same trade hash', async () => {
    const csv = join(dir, 'syn.csv');
    await writeCandles(csv, syntheticSource({ seed: 3, count: N }));
    const parquet = join(dir, 'syn.parquet');
    await writeCandles(parquet, openDataset(csv, { cacheDir: undefined }));
    const feather = join(dir, 'syn.feather');
    await writeCandles(feather, openDataset(parquet));
    const back = join(dir, 'back.csv');
    await writeCandles(back, openDataset(feather));
    const original = await rows(csv);
    expect(original).toHaveLength(N);
    for (const p of [parquet, feather, back]) {
      expect(await rows(p)).toEqual(original);
      expect(openDataset(p).meta).toEqual(openDataset(csv).meta);
    }
    // The candle lines come back byte for byte (the metadata line may order the instrument's keys otherwise).
    const body = (p: string) => readFileSync(p, 'utf8').split('\n').slice(1).join('\n');
    expect(body(back)).toBe(body(csv));
    const hashes = await Promise.all([csv, parquet, feather, back].map((p) => hashOf(p)));
    expect(new Set(hashes).size).toBe(1);
    expect(hashes[0]).toMatch(/^[0-9a-f]{64}$/);
  });

  it('caches a CSV by content hash and reads an edited file afresh (never stale)', async () => {
    const csv = join(dir, 'cached.csv');
    await writeCandles(csv, syntheticSource({ seed: 4, count: 2000 }));
    const entry = cacheEntryPath(cache, await fileSha256(csv));
    expect(existsSync(entry)).toBe(false);
    const first = await hashOf(csv);
    expect(existsSync(entry)).toBe(true);
    expect(await hashOf(csv)).toBe(first);
    // Change one close (still a valid candle): another hash, another entry, other candles.
    const text = readFileSync(csv, 'utf8').split('\n');
    const cols = (text[500] as string).split(',');
    cols[4] = cols[2] as string; // close = high
    text[500] = cols.join(',');
    writeFileSync(csv, text.join('\n'));
    const edited = cacheEntryPath(cache, await fileSha256(csv));
    expect(edited).not.toBe(entry);
    const read = await rows(csv);
    expect(read[498]?.[4]).toBe(Number(cols[2]));
    let n = 0;
    for await (const b of openDataset(csv, { cacheDir: cache }).batches()) n += b.length;
    expect(n).toBe(2000);
    expect(existsSync(edited)).toBe(true);
    expect(readdirSync(cache)).toContain(basename(entry));
  });

  it('backtests a freqtrade-layout Feather file (date, OHLCV; LZ4) with the instrument from the user', async () => {
    // The CSV twin gives the reference trade hash.
    const csv = join(dir, 'twin.csv');
    const src = syntheticSource({ seed: 5, count: N, symbol: 'BTCUSDT' });
    await writeCandles(csv, src);
    const c = await rows(csv);
    const col = (k: number) => Float64Array.from(c, (r) => r[k] as number);
    const ft = makeTable({
      open: col(1),
      high: col(2),
      low: col(3),
      close: col(4),
      volume: col(5),
    });
    const fields = [new Field('date', new TimestampNanosecond('UTC'), false), ...ft.schema.fields];
    const schema = new Schema(fields);
    const ns = BigInt64Array.from(c, (r) => BigInt(r[0] as number) * 1_000_000n);
    const dateData = makeData({ type: new TimestampNanosecond('UTC'), length: c.length, data: ns });
    const struct = makeData({
      type: new Struct(fields),
      length: c.length,
      nullCount: 0,
      children: [dateData, ...ft.batches[0]!.data.children],
    });
    const table = new Table(schema, [new RecordBatch(schema, struct)]);
    const path = join(dir, 'BTC_USDT-1m.feather');
    writeFileSync(path, tableToIPC(table, 'file', CompressionType.LZ4_FRAME));

    // Without instrument rules it is refused with the fix.
    expect(() => openDataset(path)).toThrow(/carries no instrument rules.*--instrument/);
    const instrument = { pricePrecision: src.meta.instrument.pricePrecision, quantityPrecision: '4' };
    const opened = openDataset(path, { instrument });
    expect(opened.meta).toMatchObject({ symbol: 'BTCUSDT', interval: '1m', category: 'SPOT' });
    expect((await rows(csv)).map((r) => r.slice(0, 6))).toEqual(
      await (async () => {
        const out: number[][] = [];
        for await (const k of candlesOf(openDataset(path, { instrument })))
          out.push([k.openTime, k.open, k.high, k.low, k.close, k.volume]);
        return out;
      })(),
    );
    expect(await hashOf(path, { instrument: { ...src.meta.instrument } })).toBe(await hashOf(csv));
    // A sweep's worker threads open the file with the same instrument.
    const [row] = await runSweep({
      base: job(path, { instrument: { ...src.meta.instrument } }),
      grid: { fast: ['10'] },
      workers: 1,
    });
    expect(row?.error).toBeUndefined();
    expect(row?.tradeHash).toBe(await hashOf(csv));
  });

  it('refuses a columnar file with the row number of the bad candle', async () => {
    const c = await rows(join(dir, 'syn.csv'));
    const bad = c.slice(0, 10);
    bad[6] = [...(bad[6] as number[])];
    (bad[6] as number[])[0] = (bad[5] as number[])[0] as number; // a duplicate openTime at row 7
    const t = makeTable({
      openTime: Float64Array.from(bad, (r) => r[0] as number),
      open: Float64Array.from(bad, (r) => r[1] as number),
      high: Float64Array.from(bad, (r) => r[2] as number),
      low: Float64Array.from(bad, (r) => r[3] as number),
      close: Float64Array.from(bad, (r) => r[4] as number),
      volume: Float64Array.from(bad, (r) => r[5] as number),
    });
    const path = join(dir, 'SYN_USDT-1m.arrow');
    writeFileSync(path, tableToIPC(t, 'file'));
    const src = openDataset(path, { instrument: { pricePrecision: '2', quantityPrecision: '4' } });
    await expect(rows2(src)).rejects.toThrow(new RegExp(`${path}: row 7: duplicate openTime`));
    const noDate = join(dir, 'X_USDT-1m.feather');
    writeFileSync(noDate, tableToIPC(makeTable({ open: new Float64Array([1]) }), 'file'));
    expect(() => openDataset(noDate)).toThrow(/no column openTime \(or date\), high, low, close, volume/);
  });
});

async function rows2(src: ReturnType<typeof openDataset>) {
  let n = 0;
  for await (const b of src.batches()) n += b.length;
  return n;
}

describe('Parquet without tradebot metadata', () => {
  it('reads a freqtrade-layout Parquet file (date as a TIMESTAMP column) with the instrument given', async () => {
    const { parquetWriteBuffer } = await import('hyparquet-writer');
    const csv = join(dir, 'pq-twin.csv');
    await writeCandles(csv, syntheticSource({ seed: 8, count: 500, symbol: 'ETHUSDT' }));
    const c = await rows(csv);
    const col = (k: number) => Float64Array.from(c, (r) => r[k] as number);
    const buf = parquetWriteBuffer({
      columnData: [
        { name: 'date', data: c.map((r) => new Date(r[0] as number)), type: 'TIMESTAMP' },
        { name: 'open', data: col(1), type: 'DOUBLE' },
        { name: 'high', data: col(2), type: 'DOUBLE' },
        { name: 'low', data: col(3), type: 'DOUBLE' },
        { name: 'close', data: col(4), type: 'DOUBLE' },
        { name: 'volume', data: col(5), type: 'DOUBLE' },
      ],
    });
    const path = join(dir, 'ETH_USDT-1m.parquet');
    writeFileSync(path, new Uint8Array(buf));
    const src = openDataset(path, { instrument: { pricePrecision: '2', quantityPrecision: '4' } });
    expect(src.meta).toMatchObject({ symbol: 'ETHUSDT', interval: '1m' });
    const got: number[][] = [];
    for await (const k of candlesOf(src)) got.push([k.openTime, k.open, k.high, k.low, k.close, k.volume]);
    expect(got).toEqual(c.map((r) => r.slice(0, 6)));
  });
});
