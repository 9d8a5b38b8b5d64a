import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Decimal } from '../../../src/market/decimal.js';
import {
  decimalParam,
  describeParams,
  paramsSchemaProblems,
  parseStrategyParams,
} from '../../../src/strategy/params.js';

const s = {
  name: 'demo',
  params: z.object({
    period: z.number().int().min(2).default(14).describe('period, in candles'),
    amount: decimalParam('100', 'quote coin per entry'),
    enabled: z.boolean().describe('whether to trade').default(true),
  }),
};

describe('strategy parameters', () => {
  it('describes each parameter with its description and config-side default', () => {
    expect(describeParams(s.params)).toEqual([
      { name: 'period', description: 'period, in candles', default: 14, hasDefault: true },
      { name: 'amount', description: 'quote coin per entry', default: '100', hasDefault: true },
      { name: 'enabled', description: 'whether to trade', default: true, hasDefault: true },
    ]);
    expect(paramsSchemaProblems(s.params)).toEqual([]);
    expect(paramsSchemaProblems({ not: 'zod' })).toEqual([
      expect.stringMatching(/params must be a zod object schema/),
    ]);
  });

  it('parses decimal strings exactly, and refuses numbers, zero, negatives and junk', () => {
    expect(parseStrategyParams(s, { amount: ' 0.1000000000000000055511151231257827 ' }).amount).toEqual(
      new Decimal('0.1000000000000000055511151231257827'),
    );
    for (const [raw, why] of [
      [100, /must be a decimal string, got the number 100: quote it as "100"/],
      ['0', /must be above zero/],
      ['-1', /got "-1"/],
      ['1e3', /got "1e3"/],
    ] as const) {
      expect(() => parseStrategyParams(s, { amount: raw })).toThrow(why);
    }
    expect(decimalParam('0', 'x', { allowZero: true }).parse('0')).toEqual(new Decimal(0));
  });

  it('refuses a number written in quotes with the fix, whichever command reads it', () => {
    expect(() => parseStrategyParams(s, { period: '14' })).toThrow(
      /parameter "period": must be a number — got "14": write 14 without quotes \(period, in candles; default 14\)/,
    );
    // A string that is no number gets no such advice.
    expect(() => parseStrategyParams(s, { period: 'x' })).toThrow(/must be a number — got "x" \(/);
  });

  it('round-trips any decimal string to the same Decimal', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 30n }),
        fc.integer({ min: 0, max: 18 }),
        (units, scale) => {
          const str =
            scale === 0
              ? units.toString()
              : new Decimal(units.toString()).div(new Decimal(10).pow(scale)).toFixed();
          expect(parseStrategyParams(s, { amount: str }).amount.toFixed()).toBe(new Decimal(str).toFixed());
        },
      ),
    );
  });
});
