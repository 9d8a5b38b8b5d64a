// A sweep's grid is checked against the strategy's parameter schema before any run.
import { describe, expect, it } from 'vitest';
import { GridError, checkGrid } from '../../../src/backtest/grid.js';
import { parseGrid } from '../../../src/backtest/sweep.js';
import { loadStrategy } from '../../../src/strategy/loader.js';

describe('checkGrid', () => {
  it('keeps every valid combination in the grid order and skips those breaking a rule across parameters', async () => {
    const s = await loadStrategy('ma-crossover');
    const g = checkGrid(s, { quoteAmount: '100' }, parseGrid('fast=10,50 slow=30,100'));
    // Typed as the strategy takes them: whole numbers as numbers (what the tables and JSON files show).
    expect(g.sets).toEqual([
      { fast: 10, slow: 30 },
      { fast: 10, slow: 100 },
      { fast: 50, slow: 100 },
    ]);
    expect(g.skipped).toHaveLength(1);
    expect(g.skipped[0]?.params).toEqual({ fast: 50, slow: 30 });
    expect(g.skipped[0]?.reason).toMatch(/slow must be above fast/);
  });

  it('keeps a decimal parameter a decimal string (money is never a JS number)', async () => {
    const s = await loadStrategy('ma-crossover');
    const g = checkGrid(s, {}, parseGrid('quoteAmount=50,100.5'));
    expect(g.sets).toEqual([{ quoteAmount: '50' }, { quoteAmount: '100.5' }]);
  });

  it('lists every bad value at once, each with its parameter and rule', async () => {
    const s = await loadStrategy('ma-crossover');
    let err: unknown;
    try {
      checkGrid(s, {}, parseGrid('fast=abc,0 quoteAmount=5,-5 typo=1'));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(GridError);
    const msg = (err as Error).message;
    expect(msg).toMatch(/fast=abc is not valid: must be a number/);
    expect(msg).toMatch(/fast=0 is not valid: Too small/);
    expect(msg).toMatch(/quoteAmount=-5 is not valid: must be above zero/);
    expect(msg).toMatch(
      /"typo" is not a parameter of ma-crossover; its parameters are fast, slow, quoteAmount/,
    );
    expect(msg).not.toMatch(/fast=10|quoteAmount=5 /);
  });
});
