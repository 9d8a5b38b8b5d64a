// "Did you mean ...?": which name a user most likely meant, and when to say nothing; counts and rules in words.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { closest, counted, didYouMean, plainIssue } from '../../../src/market/spelling.js';

const ENDPOINTS = ['tickers', 'candles', 'history-candles', 'place-reality-order', 'reality-fills', 'fills'];

describe('closest', () => {
  it('takes a typo of a third of the letters at most, case aside', () => {
    expect(closest('fsat', ['fast', 'slow'])).toBe('fast');
    expect(closest('Tikcers', ENDPOINTS)).toBe('tickers');
    expect(closest('quoteAmont', ['quoteAmount', 'fast'])).toBe('quoteAmount');
  });
  it('takes a name holding every part of the typed one, the nearest of several', () => {
    expect(closest('place-order', ENDPOINTS)).toBe('place-reality-order');
    // "fills" and "reality-fills" both hold it; "fills" is nearer.
    expect(closest('fill', ENDPOINTS)).toBe('fills');
    expect(closest('history', ENDPOINTS)).toBe('history-candles');
  });
  it('says nothing for a name that resembles none', () => {
    expect(closest('withdraw', ENDPOINTS)).toBeUndefined();
    expect(closest('x', [])).toBeUndefined();
    expect(didYouMean('withdraw', ENDPOINTS)).toBe('');
    expect(didYouMean('nvda-sesion', ['aapl-ma', 'nvda-session'])).toBe(' (did you mean "nvda-session"?)');
  });
});

describe('counted', () => {
  it('says one in the singular and any other count in the plural', () => {
    expect(counted(1, 'order')).toBe('1 order');
    expect(counted(0, 'order')).toBe('0 orders');
    expect(counted(7, 'fill')).toBe('7 fills');
    expect(counted(2, 'entry', 'entries')).toBe('2 entries');
  });
});

describe('plainIssue', () => {
  const said = (schema: z.ZodType, value: unknown) => {
    const r = schema.safeParse(value, { error: plainIssue });
    return r.success ? undefined : r.error.issues.map((i) => i.message).join('; ');
  };

  it.each([
    [z.number().int(), 2.5, 'must be a whole number'],
    [z.number(), 'abc', 'must be a number'],
    [z.boolean(), 'yes', 'must be true or false'],
    [z.number().min(2), 1, 'must be at least 2'],
    [z.number().gt(0), 0, 'must be above 0'],
    [z.number().max(9), 10, 'must be at most 9'],
    [z.number().lt(1), 1, 'must be below 1'],
    [z.string().min(3), 'ab', 'must have at least 3 characters'],
    [z.array(z.number()).min(1), [], 'must have at least 1 item'],
    [z.number().multipleOf(5), 7, 'must be a multiple of 5'],
    [z.enum(['1m', '5m']), '1h', 'must be one of "1m", "5m"'],
    // A union: the alternative that took the kind of value speaks; else what each one wants.
    [
      z.union([z.boolean(), z.array(z.enum(['regular'], { error: 'each session must be regular' }))]),
      ['lunch'],
      'each session must be regular',
    ],
    [z.union([z.boolean(), z.array(z.string())]), 5, 'must be true or false, or a list'],
  ])('%s refuses %j: %s', (schema, value, sentence) => {
    expect(said(schema, value)).toBe(sentence);
  });

  it("keeps the schema's own message", () => {
    expect(said(z.number().min(100, 'maxDataAgeMs must be at least 100 ms'), 5)).toBe(
      'maxDataAgeMs must be at least 100 ms',
    );
  });
});
