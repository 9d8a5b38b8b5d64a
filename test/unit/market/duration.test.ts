import { describe, expect, it } from 'vitest';
import { formatDuration } from '../../../src/market/duration.js';

describe('formatDuration', () => {
  it.each([
    [0, '0 ms'],
    [850, '850 ms'],
    [1000, '1 s'],
    [42_500, '42 s'],
    [180_000, '3 min'],
    [185_000, '3 min 5 s'],
    [10_084_500, '2 h 48 min'],
    [3_600_000, '1 h'],
    [90_061_000, '1 d 1 h'],
    [604_800_000, '7 d'],
    [364 * 86_400_000, '364 d'],
    // A year is 365.25 days: the S&P's 7,193-day drawdown (19 x 365.25 = 6,939.75) reads 19 y 253 d.
    [7193 * 86_400_000, '19 y 253 d'],
    [-65_000, '-1 min 5 s'],
  ])('%d ms reads "%s"', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});
