// Candle files other tools write as text: how their times read, and what is refused, with which line.
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDataset } from '../../../src/data/datasets.js';
import { parseIsoTime } from '../../../src/data/foreign-text.js';
import { candleRows } from '../../helpers/candle-series.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-foreign-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const instrument = {
  symbol: 'AAPLUSDT',
  baseCoin: 'AAPL',
  quoteCoin: 'USDT',
  pricePrecision: '2',
  quantityPrecision: '4',
};
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
/** The candles without their turnover (volume x close when a file has none). */
const candles = async (path: string) =>
  (await candleRows(openDataset(path, { instrument, cacheDir: undefined }))).map((r) => r.slice(0, 6));
const refusal = async (path: string) => {
  try {
    await candles(path);
  } catch (e) {
    return (e as Error).message;
  }
  return 'accepted';
};

describe('ISO times', () => {
  it('reads dates, date-times and offsets; a time without a zone is UTC', () => {
    expect(parseIsoTime('2024-01-02')).toBe(Date.UTC(2024, 0, 2));
    expect(parseIsoTime('2024-01-02 14:30')).toBe(Date.UTC(2024, 0, 2, 14, 30));
    expect(parseIsoTime('2024-01-02T09:30:00-05:00')).toBe(Date.UTC(2024, 0, 2, 14, 30));
    expect(parseIsoTime('2024-01-02 14:30:00+00:00')).toBe(Date.UTC(2024, 0, 2, 14, 30));
    expect(parseIsoTime('2024-01-02T14:30:00.250Z')).toBe(Date.UTC(2024, 0, 2, 14, 30, 0, 250));
    expect(parseIsoTime('2024-01-02T20:00:00+0530')).toBe(Date.UTC(2024, 0, 2, 14, 30));
  });
  it('refuses what names no real time, and other notations', () => {
    for (const s of [
      '2024-02-30',
      '2024-01-02 24:00',
      '2024-13-01',
      '01/02/2024',
      '2024-1-2',
      'Jan 2 2024',
      '',
    ])
      expect(parseIsoTime(s), s).toBeUndefined();
  });
});

describe('a CSV another tool wrote', () => {
  it('maps a header by name (Yahoo: Close, not Adj Close), and infers a daily interval on the UTC grid', async () => {
    const p = file(
      'aapl.csv',
      'Date,Open,High,Low,Close,Adj Close,Volume\n2024-01-02,187.15,188.44,183.89,185.64,184.53,82488700\n2024-01-03,184.22,185.88,183.43,184.25,183.15,58414500\n2024-01-05,181.99,182.76,180.17,181.18,180.10,62303300\n',
    );
    expect(openDataset(p, { instrument, cacheDir: undefined }).meta).toMatchObject({
      symbol: 'AAPLUSDT',
      interval: '1D',
    });
    expect(await candles(p)).toEqual([
      [Date.UTC(2024, 0, 2), 187.15, 188.44, 183.89, 185.64, 82488700],
      [Date.UTC(2024, 0, 3), 184.22, 185.88, 183.43, 184.25, 58414500],
      [Date.UTC(2024, 0, 5), 181.99, 182.76, 180.17, 181.18, 62303300],
    ]);
  });

  it('reads ; and tab separated files, quoted fields and Unix seconds', async () => {
    const t0 = Date.UTC(2024, 0, 2, 14, 30) / 1000;
    const rows = [0, 60, 120].map((s, k) => [t0 + s, 10 + k, 11 + k, 9 + k, 10.5 + k, 100]);
    const semi = file(
      'semi.csv',
      `"time";"open";"high";"low";"close";"volume"\n${rows.map((r) => r.map((x) => `"${x}"`).join(';')).join('\n')}\n`,
    );
    const tab = file(
      'tab.csv',
      `time\topen\thigh\tlow\tclose\tvolume\n${rows.map((r) => r.join('\t')).join('\n')}\n`,
    );
    const expected = rows.map(([t, ...v]) => [(t as number) * 1000, ...v]);
    expect(await candles(semi)).toEqual(expected);
    expect(await candles(tab)).toEqual(expected);
    expect(openDataset(semi, { instrument, cacheDir: undefined }).meta.interval).toBe('1m');
  });

  it('refuses with the line and the fix: unsorted rows, a missing column, a headerless width, a bad time', async () => {
    const head = 'date,open,high,low,close,volume\n';
    expect(
      await refusal(
        file(
          'unsorted.csv',
          `${head}2024-01-02,1,2,1,1,5\n\n2024-01-03,1,2,1,1,5\n2024-01-05,1,2,1,1,5\n2024-01-04,1,2,1,1,5\n`,
        ),
      ),
    ).toMatch(
      /unsorted\.csv:6: openTime \d+ \(2024-01-04T00:00:00Z\) is before the previous \d+ \(2024-01-05T00:00:00Z\): the file must be sorted/,
    );
    expect(await refusal(file('novol.csv', 'date,open,high,low,close\n2024-01-02,1,2,1,1\n'))).toMatch(
      /novol\.csv: no column volume \(it has date, open, high, low, close\)/,
    );
    expect(await refusal(file('eight.csv', '1704153600,1,2,1,1,5,0,0\n'))).toMatch(
      /eight\.csv:1: 8 fields; a file without a header row has 6 fields .* or 12 \(Binance klines\)/,
    );
    expect(await refusal(file('slash.csv', `${head}2024-01-02,1,2,1,1,5\n01/03/2024,1,2,1,1,5\n`))).toMatch(
      /slash\.csv:3: date "01\/03\/2024" is not a time: write Unix seconds or milliseconds, or an ISO date/,
    );
    expect(await refusal(file('compact.csv', `${head}20240102,1,2,1,1,5\n`))).toMatch(
      /compact\.csv:2: date 20240102 is no Unix time \(as seconds it would be 1970-08-23\); write Unix seconds or milliseconds, or an ISO date/,
    );
    expect(
      await refusal(file('comma.csv', `date;open;high;low;close;volume\n2024-01-02;187,15;188;186;187;5\n`)),
    ).toMatch(
      /comma\.csv:2: open "187,15" has a decimal comma; export the file with a decimal point \(187\.15\)/,
    );
    expect(await refusal(file('short.csv', `${head}2024-01-02,1,2,1,1\n`))).toMatch(
      /short\.csv:2: 5 fields where the header names 6/,
    );
  });

  it('asks for the interval when it cannot be told, and for the instrument with an example naming the coins', async () => {
    expect(() =>
      openDataset(file('one.csv', 'date,open,high,low,close,volume\n2024-01-02,1,2,1,1,5\n'), {
        instrument,
        cacheDir: undefined,
      }),
    ).toThrow(
      /one\.csv: .* too few candles to tell it by; name it like freqtrade, <BASE>_<QUOTE>-<timeframe>\.csv \(e\.g\. BTC_USDT-1m\.csv\)/,
    );
    expect(() =>
      openDataset(
        file(
          'odd.csv',
          'date,open,high,low,close,volume\n2024-01-02 00:00,1,2,1,1,5\n2024-01-02 00:07,1,2,1,1,5\n',
        ),
        {
          instrument,
          cacheDir: undefined,
        },
      ),
    ).toThrow(/odd\.csv: .* its first candles are 7 min apart, which is no candle interval \(1m, /);
    const p = file('x.csv', 'date,open,high,low,close,volume\n2024-01-02,1,2,1,1,5\n2024-01-03,1,2,1,1,5\n');
    expect(() => openDataset(p, { cacheDir: undefined })).toThrow(
      /x\.csv carries no instrument rules .*--instrument '\{"symbol":"AAPLUSDT","baseCoin":"AAPL","quoteCoin":"USDT","pricePrecision":"2","quantityPrecision":"4"\}'/,
    );
  });
});

describe("freqtrade's JSON", () => {
  it('takes the pair and timeframe from the name, and refuses a row that is not six numbers', async () => {
    const t = Date.UTC(2024, 0, 2, 14);
    const p = file(
      'ETH_USDT-1h.json',
      JSON.stringify([
        [t, 1, 2, 1, 1.5, 9],
        [t + 3_600_000, 1.5, 2, 1, 1.2, 3],
      ]),
    );
    const src = openDataset(p, {
      instrument: { pricePrecision: '2', quantityPrecision: '4' },
      cacheDir: undefined,
    });
    expect(src.meta).toMatchObject({ symbol: 'ETHUSDT', interval: '1H' });
    expect((await candles(p)).length).toBe(2);
    const bad = file(
      'ETH_USDT-1d.json',
      JSON.stringify([
        [t, 1, 2, 1, 1.5, 9],
        [t, 'x'],
      ]),
    );
    expect(await refusal(bad)).toMatch(
      /ETH_USDT-1d\.json: row 2: \[.*\] is not \[date, open, high, low, close, volume\]/,
    );
  });
});

describe('the columnar cache', () => {
  it('reads a file read whole before from its columns, with the metadata of the instrument given now, never stale', async () => {
    const cache = join(dir, 'cache');
    const t0 = Date.UTC(2024, 0, 2);
    const rowsOf = (closes: number[]) =>
      closes.map(
        (c, i) =>
          `${new Date(t0 + i * 86_400_000).toISOString().slice(0, 10)},${c},${c + 2},${c - 2},${c},100`,
      );
    const p = file('cached.csv', `Date,Open,High,Low,Close,Volume\n${rowsOf([10, 11, 12]).join('\n')}\n`);
    const read = async (given: typeof instrument) => {
      const src = openDataset(p, { instrument: given, cacheDir: cache });
      return { meta: src.meta, rows: (await candleRows(src)).map((r) => r.slice(0, 6)) };
    };
    const entries = () => (existsSync(cache) ? readdirSync(cache).filter((n) => n.endsWith('.arrow')) : []);
    // A refused file leaves nothing behind; opening alone writes nothing; a whole read writes one entry.
    const rows = rowsOf([10, 11, 12, 13]);
    const bad = file(
      'refused.csv',
      `Date,Open,High,Low,Close,Volume\n${[rows[0], rows[1], rows[3], rows[2]].join('\n')}\n`,
    );
    await expect(candleRows(openDataset(bad, { instrument, cacheDir: cache }))).rejects.toThrow(
      /refused\.csv:5: /,
    );
    openDataset(p, { instrument, cacheDir: cache });
    expect(entries()).toEqual([]);
    const first = await read(instrument);
    expect(first.rows.map((r) => r[4])).toEqual([10, 11, 12]);
    expect(entries()).toHaveLength(1);
    // The same bytes, name and instrument: read from the entry (a parse would write it again).
    const entry = join(cache, entries()[0] as string);
    const before = statSync(entry).mtimeMs;
    expect(await read(instrument)).toEqual(first);
    expect(statSync(entry).mtimeMs).toBe(before);
    expect(entries()).toHaveLength(1);
    // Other rules for the same file: the new instrument's metadata, from a second entry.
    const other = { ...instrument, pricePrecision: '3' };
    const again = await read(other);
    expect(again.meta.instrument.pricePrecision).toBe('3');
    expect(again.rows).toEqual(first.rows);
    expect(entries()).toHaveLength(2);
    // An edited file is parsed afresh; an entry that cannot be read is parsed over.
    writeFileSync(p, `Date,Open,High,Low,Close,Volume\n${rowsOf([10, 11, 13]).join('\n')}\n`);
    expect((await read(instrument)).rows.map((r) => r[4])).toEqual([10, 11, 13]);
    for (const e of entries()) writeFileSync(join(cache, e), 'not arrow');
    expect((await read(instrument)).rows.map((r) => r[4])).toEqual([10, 11, 13]);
  });
});
