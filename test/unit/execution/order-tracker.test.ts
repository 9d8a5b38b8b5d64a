// The pipeline's order tracking through the Trader on the in-process venue: an order is attributable from
// before its send, numbered among the sends of its fill router (one account), and let go when it takes no
// more fills (a limit order filled in full, a refused one).
import { describe, expect, it } from 'vitest';
import { FillRouter } from '../../../src/execution/fill-router.js';
import { InProcessVenue } from '../../../src/execution/in-process-venue.js';
import { MemoryJournal } from '../../../src/execution/journal.js';
import { MarketState, Trader } from '../../../src/execution/trader.js';
import { Decimal } from '../../../src/market/decimal.js';
import { parseInstrument } from '../../../src/market/instrument-rules.js';
import { usSessionAt } from '../../../src/market/sessions.js';
import { Portfolio } from '../../../src/portfolio/index.js';
import { RiskGate, RiskLimitsSchema, TradingStateMachine } from '../../../src/risk/index.js';
import { CandleFillModel } from '../../../src/sim/candle-fills.js';
import { limit } from '../../../src/strategy/index.js';

const T = Date.UTC(2026, 10, 23, 15); // Monday 10:00 ET, regular session
const SYMBOL = 'AAPLUSDT';
const FEES = { maker: new Decimal('0.001'), taker: new Decimal('0.001') };
const rules = parseInstrument({
  category: 'SPOT',
  symbol: SYMBOL,
  isReality: 'yes',
  baseCoin: 'AAPL',
  quoteCoin: 'USDT',
  status: 'online',
  pricePrecision: '2',
  quantityPrecision: '4',
  quotePrecision: '4',
  minOrderQty: '0.01',
  minOrderAmount: '1',
});

/**
 * A venue whose market trades at `px` (100 at first: a limit buy below it rests), holding 5000 USDT of the
 * account (the portfolio says 10000, so the venue refuses what the gate lets through), and the market
 * state at 100.
 */
function world() {
  const w = { px: 100 };
  const venue = new InProcessVenue({
    market: new CandleFillModel({
      intervalMs: 60_000,
      pricePrecision: () => 2,
      barAt: (_s, t) => ({ t: t - (t % 60_000), open: w.px, high: w.px, low: w.px, close: w.px }),
    }),
    pairs: [{ symbol: SYMBOL, baseCoin: 'AAPL', quoteCoin: 'USDT', quantityPrecision: 4 }],
    balances: { USDT: new Decimal('5000') },
    fees: FEES,
  });
  venue.setTime(T);
  const market = new MarketState();
  market.setRules(SYMBOL, rules);
  market.setSession(usSessionAt(T));
  Object.assign(market.quote(SYMBOL), { last: '100', bid: '100', ask: '100', ts: T });
  return Object.assign(w, { venue, market });
}

function traderOn(
  w: ReturnType<typeof world>,
  bot: string,
  fillRouter?: FillRouter,
  journal = new MemoryJournal(),
): Trader {
  const limits = RiskLimitsSchema.parse({ allowedSessions: ['regular'] });
  return new Trader({
    bot,
    pairs: [{ symbol: SYMBOL, baseCoin: 'AAPL', quoteCoin: 'USDT' }],
    venue: w.venue,
    journal,
    clock: { now: () => T },
    gate: new RiskGate(limits),
    tradingState: new TradingStateMachine(limits),
    portfolio: new Portfolio({ quoteCoin: 'USDT', cash: { USDT: '10000' } }),
    market: w.market,
    fees: FEES,
    fillRouter,
  });
}

const restingBuy = (bot: string, tag: string) => ({
  ...limit(SYMBOL, 'buy', new Decimal('1'), new Decimal('90'), tag, 'rests below the market'),
  bot,
});

describe('order tracking', () => {
  it('numbers the sends of the bots on one fill router in send order, and each router from one', async () => {
    const w = world();
    const router = new FillRouter({ venue: w.venue, now: () => T });
    const a = traderOn(w, 'a', router);
    const b = traderOn(w, 'b', router);
    await a.submit(restingBuy('a', 'a1'), T);
    await b.submit(restingBuy('b', 'b1'), T);
    await a.submit(restingBuy('a', 'a2'), T);
    const sent = (t: Trader) => t.orders.attributable(SYMBOL).map((x) => x.sent);
    expect(sent(a)).toEqual([1, 3]);
    expect(sent(b)).toEqual([2]);
    // Another account (a backtest run after it in the same process) counts its own sends.
    const other = traderOn(world(), 'c');
    await other.submit(restingBuy('c', 'c1'), T);
    expect(sent(other)).toEqual([1]);
  });

  it('lets an order go once it takes no more fills: a refused one at once, a resting one when filled in full', async () => {
    const w = world();
    const journal = new MemoryJournal();
    const t = traderOn(w, 'a', undefined, journal);
    const refused: string[] = [];
    t.subscribe((e) => {
      if (e.type === 'order' && e.outcome.status === 'rejected') refused.push(e.outcome.code);
    });
    // Within the portfolio's cash, above the venue's balance: the venue refuses it.
    await t.submit(
      { ...limit(SYMBOL, 'buy', new Decimal('60'), new Decimal('99'), 'big', 'refused'), bot: 'a' },
      T,
    );
    expect(refused).toHaveLength(1);
    expect(t.orders.inFlight()).toEqual([]);
    expect(journal.held).toBe(0);

    await t.submit(restingBuy('a', 'rest'), T);
    expect(t.hasOpenOrders).toBe(true);
    // What the resting buy holds, fee reserved, is not free for the strategy: 10000 - 90 x 1.001.
    expect(t.freeCash().toFixed()).toBe('9909.91');
    // The market falls through the limit: the order fills in full and takes no more.
    w.px = 89;
    w.venue.setTime(T + 60_000);
    w.venue.advance();
    expect((await t.syncFills()).map((f) => f.size.toFixed())).toEqual(['1']);
    expect(t.hasOpenOrders).toBe(false);
    expect(t.orders.inFlight()).toEqual([]);
    expect(journal.held).toBe(0);
    expect(t.freeCash().toFixed()).toBe('9909.91');
  });

  it('reads the fills of a symbol once for all the bots that ask while a read runs, and books each bot its own', async () => {
    const w = world();
    const router = new FillRouter({ venue: w.venue, now: () => T });
    const bots = ['a', 'b', 'c', 'd'];
    const traders = bots.map((bot) => traderOn(w, bot, router));
    for (const [i, t] of traders.entries()) await t.submit(restingBuy(bots[i] ?? '', `t${i}`), T);
    w.px = 89;
    w.venue.setTime(T + 60_000);
    w.venue.advance();
    let reads = 0;
    let release = (): void => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const fills = w.venue.fills.bind(w.venue);
    // The first read is held until every bot has asked, as a read over the wire is still running then.
    w.venue.fills = async (symbol: string) => {
      reads++;
      await gate;
      return fills(symbol);
    };
    // One read runs; the other bots' asks all join the one read that waits for it.
    const asks = traders.map((t) => t.syncFills());
    release();
    const booked = await Promise.all(asks);
    expect(reads).toBe(2);
    expect(booked.flat().map((f) => f.size.toFixed())).toContain('1');
    for (const t of traders) expect(t.hasOpenOrders).toBe(false);
  });
});
