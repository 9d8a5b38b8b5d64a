// A paper run's candle recorder: the record command's format and writer, one file per symbol and interval,
// resumed after a restart without a candle twice, and refused on a file of another recording.
import { mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Instrument } from '../../../src/api/index.js';
import { openCandleRecorder, recordedCandlesPath } from '../../../src/daemon/candle-recorder.js';
import { openCandleFile } from '../../../src/data/format.js';
import type { Candle } from '../../../src/market/candle.js';
import { startSimulator } from '../../../src/sim/index.js';
import { RestClient } from '../../../src/client/index.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-recorder-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const candle = (symbol: string, minute: number): Candle => ({
  symbol,
  interval: '1m',
  openTime: Date.UTC(2026, 10, 23, 15, minute),
  open: 150.25,
  high: 151,
  low: 150,
  close: 150.5,
  volume: 12.5,
  turnover: 1880.1,
});

async function instruments(): Promise<Instrument[]> {
  const sim = await startSimulator({ seed: 1, startTime: Date.UTC(2026, 10, 23, 15) });
  const client = new RestClient({ baseUrl: sim.baseUrl });
  try {
    return await client.instruments({ category: 'SPOT' });
  } finally {
    client.close();
    await sim.stop();
  }
}

async function openTimes(path: string): Promise<number[]> {
  const out: number[] = [];
  for await (const b of openCandleFile(path).batches())
    for (let i = 0; i < b.length; i++) out.push(b.openTime[i] as number);
  return out;
}

describe('openCandleRecorder', () => {
  it('appends after a restart without writing a candle twice, in the record format', async () => {
    const all = await instruments();
    const pairs = [{ symbol: 'AAPLUSDT', interval: '1m' as const }];
    const first = openCandleRecorder(dir, pairs, all, 'http://127.0.0.1:1');
    for (const m of [0, 1, 2]) first.recorder.see(candle('AAPLUSDT', m));
    await first.recorder.close();
    const path = recordedCandlesPath(dir, 'AAPLUSDT', '1m');
    expect(readFileSync(path, 'utf8')).toMatch(/^# tradebot-candles v\d+ .*"symbol":"AAPLUSDT"/);

    const second = openCandleRecorder(dir, pairs, all, 'http://127.0.0.1:1');
    expect(second.files).toEqual([{ path, resumesAfter: candle('AAPLUSDT', 2).openTime }]);
    // The warm-up replayed after the restart, then new candles.
    for (const m of [0, 1, 2, 3, 4]) second.recorder.see(candle('AAPLUSDT', m));
    await second.recorder.close();
    expect(await openTimes(path)).toEqual([0, 1, 2, 3, 4].map((m) => candle('AAPLUSDT', m).openTime));
  });

  it('refuses a file there that records another symbol, before writing anything', async () => {
    const all = await instruments();
    const other = join(dir, 'other');
    const first = openCandleRecorder(other, [{ symbol: 'TSLAUSDT', interval: '1m' }], all, 'x');
    first.recorder.see(candle('TSLAUSDT', 0));
    await first.recorder.close();
    const before = readFileSync(recordedCandlesPath(other, 'TSLAUSDT', '1m'), 'utf8');
    // A file named for AAPLUSDT holding TSLAUSDT candles (moved by hand): not resumed into.
    renameSync(recordedCandlesPath(other, 'TSLAUSDT', '1m'), recordedCandlesPath(other, 'AAPLUSDT', '1m'));
    expect(() => openCandleRecorder(other, [{ symbol: 'AAPLUSDT', interval: '1m' }], all, 'x')).toThrow(
      /holds TSLAUSDT SPOT 1m candles .* not AAPLUSDT SPOT 1m.*record into a new file/,
    );
    expect(readFileSync(recordedCandlesPath(other, 'AAPLUSDT', '1m'), 'utf8')).toBe(before);
  });
});
