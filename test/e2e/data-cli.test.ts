// The data commands through the real CLI: record straight to Parquet, convert to Feather and CSV, backtest
// each (same trade hash); a freqtrade-layout Feather file backtests with --instrument and is refused without;
// CSV and JSON files other tools write backtest to the same hash.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { makeTable, tableToIPC } from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { openDataset } from '../../src/data/datasets.js';
import { runCli } from '../helpers/cli.js';
import { candleRows } from '../helpers/candle-series.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-data-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { TRADEBOT_CACHE_DIR: join(dir, 'cache') };
const PARAMS = '{"fast":5,"slow":20,"quoteAmount":"1000"}';

const backtest = async (dataset: string, name: string, extra: string[] = []) => {
  const r = await runCli(
    [
      'backtest',
      '--dataset',
      dataset,
      '--strategy',
      'ma-crossover',
      '--params',
      PARAMS,
      '--out',
      dir,
      '--name',
      name,
      ...extra,
    ],
    env,
    60_000,
  );
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const result = JSON.parse(readFileSync(join(dir, name, 'result.json'), 'utf8')) as {
    meta: { tradeHash: string; candles: number };
    trades: unknown[];
  };
  // A hash of no trades would match anything: each run must trade.
  expect(result.trades.length).toBeGreaterThan(0);
  return { ...result.meta, summary: r.stdout };
};

describe('tradebot record --format and data convert', () => {
  it('records Parquet, converts to Feather and CSV, and backtests all three to the same trade hash', async () => {
    const parquet = join(dir, 'btc-1m.parquet');
    const rec = await runCli(
      [
        'record',
        '--sim',
        '--category',
        'SPOT',
        '--symbol',
        'BTCUSDT',
        '--interval',
        '1m',
        '--from',
        '2026-01-05',
        '--to',
        '2026-01-06',
        '--out',
        parquet,
      ],
      env,
      60_000,
    );
    expect(rec.stderr).toBe('');
    expect(rec.code).toBe(0);
    expect(rec.stdout).toMatch(/wrote 1440 candles to .*btc-1m\.parquet/);
    expect(existsSync(`${parquet}.partial.csv`)).toBe(false);
    const feather = join(dir, 'btc-1m.feather');
    const csv = join(dir, 'btc-1m.csv');
    for (const out of [feather, csv]) {
      const c = await runCli(['data', 'convert', parquet, out], env);
      expect(c.code).toBe(0);
      expect(c.stdout).toMatch(/wrote 1,440 candles/);
    }
    const metas = [
      await backtest(parquet, 'p'),
      await backtest(feather, 'f'),
      await backtest(csv, 'c'),
      await backtest(csv, 'c-cached'), // second read of the CSV comes from the cache
    ];
    expect(metas.map((m) => m.candles)).toEqual([1440, 1440, 1440, 1440]);
    expect(new Set(metas.map((m) => m.tradeHash)).size).toBe(1);

    const again = await runCli(['data', 'convert', parquet, feather], env);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/btc-1m\.feather exists; remove it or pick another name/);
    const badOut = await runCli(['data', 'convert', parquet, join(dir, 'x.txt')], env);
    expect(badOut.code).toBe(2);
    expect(badOut.stderr).toMatch(/end it in \.csv, \.jsonl, \.feather, \.parquet/);
  }, 120_000); // several CLI processes in turn: tens of seconds on a loaded 2-core machine

  it('backtests a freqtrade Feather file given --instrument, and refuses it without one (exit 2)', async () => {
    const src = openDataset(join(dir, 'btc-1m.parquet'));
    const cols: Record<string, number[]> = { date: [], open: [], high: [], low: [], close: [], volume: [] };
    for await (const b of src.batches())
      for (let i = 0; i < b.length; i++) {
        cols.date!.push(b.openTime[i] as number);
        cols.open!.push(b.open[i] as number);
        cols.high!.push(b.high[i] as number);
        cols.low!.push(b.low[i] as number);
        cols.close!.push(b.close[i] as number);
        cols.volume!.push(b.volume[i] as number);
      }
    const table = makeTable(
      Object.fromEntries(Object.entries(cols).map(([k, v]) => [k, Float64Array.from(v)])),
    );
    const path = join(dir, 'BTC_USDT-1m.feather');
    writeFileSync(path, tableToIPC(table, 'file'));

    const refused = await runCli(
      ['backtest', '--dataset', path, '--strategy', 'ma-crossover', '--params', PARAMS, '--out', dir],
      env,
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/BTC_USDT-1m\.feather carries no instrument rules.*--instrument/);

    const instrument = JSON.stringify(src.meta.instrument);
    const ft = await backtest(path, 'ft', ['--instrument', instrument]);
    const ref = await backtest(join(dir, 'btc-1m.parquet'), 'ref');
    expect(ft.candles).toBe(1440);
    expect(ft.tradeHash).toBe(ref.tradeHash);
  }, 120_000); // several CLI processes in turn: tens of seconds on a loaded 2-core machine

  it('backtests the CSV and JSON files other tools write (Yahoo-style, Binance klines, freqtrade JSON) to the same trade hash', async () => {
    const src = openDataset(join(dir, 'btc-1m.parquet'));
    const rows = await candleRows(src);
    // pandas' to_csv of a tz-aware index; "Adj Close" is not the close and must not be read as one.
    const iso = (t: number) => new Date(t).toISOString().replace('T', ' ').replace('.000Z', '+00:00');
    const yahoo = join(dir, 'btc-yahoo.csv');
    writeFileSync(
      yahoo,
      `Datetime,Open,High,Low,Close,Adj Close,Volume\r\n${rows.map(([t, o, h, l, c, v]) => `${iso(t as number)},${o},${h},${l},${c},${(c as number) / 2},${v}`).join('\r\n')}\r\n`,
    );
    // Binance's kline dump: no header, twelve fields, open time in microseconds, quote volume 8th.
    const binance = join(dir, 'BTCUSDT-1m-2026-01.csv');
    writeFileSync(
      binance,
      rows
        .map(
          ([t, o, h, l, c, v, q]) =>
            `${(t as number) * 1000},${o},${h},${l},${c},${v},${(t as number) * 1000 + 59_999_999},${q},7,1,1,0`,
        )
        .join('\n'),
    );
    // freqtrade's JSON (gzipped: its "jsongz"), the pair and timeframe in the name.
    const json = join(dir, 'BTC_USDT-1m.json.gz');
    writeFileSync(json, gzipSync(JSON.stringify(rows.map((r) => r.slice(0, 6)))));

    // No quotePrecision: money is shown at the price's decimals, as a market order's quote amount is rounded.
    const { quotePrecision, ...rest } = src.meta.instrument;
    expect(quotePrecision).toBeDefined();
    const instrument = JSON.stringify(rest);
    const ref = await backtest(join(dir, 'btc-1m.parquet'), 'ref2');
    for (const [file, name] of [
      [yahoo, 'yahoo'],
      [binance, 'binance'],
      [json, 'ftjson'],
    ] as const) {
      const m = await backtest(file, name, ['--instrument', instrument]);
      expect(m.candles, name).toBe(1440);
      expect(m.tradeHash, name).toBe(ref.tradeHash);
      expect(m.summary).toMatch(new RegExp(`final equity +\\d+\\.\\d{${rest.pricePrecision}} \\(from`));
    }

    // A gap in the data (Yahoo writes "null" for a missing day) is refused with its line and the fix.
    const lines = readFileSync(yahoo, 'utf8').split('\r\n');
    lines[4] = (lines[4] as string).replace(/,[\d.]+,/, ',null,');
    const bad = join(dir, 'btc-null.csv');
    writeFileSync(bad, lines.join('\n'));
    const refused = await runCli(
      ['data', 'convert', bad, join(dir, 'x.csv'), '--instrument', instrument],
      env,
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /btc-null\.csv:5: Open "null" is not a number; every candle needs every field \(delete the line, or fill it in\)/,
    );
  }, 120_000);
});
