// What a recording resumes onto: only a file of its own symbol, category and interval whose last candles read as
// such (anything else is refused with what the file holds); a new, empty or header-only file starts anew.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CandleFileWriter, resumePoint } from '../../../src/data/format.js';
import { HOUR, T0, fileWriterIn, headOf, metaOf, readCandles, rowsOf } from '../../helpers/candle-text.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-resume-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const btc1h = { symbol: 'BTCUSDT', category: 'SPOT', interval: '1H' } as const;

const file = fileWriterIn(dir);
const read = readCandles;

describe('resumePoint: a recording resumes only onto its own series', () => {
  it('resumes after the last candle of a file of the same symbol, category and interval (CSV and JSONL)', async () => {
    expect(resumePoint(file('ok.csv', headOf('BTCUSDT', '1H') + rowsOf(3, HOUR)), btc1h)).toBe(T0 + 2 * HOUR);
    const j = join(dir, 'ok.jsonl');
    const w = new CandleFileWriter(j, metaOf('BTCUSDT', '1H'));
    for (let i = 0; i < 3; i++) w.write([String(T0 + i * HOUR), '1', '1', '1', '1', '1', '1']);
    await w.close();
    expect(resumePoint(j, btc1h)).toBe(T0 + 2 * HOUR);
  });

  it('starts anew on a missing file, an empty one and one with its header only', () => {
    expect(resumePoint(join(dir, 'missing.csv'), btc1h)).toBeUndefined();
    expect(resumePoint(file('empty.csv', ''), btc1h)).toBeUndefined();
    expect(resumePoint(file('head-only.csv', headOf('BTCUSDT', '1H')), btc1h)).toBeUndefined();
  });

  it("refuses another symbol's file, naming both", () => {
    const p = file('btc.csv', headOf('BTCUSDT', '1H') + rowsOf(3, HOUR));
    expect(() => resumePoint(p, { ...btc1h, symbol: 'ETHUSDT' })).toThrow(
      `${p} holds BTCUSDT SPOT 1H candles (its header), not ETHUSDT SPOT 1H: a recording resumes only into a file of the same symbol; record into a new file (another --out), or move this one away`,
    );
  });

  it("refuses another interval's file and another category's", () => {
    const p = file('btc-1h.csv', headOf('BTCUSDT', '1H') + rowsOf(3, HOUR));
    expect(() => resumePoint(p, { ...btc1h, interval: '1D' })).toThrow(
      /holds BTCUSDT SPOT 1H candles \(its header\), not BTCUSDT SPOT 1D: .* the same interval/,
    );
    expect(() => resumePoint(p, { ...btc1h, category: 'USDT-FUTURES' })).toThrow(/the same category/);
  });

  it('refuses a file that is not a tradebot candle file (text that happens to end in a number too)', () => {
    expect(() => resumePoint(file('garbage.csv', 'hello\nworld\n0,1,2\n'), btc1h)).toThrow(
      /garbage\.csv exists and is not a tradebot candle file, so a recording cannot resume there/,
    );
  });

  it('refuses a file whose last candles are not of its interval, or whose columns are in another order', () => {
    const minutes = file('minutes.csv', headOf('BTCUSDT', '1H') + rowsOf(5, 60_000));
    expect(() => resumePoint(minutes, btc1h)).toThrow(
      /minutes\.csv: its last candles do not read as 1H candles \(openTime .* is not on a 1H boundary\)/,
    );
    const reordered = file(
      'reordered.csv',
      `${headOf('BTCUSDT', '1H').split('\n')[0]}\nopen,openTime,high,low,close,volume,turnover\n100.5,${T0},101,100,100.75,1,1\n`,
    );
    expect(() => resumePoint(reordered, btc1h)).toThrow(/is no candle of this recorder/);
  });

  it('refuses a folder named like the candle file with a sentence that names it, not a raw EISDIR', () => {
    const folder = join(dir, 'BTCUSDT-1H.csv');
    mkdirSync(folder);
    expect(() => resumePoint(folder, btc1h)).toThrow(
      new RegExp(`^${folder.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is a folder, not a candle file:`),
    );
  });

  it('writes the metadata header into an existing empty file', async () => {
    const p = file('was-empty.csv', '');
    const w = new CandleFileWriter(p, metaOf('BTCUSDT', '1H'));
    w.write([String(T0), '100.5', '101', '100', '100.75', '12.5', '1259.4']);
    await w.close();
    expect(readFileSync(p, 'utf8')).toMatch(/^# tradebot-candles v1 /);
    expect(await read(p)).toHaveLength(1);
  });
});
