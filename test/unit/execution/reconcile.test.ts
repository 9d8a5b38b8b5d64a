// Reconciliation after a restart, on a real SQLite journal: an order journaled but never sent (the process
// died in between) is sent once under its clientOid, its fill is pulled into the rebuilt portfolio, and a
// second reconciliation sends nothing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InProcessVenue } from '../../../src/execution/in-process-venue.js';
import { storeJournal } from '../../../src/execution/journal.js';
import { reconcile } from '../../../src/execution/reconcile.js';
import { MarketState, Trader } from '../../../src/execution/trader.js';
import { Decimal } from '../../../src/market/decimal.js';
import { Portfolio } from '../../../src/portfolio/index.js';
import { RiskGate, RiskLimitsSchema, TradingStateMachine } from '../../../src/risk/index.js';
import { CandleFillModel } from '../../../src/sim/candle-fills.js';
import { openStore } from '../../../src/store/index.js';

const T = 1_795_446_000_000;
const dir = mkdtempSync(join(tmpdir(), 'tradebot-reconcile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('reconcile', () => {
  it('sends a journaled order that never left exactly once, and books its fill', async () => {
    const path = join(dir, 'journal.db');
    const clock = { now: () => T };
    // The first run journaled the order and died before sending it.
    const first = openStore(path, { clock });
    first.orders.journal({
      bot: 'b',
      order: {
        category: 'SPOT',
        symbol: 'AAPLUSDT',
        side: 'buy',
        orderType: 'market',
        qty: '100',
        clientOid: 'tb-r1',
      },
    });
    first.close();

    const venue = new InProcessVenue({
      market: new CandleFillModel({
        intervalMs: 60_000,
        pricePrecision: () => 2,
        barAt: (_s, t) => ({ t: t - (t % 60_000), open: 50, high: 51, low: 49, close: 50 }),
      }),
      pairs: [{ symbol: 'AAPLUSDT', baseCoin: 'AAPL', quoteCoin: 'USDT', quantityPrecision: 4 }],
      balances: { USDT: new Decimal('1000') },
      fees: { maker: new Decimal('0.001'), taker: new Decimal('0.001') },
    });
    venue.setTime(T);
    const store = openStore(path, { clock });
    const limits = RiskLimitsSchema.parse({});
    const portfolio = Portfolio.fromFills(store.fills.list({ bot: 'b' }), {
      quoteCoin: 'USDT',
      cash: { USDT: '1000' },
    });
    const trader = new Trader({
      bot: 'b',
      pairs: [{ symbol: 'AAPLUSDT', baseCoin: 'AAPL', quoteCoin: 'USDT' }],
      venue,
      journal: storeJournal(store),
      clock,
      gate: new RiskGate(limits),
      tradingState: new TradingStateMachine(limits),
      portfolio,
      market: new MarketState(),
      fees: { maker: new Decimal('0.001'), taker: new Decimal('0.001') },
    });
    const r = await reconcile({ store, trader, bot: 'b' });
    expect(r.resent.map((o) => o.status)).toEqual(['acked']);
    expect(r.newFills).toBe(1);
    // 100 USDT at 50: 2 AAPL, fee 0.1 USDT.
    expect(portfolio.position('AAPLUSDT').quantity.toFixed()).toBe('2');
    expect(portfolio.cash('USDT').toFixed()).toBe('899.9');
    expect(store.fills.list({ bot: 'b' })).toHaveLength(1);
    const again = await reconcile({ store, trader, bot: 'b' });
    expect(again).toEqual({ resent: [], newFills: 0 });
    store.close();
  });
});
