// Backtests over several symbols and the lookahead check, through the tradebot command.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-multi-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const yaml = (name: string, body: string): string => {
  const f = join(dir, `${name}.yaml`);
  writeFileSync(f, body);
  return f;
};
const RISK = `risk:\n  allowedSessions: [pre_market, regular, after_hours, overnight]\n  maxDataAgeMs: 604800000\n`;

describe('tradebot backtest over several symbols', () => {
  it('writes per-symbol results (decimal strings) to result.json and the report', async () => {
    const f = yaml(
      'two',
      `name: two\ndataset: synthetic-1m:7:4000:AAAUSDT,BBBUSDT\nstrategy: ma-crossover\nparams: { fast: 10, slow: 40, quoteAmount: '1000' }\n${RISK}`,
    );
    const r = await runCli(['backtest', '--config', f, '--out', dir]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // The benchmark of several symbols holds each with an equal part of the capital, and says so.
    expect(r.stdout).toMatch(/^buy & hold \(equal weight\) +-?\d+\.\d\d%; excess/m);
    const result = JSON.parse(readFileSync(join(dir, 'two', 'result.json'), 'utf8')) as {
      meta: { symbols: string[]; candles: number };
      bySymbol: Record<
        string,
        { trades: number; fills: number; pnl: string; fees: string; position: string }
      >;
    };
    expect(result.meta.symbols).toEqual(['AAAUSDT', 'BBBUSDT']);
    expect(result.meta.candles).toBe(8000);
    for (const s of ['AAAUSDT', 'BBBUSDT']) {
      const x = result.bySymbol[s];
      expect(x?.trades).toBeGreaterThan(0);
      expect(x?.pnl).toMatch(/^-?\d+(\.\d+)?$/);
      expect(x?.fees).toMatch(/^\d+(\.\d+)?$/);
    }
    const html = readFileSync(join(dir, 'two', 'report.html'), 'utf8');
    expect(html).toContain('<th>Realised PnL</th><th>Position</th>');
    expect(html).toContain('<td>AAAUSDT</td>');
    expect(html).toContain('<td>BBBUSDT</td>');
    // The chart is the first symbol's: its caption counts that symbol's candles and fills, not the run's.
    const aaa = result.bySymbol.AAAUSDT;
    expect(html).toMatch(new RegExp(`4,000 bars for 4,000 candles; \\d+ markers for ${aaa?.fills} fills`));
    // Times in UTC, said once.
    expect(html).toContain('Times in UTC; money in USDT');
  });

  it('sweeps both symbols in one account, ranks on it and shows each symbol, with an exit in the grid', async () => {
    const f = yaml(
      'swept',
      `name: swept\ndataset: synthetic-1m:7:4000:AAAUSDT,BBBUSDT\nstrategy: ma-crossover\nparams: { fast: 10, slow: 40, quoteAmount: '1000' }\n${RISK}`,
    );
    const grid = 'fast=5,10 exits.stopLoss=0.002,0.05';
    const sweep = await runCli(['sweep', '-c', f, '--grid', grid, '--workers', '2', '--out', dir]);
    expect(sweep.stderr).toBe('');
    expect(sweep.code).toBe(0);
    expect(sweep.stdout).toMatch(/sorted by sharpe \(2 symbols in one account/);
    expect(sweep.stdout).toMatch(/fast +exits\.stopLoss +sharpe .* pnl AAAUSDT +pnl BBBUSDT/);
    const rows = JSON.parse(readFileSync(join(dir, 'swept-sweep', 'sweep.json'), 'utf8')) as {
      params: Record<string, unknown>;
      metrics: { trades: number; sharpe: number };
      bySymbol: Record<string, { trades: number; pnl: string }>;
    }[];
    expect(rows).toHaveLength(4);
    // Ranked on the account's figure, best first.
    const sharpes = rows.map((r) => r.metrics.sharpe);
    expect(sharpes).toEqual([...sharpes].sort((a, b) => b - a));
    for (const r of rows) {
      expect(Object.keys(r.bySymbol)).toEqual(['AAAUSDT', 'BBBUSDT']);
      // The account's round trips are those of its symbols.
      expect(r.metrics.trades).toBe(r.bySymbol.AAAUSDT!.trades + r.bySymbol.BBBUSDT!.trades);
    }
    const html = readFileSync(join(dir, 'swept-sweep', 'sweep.html'), 'utf8');
    expect(html).toContain('<th data-sort>pnl BBBUSDT</th>');
    expect(html).toContain('<th data-sort>exits.stopLoss</th>');
  });
});

describe('tradebot lookahead', () => {
  it('exits 1 and names the signal and the candle when a strategy peeks one candle ahead', async () => {
    const f = yaml(
      'peek',
      `dataset: synthetic-1m:3:300:AAAUSDT,BBBUSDT\nstrategy: ${join(import.meta.dirname, 'fixtures', 'peek-ahead.mjs')}\n${RISK}`,
    );
    const r = await runCli(['lookahead', '--config', f, '--cuts', '5']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('LOOKAHEAD: 1 signal changes when future candles are removed');
    expect(r.stdout).toMatch(
      / {2}next-close on AAAUSDT candle \d{4}-\d\d-\d\dT[\d:]+Z: [\d.]+ with all the data/,
    );
  });

  it('exits 0 for a bundled strategy', async () => {
    const f = yaml(
      'clean',
      `dataset: synthetic-1m:3:600:AAAUSDT,BBBUSDT\nstrategy: ma-crossover\nparams: { fast: 5, slow: 20, quoteAmount: '1000' }\n${RISK}`,
    );
    const r = await runCli(['lookahead', '--config', f, '--cuts', '5']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('no lookahead');
    expect(r.stdout).toMatch(/signals \(intent, sma-fast, sma-slow\)/);
    // Every symbol's candles are counted: 2 x 600, in 600 time steps.
    expect(r.stdout).toMatch(/, 1,200 candles \(2 symbols, 600 time steps\), \d+ cuts/);
    // Its warm-up (slow) is long enough for its SMAs: the same signals with 2 and 4 times as much history.
    expect(r.stdout).toMatch(
      /recursive: warm-up 20 candles \([^)]+\); the start \S+ replayed with 20, 40 and 80 candles of history/,
    );
    expect(r.stdout).toContain('warm-up long enough');
  });

  const emaRun = async (startup: number) => {
    const f = yaml(
      `ema-${startup}`,
      `dataset: synthetic-1m:3:2000:AAAUSDT,BBBUSDT\nstrategy: ${join(import.meta.dirname, 'fixtures', 'ema-warm-up.mjs')}\nparams: { period: 50, startup: ${startup} }\n${RISK}`,
    );
    return runCli(['lookahead', '--config', f, '--cuts', '3']);
  };

  it('exits 1 when the declared warm-up is too short for the strategy (an EMA of 50 with startupCandles 5)', async () => {
    const r = await emaRun(5);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('no lookahead');
    expect(r.stdout).toMatch(/replayed with 5, 10 and 20 candles of history/);
    expect(r.stdout).toMatch(
      /WARM-UP TOO SHORT: intents and indicators differ at \S+ with more history .*declare a larger startupCandles/,
    );
    expect(r.stdout).toMatch(
      / {2}ema on AAAUSDT candle \S+: \(none\) with 5 candles, \(none\) with 10 candles, [\d.]+ with 20 candles/,
    );
  });

  it('exits 0 when the declared warm-up is several times the EMA period', async () => {
    const r = await emaRun(300);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/replayed with 300, 600 and 1200 candles of history/);
    expect(r.stdout).toContain('warm-up long enough');
  });

  it('exits 3, not 0, when the recursive check could not run: the data is too short for 4 times the warm-up', async () => {
    const f = yaml(
      'ema-short-data',
      `dataset: synthetic-1m:3:600:AAAUSDT,BBBUSDT\nstrategy: ${join(import.meta.dirname, 'fixtures', 'ema-warm-up.mjs')}\nparams: { period: 50, startup: 300 }\n${RISK}`,
    );
    const r = await runCli(['lookahead', '--config', f, '--cuts', '3']);
    expect(r.code).toBe(3);
    expect(r.stdout).toContain('no lookahead');
    expect(r.stdout).toContain(
      'recursive check not run: warm-up 300 candles (declared); comparing it with 1200 candles of history needs 1,201 candles, the data has 600',
    );
    expect(r.stdout).toContain('NOT A PASS: the recursive check did not run (exit 3)');
    expect(r.stdout).not.toContain('warm-up long enough');
  });

  it('says in its help what each exit code means', async () => {
    const r = await runCli(['lookahead', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/ {2}0 {2}both checks ran/);
    expect(r.stdout).toMatch(/ {2}3 {2}a check did not run/);
  });

  it('exits 2 on bad input', async () => {
    expect((await runCli(['lookahead'])).code).toBe(2);
    const bad = yaml('bad', `dataset: []\nstrategy: ma-crossover\n`);
    const r = await runCli(['lookahead', '--config', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/dataset/);
    const cuts = await runCli(['lookahead', '--config', bad, '--cuts', '0']);
    expect(cuts.code).toBe(2);
  });
});
