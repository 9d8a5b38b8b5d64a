// A live bot asks for a Reality pair's suspension by the pair's company code, its instrument's base coin,
// whatever its symbol is spelled: here a venue whose AAPL token is AAPLONUSDT (stripping USDT off the
// symbol would ask for a company AAPLON, which the venue does not know). The simulator suspends AAPL.
import { describe, expect, it } from 'vitest';
import type { TraderEvent } from '../../../src/execution/trader.js';
import { Decimal } from '../../../src/market/decimal.js';
import { RiskLimitsSchema } from '../../../src/risk/index.js';
import { simInstruments } from '../../../src/sim/index.js';
import type { OrderIntent } from '../../../src/strategy/intent.js';
import { startLiveVenue } from '../../helpers/live-venue.js';
import { waitFor } from '../../helpers/wait-for.js';
import { idle } from './fixtures/strategies.js';

const CREDS = { apiKey: 'susp-key', apiSecret: 'susp-secret', passphrase: 'susp-pass' };
const START = Date.UTC(2026, 10, 23, 15); // Monday 10:00 ET, regular session
const SYMBOL = 'AAPLONUSDT';

describe('the suspension of a Reality pair', () => {
  it('is read by the company code of its instrument, and the gate denies the pair while it lasts', async () => {
    const instruments = simInstruments(START).map((i) =>
      i.wire.symbol === 'AAPLUSDT'
        ? { ...i, wire: { ...i.wire, symbol: SYMBOL }, marketKey: `SPOT:${SYMBOL}` }
        : i,
    );
    const venue = await startLiveVenue({
      credentials: CREDS,
      account: { whitelisted: true, balances: { USDT: '10000' } },
      sim: { seed: 3, speed: 1, startTime: START, instruments, suspendedCodes: ['AAPL'] },
      runtime: { cadences: { tickersMs: 500 }, staleAfterMs: 60_000 },
    });
    const events: TraderEvent[] = [];
    const { bot } = await venue.createLiveBot(
      {
        name: 'susp',
        strategy: idle,
        symbols: [SYMBOL],
        risk: RiskLimitsSchema.parse({ allowedSessions: ['regular'], maxDataAgeMs: 60_000 }),
      },
      { onEvent: (e) => events.push(e) },
    );
    bot.start();
    const market = bot.trader.market;
    await waitFor(
      () => market.suspended(SYMBOL) && market.hasQuote(SYMBOL) && market.session() !== undefined,
      {
        timeoutMs: 10_000,
        what: `the suspension of ${SYMBOL} (company AAPL) in the bot's market state`,
      },
    );
    const intent: OrderIntent = {
      type: 'market',
      side: 'buy',
      symbol: SYMBOL,
      category: 'SPOT',
      quoteAmount: new Decimal('100'),
      tag: 'entry',
      reason: 'test',
    };
    await bot.trader.submit(intent, 0);
    const denied = events.find((e) => e.type === 'denied');
    expect(denied?.type === 'denied' && denied.code).toBe('SUSPENDED');
    expect(venue.sim.engine.orders(CREDS.apiKey)).toHaveLength(0);
  }, 20_000);
});
