import { describe, expect, it } from 'vitest';
import { lossOf, MAX_LOSS } from '../../../src/research/loss.js';
import type { Metrics } from '../../../src/research/metrics.js';

const m = (o: Partial<Metrics>): Metrics =>
  ({ sharpe: 1.5, sortino: 2, calmar: 0.8, totalReturn: 0.2, maxDrawdown: 0.1, trades: 12, ...o }) as Metrics;

describe('hyperopt losses', () => {
  it('are the negated figure to maximise, freqtrade style', () => {
    expect(lossOf('sharpe', m({}))).toBe(-1.5);
    expect(lossOf('sortino', m({}))).toBe(-2);
    expect(lossOf('calmar', m({}))).toBe(-0.8);
    expect(lossOf('profit', m({}))).toBe(-0.2);
    expect(lossOf('max-drawdown', m({}))).toBeCloseTo(-2, 12);
    expect(lossOf('max-drawdown', m({ maxDrawdown: 0 }))).toBe(-0.2);
  });

  it('gives MAX_LOSS to a failed run and to one under the minimum of trades', () => {
    expect(lossOf('sharpe', undefined)).toBe(MAX_LOSS);
    expect(lossOf('sharpe', m({ trades: 4 }), 5)).toBe(MAX_LOSS);
    expect(lossOf('sharpe', m({ trades: 5 }), 5)).toBe(-1.5);
  });
});
