// "Did you mean ...?": which name a user most likely meant, and when to say nothing.
import { describe, expect, it } from 'vitest';
import { closest, didYouMean } from '../../../src/market/spelling.js';

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
