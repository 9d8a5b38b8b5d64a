// The recorded-candle format: round trips in CSV, JSONL and gzip; refusals name the line and the fix.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { CandleFileWriter, candlesOf, lastOpenTime, openCandleFile } from '../../../src/data/format.js';
import { openDataset } from '../../../src/data/datasets.js';
import { SYNTHETIC_INSTRUMENT, syntheticSource } from '../../../src/data/synthetic.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-format-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const meta = {
  format: 'tradebot-candles',
  version: 1,
  symbol: 'SYNUSDT',
  category: 'SPOT',
  interval: '1m',
  instrument: SYNTHETIC_INSTRUMENT('SYNUSDT', 2),
} as const;
const rows = [
  ['1767225600000', '100.5', '101', '100', '100.75', '12.5', '1259.4'],
  ['1767225660000', '100.75', '100.9', '99.5', '99.9', '3', '299.7'],
  ['1767225720000', '99.9', '100', '99.1', '99.2', '8', '795'],
];

async function all(path: string) {
  const out = [];
  for await (const c of candlesOf(openCandleFile(path))) out.push(c);
  return out;
}

describe('recorded candle files', () => {
  for (const ext of ['csv', 'jsonl']) {
    it(`round-trips ${ext} and its gzip`, async () => {
      const p = join(dir, `rt.${ext}`);
      const w = new CandleFileWriter(p, meta);
      for (const r of rows) w.write(r);
      await w.close();
      writeFileSync(`${p}.gz`, gzipSync(readFileSync(p)));
      for (const f of [p, `${p}.gz`]) {
        const src = openCandleFile(f);
        expect(src.meta.symbol).toBe('SYNUSDT');
        const cs = await all(f);
        expect(
          cs.map((c) => [c.openTime, c.open, c.high, c.low, c.close, c.volume, c.turnover].map(String)),
        ).toEqual(rows);
      }
      expect(lastOpenTime(p)).toBe(1767225720000);
    });
  }

  it('refuses unsorted, duplicate and inconsistent candles with the line number', async () => {
    const bad = (name: string, lines: string[][]) => {
      const p = join(dir, name);
      const w = new CandleFileWriter(p, meta);
      for (const r of lines) w.write(r);
      return w.close().then(() => p);
    };
    await expect(all(await bad('dup.csv', [rows[0]!, rows[0]!]))).rejects.toThrow(
      /dup\.csv:4: duplicate openTime/,
    );
    await expect(all(await bad('unsorted.csv', [rows[1]!, rows[0]!]))).rejects.toThrow(
      /:4: openTime .* is before the previous/,
    );
    await expect(
      all(await bad('hl.csv', [['1767225600000', '100', '99', '98', '100', '1', '1']])),
    ).rejects.toThrow(/:3: high must be >=/);
    await expect(
      all(await bad('nan.csv', [['1767225600000', 'x', '1', '1', '1', '1', '1']])),
    ).rejects.toThrow(/field 2 \(open\) "x" is not a plain decimal/);
    writeFileSync(join(dir, 'nohead.csv'), 'openTime,open\n1,2\n');
    expect(() => openCandleFile(join(dir, 'nohead.csv'))).toThrow(/first line must be the metadata header/);
    expect(() => openCandleFile(join(dir, 'missing.csv'))).toThrow(
      /no such file; record one with `tradebot record`/,
    );
  });
});

describe('bundled datasets', () => {
  it('the synthetic series is deterministic per seed', async () => {
    const digest = async (seed: number) => {
      const parts: number[] = [];
      for await (const c of candlesOf(syntheticSource({ seed, count: 5000 })))
        parts.push(c.close, c.high, c.low, c.volume);
      return parts.join(',');
    };
    expect(await digest(1)).toBe(await digest(1));
    expect(await digest(1)).not.toBe(await digest(2));
  });

  it('the S&P 500 series has its 5,105 daily candles from 2000-01-03 to 2020-04-17 as SPXUSDT', async () => {
    const src = openDataset('sp500-daily');
    expect(src.meta.instrument.isReality).toBe('yes');
    const cs = [];
    for await (const c of candlesOf(src)) cs.push(c);
    expect(cs).toHaveLength(5105);
    expect(new Date(cs[0]!.openTime).toISOString()).toBe('2000-01-03T14:30:00.000Z'); // 09:30 EST
    expect(cs[0]!.close).toBe(1455.22);
    expect(new Date(cs.at(-1)!.openTime).toISOString()).toBe('2020-04-17T13:30:00.000Z'); // 09:30 EDT
  });

  it('refuses an unknown dataset name with a sentence', () => {
    expect(() => openDataset('synthetic-2m')).toThrow(/synthetic-1m:<seed>:<count>/);
  });
});
