// bollinger-reversion through the one pipeline: an entry under the lower band sized to lose 1% of the
// equity at the 3% stop-loss, closed by the pipeline's stop-loss at its price, then a cooldown.
import { describe, expect, it } from 'vitest';
import { runBacktest } from '../../../src/backtest/engine.js';
import bollinger from '../../../strategies/bollinger-reversion.js';
import { RISK, caseSource, type Bar } from '../../integration/backtest/fixtures/exit-cases.js';

describe('bollinger-reversion', () => {
  it('risks 1% of equity per trade: entry under the band, stopped out at -3% for a loss of 100 of 10000', async () => {
    // 20 candles alternating 100/101, then a close at 98 (under the lower band), an open at 98 (the
    // entry), and a fall through the stop 98 x 0.97 = 95.06.
    const bars: Bar[] = [
      ...Array.from({ length: 20 }, (_, i): Bar =>
        i % 2 === 0 ? [100, 100.2, 99.8, 100] : [101, 101.2, 100.8, 101],
      ),
      [101, 101, 97.5, 98],
      [98, 98.5, 97.5, 98],
      [98, 98, 94, 95],
      [95, 95.5, 94.5, 95],
    ];
    const r = await runBacktest({
      source: caseSource({ name: 'bb', exits: {}, bars, fills: [] }),
      dataset: 'bollinger',
      strategy: bollinger,
      risk: RISK,
      capital: '10000',
      feeRate: '0',
    });
    // 10000 x 0.01 / 0.03 = 3333.33 USDT at 98: 34.01 AAPL; out at 95.06.
    expect(r.fills.map((f) => `${f.side} ${f.price} ${f.size} ${f.tag}`)).toEqual([
      'buy 98 34.01 lower-band',
      'sell 95.06 34.01 stop_loss',
    ]);
    // (98 - 95.06) x 34.01 = 99.99: 1% of the equity.
    expect(r.finalEquity).toBe('9900.0106');
    // The cooldown after the stop (5 candles) refused the two entries under the band that followed.
    expect(r.denials).toEqual({ PROTECTION_LOCK: 2 });
  });
});
