// Every path a command writes to (backtest and record --out, data convert OUT, new --dir, the candle cache) goes
// through one check before anything is written: /proc or a file in the way is a sentence naming the flag with exit
// 2, never a process spinning in a recursive mkdir or a raw EEXIST; a run name never reaches outside --out (issue 28).
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeCandles } from '../../src/data/convert.js';
import { syntheticSource } from '../../src/data/synthetic.js';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-output-paths-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/** A command that spins is killed after this long (runCli then answers code null). */
const CAP_MS = 20_000;
const STACK = /\n\s+at /;
const bt = ['backtest', '--dataset', 'synthetic-1m:7:600', '--strategy', 'ma-crossover'];
// Refused before the embedded simulator starts: nothing here depends on the day it runs.
const rec = (out: string) => [
  ...['record', '--sim', '--category', 'SPOT', '--symbol', 'BTCUSDT', '--interval', '1H'],
  ...['--from', '2026-01-01', '--to', '2026-01-03', '--out', out],
];

describe('output paths: one check, a sentence and exit 2', () => {
  const file = join(dir, 'a-file');
  writeFileSync(file, 'x');
  const rows: [string, string[], RegExp][] = [
    [
      'backtest --out under /proc',
      [...bt, '--out', '/proc/tradebot-x'],
      /--out \/proc\/tradebot-x\/backtest is on \/proc, a virtual file system that cannot hold files: point --out at a folder on a disk/,
    ],
    [
      'backtest --out a file',
      [...bt, '--out', file],
      /--out \S+a-file\/backtest cannot be created: \S+a-file is a file, not a folder; point --out elsewhere/,
    ],
    [
      'record --out under /proc',
      rec('/proc/tradebot-x/btc.csv'),
      /--out \/proc\/tradebot-x\/btc\.csv is on \/proc, a virtual file system/,
    ],
    ['record --out a file under /proc itself', rec('/proc/x.csv'), /--out \/proc\/x\.csv is on \/proc/],
    [
      'record --out inside a file',
      rec(join(file, 'x.csv')),
      /--out \S+a-file\/x\.csv cannot be created: \S+a-file is a file, not a folder; point --out elsewhere/,
    ],
    [
      'data convert to /proc',
      ['data', 'convert', 'synthetic-1m:1:10', '/proc/tradebot-x/x.csv'],
      /OUT \/proc\/tradebot-x\/x\.csv is on \/proc, a virtual file system/,
    ],
    [
      'new strategy --dir under /proc',
      ['new', 'strategy', 'bb-revert', '--dir', '/proc/tradebot-x/strategies'],
      /--dir \/proc\/tradebot-x\/strategies is on \/proc, a virtual file system/,
    ],
  ];
  it.each(rows)('%s', async (_name, args, message) => {
    const r = await runCli(args, {}, CAP_MS);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(STACK);
  });

  it('data convert makes the folder of OUT', async () => {
    const out = join(dir, 'converted', 'deeper', 'x.csv');
    const r = await runCli(['data', 'convert', 'synthetic-1m:1:10', out], {}, CAP_MS);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toMatch(/^# tradebot-candles v1 /);
  });

  it('a candle cache under /proc costs the cache, never the run', async () => {
    const csv = join(dir, 'syn.csv');
    await writeCandles(csv, syntheticSource({ seed: 3, count: 300 }));
    const out = join(dir, 'cache-run');
    const r = await runCli(
      ['backtest', '--dataset', csv, '--strategy', 'ma-crossover', '--out', out],
      { TRADEBOT_CACHE_DIR: '/proc/tradebot-cache' },
      CAP_MS,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(out, 'backtest', 'result.json'))).toBe(true);
  });
});

describe('the run name', () => {
  it('is checked from --name with --config too, so results never land outside --out', async () => {
    const out = join(dir, 'results', 'inner');
    mkdirSync(out, { recursive: true });
    const cfg = join(dir, 'bt.yaml');
    writeFileSync(cfg, 'name: sp500-ma\ndataset: synthetic-1m:7:600\nstrategy: ma-crossover\n');
    for (const args of [
      ['backtest', '--config', cfg, '--out', out, '--name', '../../escaped'],
      [...bt, '--out', out, '--name', '../../escaped'],
    ]) {
      const r = await runCli(args, {}, CAP_MS);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/--name: name must be lower-case letters, digits and dashes/);
    }
    expect(existsSync(join(dir, 'escaped'))).toBe(false);
    expect(readdirSync(out)).toEqual([]);
  });
});
