// "Did you mean ...?": which name a user most likely meant, and when to say nothing.
import { describe, expect, it } from 'vitest';
import { closest, counted, didYouMean } from '../../../src/market/spelling.js';

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
