// A sweep's grid is checked against the strategy's parameter schema before any run.
import { describe, expect, it } from 'vitest';
import { GridError, checkGrid } from '../../../src/research/grid.js';
import { parseGrid } from '../../../src/research/sweep.js';
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
    expect(msg).toMatch(/fast=0 is not valid: must be at least 1 \(fast SMA period/);
    expect(msg).toMatch(/quoteAmount=-5 is not valid: must be above zero/);
    expect(msg).toMatch(
      /"typo" is not a parameter of ma-crossover; its parameters are fast, slow, quoteAmount/,
    );
    expect(msg).not.toMatch(/fast=10|quoteAmount=5 /);
  });
});

describe('ranges in a grid', () => {
  it('expands from..to:step exactly in decimal, mixed with single values, `to` included when a step lands on it', async () => {
    expect(parseGrid('fast=5..20:5 slow=100,150..160:10,300')).toEqual({
      fast: ['5', '10', '15', '20'],
      slow: ['100', '150', '160', '300'],
    });
    expect(parseGrid('fast=3..5')).toEqual({ fast: ['3', '4', '5'] });
    // 0.1 + 0.2 is no trouble: the steps are decimal, never binary floating point.
    expect(parseGrid('quoteAmount=0.1..0.5:0.1').quoteAmount).toEqual(['0.1', '0.2', '0.3', '0.4', '0.5']);
    expect(parseGrid('fast=10..25:10').fast).toEqual(['10', '20']);
    const s = await loadStrategy('ma-crossover');
    const g = checkGrid(s, {}, parseGrid('fast=10..20:10 slow=15..30:15 quoteAmount=100'));
    expect(g.sets).toEqual([
      { fast: 10, slow: 15, quoteAmount: '100' },
      { fast: 10, slow: 30, quoteAmount: '100' },
      { fast: 20, slow: 30, quoteAmount: '100' },
    ]);
  });

  it('refuses a range it cannot read, a step of zero, a reversed range and a grid of too many runs, saying what to write', () => {
    const refusal = (spec: string) => {
      try {
        parseGrid(spec);
      } catch (e) {
        expect(e).toBeInstanceOf(GridError);
        return (e as Error).message;
      }
      return 'accepted';
    };
    expect(refusal('fast=a..b')).toMatch(
      /fast=a\.\.b: a range is from\.\.to or from\.\.to:step with numbers, e\.g\. fast=5\.\.50:5/,
    );
    expect(refusal('fast=5..50:0')).toMatch(/the step must be above 0/);
    expect(refusal('fast=50..5:5')).toMatch(/the range starts above its end; write fast=5\.\.50:5/);
    expect(refusal('fast=1..1000000')).toMatch(
      /fast=1\.\.1000000 is 1000000 values \(at most 10,000\); raise the step/,
    );
    expect(refusal('fast=1..1000 slow=1..1000')).toMatch(
      /the grid is 1,000,000 runs \(fast: 1000 x slow: 1000\), more than 100,000/,
    );
  });
});
