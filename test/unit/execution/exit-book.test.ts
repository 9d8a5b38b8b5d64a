// The ExitBook on its own, across symbols and across a trade's life: a candle of one symbol never reads
// another symbol's trade, and a trade that closed or reopened is seen at the next candle.
import { describe, expect, it } from 'vitest';
import { ExitBook } from '../../../src/execution/exits.js';
import { Decimal } from '../../../src/market/decimal.js';
import { parseExitRules } from '../../../src/strategy/exits.js';

const book = () =>
  new ExitBook({
    rules: parseExitRules({ stopLoss: '0.1' }, 'test'),
    pricePrecision: () => 2,
    instrument: () => undefined,
    intervalMs: 60_000,
    allowedSessions: ['regular'],
  });
const d = (v: string) => new Decimal(v);
// A candle that opens at `open` (100 unless given) and dips to `low`.
const bar = (t: number, low: number, open = 100) => ({ t, open, high: open + 1, low });

describe('ExitBook', () => {
  it('answers each symbol from its own trade when candles of two symbols alternate', () => {
    const b = book();
    b.onPosition('AAA', d('1'), d('100'), 0); // stop 90
    b.onPosition('BBB', d('2'), d('200'), 0); // stop 180
    expect(b.onBar('AAA', bar(60_000, 95))).toBeUndefined();
    // 95 is under BBB's stop (180), not AAA's (90).
    expect(b.onBar('BBB', bar(60_000, 95, 190))?.trigger?.toFixed()).toBe('180');
    expect(b.onBar('AAA', bar(120_000, 91))).toBeUndefined();
    expect(b.onBar('AAA', bar(180_000, 89))?.trigger?.toFixed()).toBe('90');
  });

  it('sees a trade close and a new one open at once, on the symbol it read last', () => {
    const b = book();
    b.onPosition('AAA', d('1'), d('100'), 0);
    expect(b.onBar('AAA', bar(60_000, 95))).toBeUndefined();
    b.onPosition('AAA', d('0'), d('0'), 90_000); // closed
    expect(b.onBar('AAA', bar(120_000, 50))).toBeUndefined();
    b.onPosition('AAA', d('1'), d('50'), 150_000); // a new trade, stop 45
    expect(b.onBar('AAA', bar(180_000, 46))).toBeUndefined();
    const x = b.onBar('AAA', bar(240_000, 44));
    expect([x?.reason, x?.trigger?.toFixed(), x?.quantity.toFixed()]).toEqual(['stop_loss', '45', '1']);
  });
});
