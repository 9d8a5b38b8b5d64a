// The terminal's status block: a bot paused by the operator reads PAUSED, not ACTIVE.
import { describe, expect, it } from 'vitest';
import { STATUS_LEGEND, statusLines } from '../../../src/daemon/status.js';
import { botStatus as bot } from '../../helpers/bot-status.js';
import { degradedHealth } from '../../helpers/feed-health.js';

const NOW = Date.UTC(2026, 10, 23, 15);

describe('the status block', () => {
  it('shows a paused bot as PAUSED, a paused and halted one as HALTED+PAUSED, and says what PAUSED means', () => {
    const [, ...rows] = statusLines(
      [
        bot('running'),
        bot('paused', { tradingState: 'PAUSED', paused: true }),
        bot('halted', { tradingState: 'HALTED', paused: true }),
      ],
      NOW,
    );
    expect(rows.map((r) => r.split(/\s+/).slice(0, 2).join(' '))).toEqual([
      'running ACTIVE',
      'paused PAUSED',
      'halted HALTED+PAUSED',
    ]);
    expect(STATUS_LEGEND).toMatch(/PAUSED \(paused by the operator: no new entries/);
  });
});

describe('a starving bot in the status block', () => {
  it('reads DEGRADED beside its trading state, and the legend says what that means', () => {
    const starving = degradedHealth(
      'no new candle for 3 min (limit 2 min): the strategy decides on nothing new',
    );
    const [, ...rows] = statusLines(
      [bot('fed'), bot('starving', { health: starving }), bot('both', { paused: true, health: starving })],
      NOW,
    );
    expect(rows.map((r) => r.split(/\s+/).slice(0, 2).join(' '))).toEqual([
      'fed ACTIVE',
      'starving ACTIVE+DEGRADED',
      'both PAUSED+DEGRADED',
    ]);
    expect(STATUS_LEGEND).toMatch(
      /\+DEGRADED: a feed \(candles, prices, fill sync\) is older than its limit/,
    );
  });

  it('shows equity and net PnL exactly as every other surface rounds them (formatMoney: 2 places, half-even)', () => {
    const [, row] = statusLines([bot('a', { equity: '9869.2951', net: '-130.7049' })], NOW);
    expect(row).toContain('pnl -130.70 USDT');
    expect(row).toContain('eq 9869.30 USDT');
  });
});

describe('dust in the status block', () => {
  it('reads flat with the dust beside it, not as a position', () => {
    const [, one, two] = statusLines(
      [
        bot('a', { dust: [{ symbol: 'XAACUSDT', baseCoin: 'XAAC', quantity: '0.0006' }] }),
        bot('b', {
          dust: [
            { symbol: 'XAACUSDT', baseCoin: 'XAAC', quantity: '0.0006' },
            { symbol: 'XAABUSDT', baseCoin: 'XAAB', quantity: '0.004' },
          ],
        }),
      ],
      NOW,
    );
    expect(one).toContain('flat (dust 0.0006 XAAC)');
    expect(two).toContain('flat (dust on 2 symbols)');
    expect(STATUS_LEGEND).toMatch(/dust \(a\s+remainder below the venue's minimum order quantity/);
  });
});
