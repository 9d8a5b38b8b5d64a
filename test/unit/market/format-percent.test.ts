// Ratios on screen: the summary, the report, sweeps and walk-forward print them through formatPercent.
import { describe, expect, it } from 'vitest';
import { formatPercent } from '../../../src/market/decimal.js';

describe('formatPercent', () => {
  it.each([
    [0.0436, 2, '4.36%'],
    [-0.1045, 2, '-10.45%'],
    [0, 2, '0.00%'],
    // Jensen's alpha of a flat strategy: -0.00003 is no loss on screen.
    [-0.00003, 2, '0.00%'],
    [-0.0004, 1, '0.0%'],
    [-0.0006, 1, '-0.1%'],
    [1, 0, '100%'],
    [-0.001, 0, '0%'],
    [Number.NaN, 2, '—'],
    [Infinity, 2, '—'],
  ])('%d with %d places reads %s', (ratio, places, text) => {
    expect(formatPercent(ratio, places)).toBe(text);
  });
});
