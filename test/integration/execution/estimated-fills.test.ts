// Without whitelist access (`fills: estimated`) on the simulator: a market order is booked from its
// acknowledgement at the touch and marked estimated; a limit order is denied LIMIT_WITHOUT_FILLS;
// once access arrives the pipeline reads the venue's fills from a new baseline (the real fills of the
// estimated orders are not booked twice) and books the next orders from them.
import { describe, expect, it } from 'vitest';
import { ESTIMATED_FILL_PREFIX, type TraderEvent } from '../../../src/execution/trader.js';
import { Decimal } from '../../../src/market/decimal.js';
import { RiskLimitsSchema } from '../../../src/risk/index.js';
import type { OrderIntent } from '../../../src/strategy/index.js';
import { startLiveVenue } from '../../helpers/live-venue.js';
import { waitFor } from '../../helpers/wait-for.js';
import { idle } from './fixtures/strategies.js';

const CREDS = { apiKey: 'est-key', apiSecret: 'est-secret', passphrase: 'est-pass' };
const START = Date.UTC(2026, 10, 23, 15, 0); // Monday 10:00 ET

const intent = (over: Partial<OrderIntent>): OrderIntent =>
  ({
    type: 'market',
    side: 'buy',
    symbol: 'AAPLUSDT',
    category: 'SPOT',
    quoteAmount: new Decimal('300'),
    tag: 'test',
    reason: 'test',
    bot: 'est',
    ...over,
  }) as OrderIntent;

describe('fills: estimated on an account without whitelist access', () => {
  it('books market orders at the touch marked estimated, denies limit orders, and reads real fills once access arrives', async () => {
    const venue = await startLiveVenue({
      credentials: CREDS,
      account: { whitelisted: false, balances: { USDT: '10000' } },
      sim: { seed: 11, speed: 1, startTime: START },
      runtime: { cadences: { tickersMs: 500 }, staleAfterMs: 60_000 },
    });
    const { sim, runtime, store } = venue;
    // The venue refuses the read: the daemon's reason to refuse to start in `venue` mode.
    await expect(runtime.client.realityFills({ symbol: 'AAPLUSDT' })).rejects.toMatchObject({
      code: '90068',
    });
    const events: TraderEvent[] = [];
    const { bot, portfolio } = await venue.createLiveBot(
      {
        name: 'est',
        strategy: idle,
        risk: RiskLimitsSchema.parse({ allowedSessions: ['regular'], maxDataAgeMs: 60_000 }),
        fillPollMs: 200,
        fills: 'estimated',
      },
      { onEvent: (e) => events.push(e) },
    );
    bot.start();
    const trader = bot.trader;
    await waitFor(() => trader.market.rules('AAPLUSDT') !== undefined && trader.market.hasQuote('AAPLUSDT'), {
      timeoutMs: 10_000,
      what: "the bot's rules and quote",
    });
    expect(trader.fillsMode).toBe('estimated');

    await waitFor(() => trader.market.session() !== undefined, { timeoutMs: 10_000, what: 'the session' });
    await trader.submit(intent({}), 0);
    expect(events.filter((e) => e.type === 'denied')).toEqual([]);
    const [est] = store.fills.list({ bot: 'est' });
    expect(est?.execId).toBe(`${ESTIMATED_FILL_PREFIX}${est?.clientOid}`);
    // At the ask or worse, spending the quote amount: the estimate never holds more than the account.
    const ask = trader.market.snapshot('AAPLUSDT')?.ask;
    expect(est?.price.gte(ask ?? 0)).toBe(true);
    const spent = est?.price.mul(est.size) ?? new Decimal(0);
    expect(spent.lte(300) && new Decimal(300).minus(spent).lt('0.000001')).toBe(true);
    const held = sim.engine.balancesDecimal(CREDS.apiKey).AAPL?.available;
    expect(est?.size.lte(held ?? 0)).toBe(true);
    const fillEvent = events.find((e) => e.type === 'fill');
    expect(fillEvent?.type === 'fill' && fillEvent.fill.estimated).toBe(true);
    expect(portfolio.position('AAPLUSDT').quantity.toFixed()).toBe(est?.size.toFixed());

    await trader.submit(
      intent({ type: 'limit', quantity: new Decimal('1'), price: new Decimal('1') } as Partial<OrderIntent>),
      0,
    );
    const denied = events.find((e) => e.type === 'denied');
    expect(denied?.type === 'denied' && denied.code).toBe('LIMIT_WITHOUT_FILLS');
    expect(sim.engine.orders(CREDS.apiKey)).toHaveLength(1);

    // Whitelist access arrives (the simulator has no admin call for it: its account record is flipped).
    const account = sim.engine.credentials.get(CREDS.apiKey) as { whitelisted: boolean };
    account.whitelisted = true;
    await waitFor(() => trader.fillsMode === 'venue', {
      timeoutMs: 10_000,
      what: 'whitelist access to switch the fills to the venue',
    });
    expect(store.meta.get('fill-baseline:AAPLUSDT')).toBeDefined();
    // The estimated order's real fills are behind the baseline: not booked a second time.
    const realOfFirst = sim.engine.fills(CREDS.apiKey).map((f) => f.execId);
    const booked = new Set(store.fills.list().map((f) => f.execId));
    for (const id of realOfFirst) expect(booked.has(id)).toBe(false);

    // Half of it: the estimate may be a little above what the account holds.
    const precision = trader.market.rules('AAPLUSDT')?.quantityPrecision ?? 2;
    const half = (est?.size ?? new Decimal(0)).div(2).toDecimalPlaces(precision, Decimal.ROUND_DOWN);
    const sell: OrderIntent = {
      type: 'market',
      side: 'sell',
      symbol: 'AAPLUSDT',
      category: 'SPOT',
      quantity: half,
      tag: 'test',
      reason: 'test',
      bot: 'est',
    };
    await trader.submit(sell, 0);
    const after = store.fills.list({ bot: 'est' }).filter((f) => f.side === 'sell');
    expect(after.length).toBeGreaterThan(0);
    for (const f of after) expect(f.execId.startsWith(ESTIMATED_FILL_PREFIX)).toBe(false);
    await venue.close();
  }, 60_000);
});
