// Research reaches everything the strategy has (issue 30): a sweep's grid sets exits and protections as it
// sets parameters (checked against their schema, with a did-you-mean), and sweeps and walk-forward run over
// several symbols in one account, as a backtest of several symbols does, with each symbol's figures.
import { describe, expect, it } from 'vitest';
import { runBacktest } from '../../../src/backtest/engine.js';
import { backtestOptionsOf, openJobSources, type BacktestJob } from '../../../src/backtest/run-config.js';
import { expandDatasetRef } from '../../../src/data/datasets.js';
import { GridError, checkGrid, jobWithSet } from '../../../src/research/grid.js';
import { formatSweep, parseGrid, runSweep } from '../../../src/research/sweep.js';
import { walkForward } from '../../../src/research/walk-forward.js';
import { loadStrategy } from '../../../src/strategy/loader.js';

const RISK = {
  allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'] as (
    'pre_market' | 'regular' | 'after_hours' | 'overnight'
  )[],
  maxDataAgeMs: 604_800_000,
};

const base: BacktestJob = {
  dataset: 'synthetic-1m:3:6000',
  strategy: 'ma-crossover',
  params: { quoteAmount: '1000', fast: 5, slow: 20 },
  capital: '100000',
  feeRate: '0.001',
  slippageBps: 0,
  risk: RISK,
};

const refused = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(GridError);
    return (e as Error).message;
  }
  throw new Error('expected a GridError');
};

describe('grid keys for exits and protections', () => {
  it('takes exits.stopLoss as decimal strings and protections.cooldownAfterStop as whole numbers', async () => {
    const s = await loadStrategy('ma-crossover');
    const g = checkGrid(
      s,
      base.params,
      parseGrid('exits.stopLoss=0.01..0.03:0.01 protections.cooldownAfterStop=2'),
    );
    expect(g.sets).toEqual([
      { 'exits.stopLoss': '0.01', 'protections.cooldownAfterStop': 2 },
      { 'exits.stopLoss': '0.02', 'protections.cooldownAfterStop': 2 },
      { 'exits.stopLoss': '0.03', 'protections.cooldownAfterStop': 2 },
    ]);
    const job = jobWithSet({ ...base, exits: { takeProfit: '0.1' } }, g.sets[1] as Record<string, unknown>);
    expect(job.exits).toEqual({ takeProfit: '0.1', stopLoss: '0.02' });
    expect(job.protections).toEqual({ cooldownAfterStop: 2 });
    expect(job.params).toEqual(base.params);
  });

  it('keeps the job trailing distance when the grid sets the trailing activation', async () => {
    const s = await loadStrategy('ma-crossover');
    const job = { ...base, exits: { trailingStop: { distance: '0.02' } } };
    const g = checkGrid(s, base.params, parseGrid('exits.trailingStop.activation=0,0.01'), job);
    const run = jobWithSet({ ...job, ...g.rules }, g.sets[1] as Record<string, unknown>);
    expect(run.exits).toEqual({ trailingStop: { distance: '0.02', activation: '0.01' } });
    // Without a distance anywhere the activation alone is not an exit: refused with the field.
    expect(refused(() => checkGrid(s, base.params, parseGrid('exits.trailingStop.activation=0.01')))).toMatch(
      /exits\.trailingStop\.activation=0\.01: exits\.trailingStop\.distance/,
    );
  });

  it('refuses an unknown key with a did-you-mean, and a bad value with its field and rule', async () => {
    const s = await loadStrategy('ma-crossover');
    expect(refused(() => checkGrid(s, {}, parseGrid('stopLoss=0.01,0.02')))).toMatch(
      /"stopLoss" is not a parameter of ma-crossover \(did you mean "exits\.stopLoss"\?\).*exits\.NAME or protections\.NAME/,
    );
    expect(refused(() => checkGrid(s, {}, parseGrid('exits.stoplos=0.01')))).toMatch(
      /"exits\.stoplos" is not an exit or a protection \(did you mean "exits\.stopLoss"\?\)/,
    );
    const bad = refused(() =>
      checkGrid(s, {}, parseGrid('exits.stopLoss=abc,-0.1 protections.cooldownAfterStop=-1')),
    );
    expect(bad).toMatch(/exits\.stopLoss=abc is not valid: exits\.stopLoss: stop-loss distance/);
    expect(bad).toMatch(/exits\.stopLoss=-0\.1 is not valid/);
    expect(bad).toMatch(/protections\.cooldownAfterStop=-1 is not valid: protections\.cooldownAfterStop/);
  });

  it('checks the keys of one protection as a whole: maxDrawdown.ratio with the grid maxDrawdown.lockCandles', async () => {
    const s = await loadStrategy('ma-crossover');
    const g = checkGrid(
      s,
      base.params,
      parseGrid('protections.maxDrawdown.ratio=0.1 protections.maxDrawdown.lockCandles=5'),
    );
    expect(g.sets).toEqual([
      { 'protections.maxDrawdown.ratio': '0.1', 'protections.maxDrawdown.lockCandles': 5 },
    ]);
    const job = jobWithSet({ ...base, ...g.rules }, g.sets[0] as Record<string, unknown>);
    expect(job.protections).toEqual({ maxDrawdown: { ratio: '0.1', lockCandles: 5 } });
  });

  it("builds on the strategy's declaration: a grid over one field of a declared protection keeps the others", async () => {
    // bollinger-reversion declares stopLoss 0.03, takeProfit 0.06 and cooldownAfterStop 5.
    const s = await loadStrategy('bollinger-reversion');
    const g = checkGrid(s, {}, parseGrid('exits.takeProfit=0.1'));
    const job = jobWithSet(
      { ...base, strategy: 'bollinger-reversion', params: {}, ...g.rules },
      g.sets[0] as Record<string, unknown>,
    );
    expect(job.exits).toEqual({ stopLoss: '0.03', takeProfit: '0.1' });
    expect(job.protections).toEqual({ cooldownAfterStop: 5 });
  });

  it('refuses a ratio outside its range with the field and the range: exits.stopLoss=5 is 500%', async () => {
    const s = await loadStrategy('ma-crossover');
    expect(refused(() => checkGrid(s, base.params, parseGrid('exits.stopLoss=5')))).toMatch(
      /exits\.stopLoss=5 is not valid: exits\.stopLoss: stop-loss distance below the entry price must be at least 0 and below 1 \(100%\), got 5 \(500%\)/,
    );
    expect(refused(() => checkGrid(s, base.params, parseGrid('exits.trailingStop.distance=1')))).toMatch(
      /exits\.trailingStop\.distance: .*below 1 \(100%\), got 1/,
    );
    expect(
      refused(() =>
        checkGrid(
          s,
          base.params,
          parseGrid('protections.maxDrawdown.ratio=1.5 protections.maxDrawdown.lockCandles=5'),
        ),
      ),
    ).toMatch(/protections\.maxDrawdown\.ratio: .*below 1 \(100%\), got 1\.5/);
  });

  it('takes 0 where 0 means off: cooldownAfterStop=0 runs with no cooldown', async () => {
    const s = await loadStrategy('bollinger-reversion');
    const g = checkGrid(s, {}, parseGrid('protections.cooldownAfterStop=0,5'));
    expect(g.sets).toEqual([{ 'protections.cooldownAfterStop': 0 }, { 'protections.cooldownAfterStop': 5 }]);
    const job = { ...base, strategy: 'bollinger-reversion', params: {}, ...g.rules };
    const runs = await Promise.all(
      g.sets.map(async (set) => {
        const j = jobWithSet(job, set);
        return runBacktest(backtestOptionsOf(j, s, openJobSources(j)));
      }),
    );
    // With no cooldown no entry is locked after a stop: never fewer trades than with a 5-candle cooldown.
    expect(runs[0]?.denials['PROTECTION_LOCK'] ?? 0).toBe(0);
    expect(runs[0]?.trades.length).toBeGreaterThanOrEqual(runs[1]?.trades.length ?? 0);
  });

  it('a sweep over exits.stopLoss runs each stop: the results differ and the rows show the key', async () => {
    const s = await loadStrategy('ma-crossover');
    const grid = parseGrid('exits.stopLoss=0.001,0.5');
    const { sets } = checkGrid(s, base.params, grid);
    const rows = await runSweep({ base, grid, sets, workers: 2 });
    const by = Object.fromEntries(rows.map((r) => [String(r.params['exits.stopLoss']), r]));
    expect(by['0.001']?.tradeHash).toBeDefined();
    expect(by['0.001']?.tradeHash).not.toBe(by['0.5']?.tradeHash);
    // The tight stop is the stop a backtest with that exit runs: the same trades.
    const strategy = await loadStrategy(base.strategy);
    const direct = await runBacktest(
      backtestOptionsOf({ ...base, exits: { stopLoss: '0.001' } }, strategy, openJobSources(base)),
    );
    expect(by['0.001']?.tradeHash).toBe(direct.meta.tradeHash);
    expect(formatSweep(rows, 'sharpe')).toMatch(/exits\.stopLoss/);
  }, 60_000);
});

describe('sweeps and walk-forward over several symbols', () => {
  const refs = expandDatasetRef('synthetic-1m:3:6000:BTCUSDT,ETHUSDT');
  const multi: BacktestJob = { ...base, dataset: refs[0] as string, datasets: refs };

  it('runs every symbol in one account: the metrics are the multi-symbol backtest, with each symbol', async () => {
    const s = await loadStrategy('ma-crossover');
    const grid = parseGrid('fast=5,8');
    const { sets } = checkGrid(s, multi.params, grid);
    const rows = await runSweep({ base: multi, grid, sets, workers: 2 });
    expect(rows).toHaveLength(2);
    for (const r of rows) {
      const direct = await runBacktest(
        backtestOptionsOf(jobWithSet(multi, r.params), s, openJobSources(multi)),
      );
      // Both symbols traded, in the one account a backtest of several symbols uses.
      expect(r.tradeHash).toBe(direct.meta.tradeHash);
      expect(r.metrics?.trades).toBe(direct.trades.length);
      expect(Object.keys(r.bySymbol ?? {})).toEqual(['BTCUSDT', 'ETHUSDT']);
      expect(r.bySymbol).toEqual(direct.bySymbol);
      expect(r.bySymbol?.BTCUSDT?.trades).toBeGreaterThan(0);
      expect(r.bySymbol?.ETHUSDT?.trades).toBeGreaterThan(0);
    }
    expect(formatSweep(rows, 'sharpe')).toMatch(/pnl BTCUSDT +pnl ETHUSDT/);
  }, 60_000);

  it('walk-forward over two symbols trades both out-of-sample, with an exit chosen in-sample', async () => {
    const s = await loadStrategy('ma-crossover');
    const grid = parseGrid('exits.stopLoss=0.002,0.5');
    const { sets } = checkGrid(s, multi.params, grid);
    const wf = await walkForward({
      base: multi,
      grid,
      sets,
      inSampleMs: 1_500 * 60_000,
      outOfSampleMs: 1_500 * 60_000,
      workers: 2,
    });
    expect(wf.steps.length).toBeGreaterThanOrEqual(2);
    const symbols = new Set(wf.steps.flatMap((st) => st.trades.map((t) => t.symbol)));
    expect([...symbols].sort()).toEqual(['BTCUSDT', 'ETHUSDT']);
    for (const st of wf.steps) {
      expect(['0.002', '0.5']).toContain(st.best['exits.stopLoss']);
      expect(Object.keys(st.bySymbol ?? {})).toEqual(['BTCUSDT', 'ETHUSDT']);
    }
  }, 120_000);
});
