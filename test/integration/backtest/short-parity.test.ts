// Backtest/live parity for a short strategy (issue 44), end to end: a MARGIN strategy that sells short, is denied
// a short beyond its leverage, and covers an hour boundary later (so the loan's interest is charged), in the
// backtester and paper traded through the daemon's live pipeline against the simulator replaying the same candles.
// Both must show the same intents, gate decisions, orders, fills and fees, the same interest paid and the same
// final cash and position, to the last decimal, and the simulator's account (the oracle) must agree.
import { describe, expect, it } from 'vitest';
import { runBacktest } from '../../../src/backtest/engine.js';
import { buyToCover, defineStrategy, sellShort, toDecimal, z } from '../../../src/index.js';
import { RiskLimitsSchema } from '../../../src/risk/index.js';
import type { Strategy } from '../../../src/strategy/contract.js';
import {
  createPaperBot,
  describeChainEvent,
  startPaperParity,
  tradeToTheEnd,
} from './fixtures/paper-parity.js';

const MIN = 60_000;
const START = Date.UTC(2026, 10, 23, 20, 25); // Monday 15:25 ET: 16:00 ET (21:00 UTC) is an hour boundary
const N = 50;
const SPEED = 120;
const CREDS = { apiKey: 'sp-key', apiSecret: 'sp-secret', passphrase: 'sp-pass' };

// A wave around 190.00 (cents), open = previous close.
const cents = (i: number) => 19000 + Math.round(40 * Math.sin(i / 4));
const candles = Array.from({ length: N }, (_, i) => {
  const open = cents(i - 1);
  const close = cents(i);
  return {
    openTime: START + i * MIN,
    open: (open / 100).toFixed(2),
    high: ((Math.max(open, close) + 5) / 100).toFixed(2),
    low: ((Math.min(open, close) - 5) / 100).toFixed(2),
    close: (close / 100).toFixed(2),
    volume: '10',
  };
});

/** Candle index -> what the strategy emits when that candle has closed. */
const SCRIPT: Readonly<Record<number, 'short' | 'too-big' | 'cover'>> = {
  3: 'short',
  10: 'too-big',
  44: 'cover',
};

const shortScript = defineStrategy({
  name: 'short-script',
  description: 'Sells 40 short, is denied a short beyond its leverage, covers after 21:00 UTC (parity test).',
  params: z.object({}),
  intervals: ['1m'],
  init: () => ({ n: 0 }),
  onCandle(c, ctx, emit, st) {
    const step = SCRIPT[st.n++];
    if (step === 'short') emit(sellShort(c.symbol, '40', 'short', 'script'));
    if (step === 'too-big') emit(sellShort(c.symbol, '2000', 'too-big', 'script'));
    if (step === 'cover') {
      const held = ctx.portfolio.position(c.symbol).quantity.abs();
      emit(buyToCover(c.symbol, held, toDecimal(c.close * 1.01, 2), 'cover', 'script'));
    }
  },
}) as unknown as Strategy;

const RISK = RiskLimitsSchema.parse({
  allowedSessions: ['regular', 'after_hours'],
  maxDataAgeMs: 3_600_000,
  maxOrderNotional: '1000000',
  whitelisted: true,
});
const FEES = { feeRate: '0.002', makerFeeRate: '0.0005' };
const LEVERAGE = [{ category: 'MARGIN', coin: 'AAPL', leverage: '2' }];

describe('parity of a short strategy between the backtester and paper trading on the simulator', () => {
  it('gives the same intents, gate decisions, orders, fills, fees, interest, cash and position', async () => {
    const { venue, source } = await startPaperParity({
      credentials: CREDS,
      start: START,
      speed: SPEED,
      candles,
      fees: FEES,
      slippageBps: 5,
      tickersMs: 10_000,
    });
    const { sim } = venue;
    await venue.runtime.client.setLeverage({ category: 'MARGIN', coin: 'AAPL', leverage: '2' });

    const backtestSeen: string[] = [];
    const bt = await runBacktest({
      source,
      dataset: 'short-parity',
      bot: 'paper',
      strategy: shortScript,
      risk: RISK,
      capital: '100000',
      ...FEES,
      slippageBps: 5,
      margin: { leverage: { AAPL: '2' } },
      onEvent: (e) => {
        const line = describeChainEvent(e);
        if (line) backtestSeen.push(line);
      },
    });

    const paperSeen: string[] = [];
    const { bot, portfolio } = await createPaperBot(
      venue,
      START,
      { strategy: shortScript, risk: RISK, ...FEES, category: 'MARGIN', leverage: LEVERAGE },
      (e) => {
        const line = describeChainEvent(e);
        if (line) paperSeen.push(line);
      },
    );
    await tradeToTheEnd(bot, START + (N - 1) * MIN, 90_000);
    const paperMargin = portfolio.margin(sim.engine.now());
    await bot.stop();
    const venueBalances = sim.engine.balancesDecimal(CREDS.apiKey);
    await venue.close();

    // Each scripted step happened: a MARGIN short (a taker market sell), its denial beyond the leverage, and a
    // cover that filled.
    for (const want of ['fill short sell', 'denied too-big MARGIN_', 'fill cover buy'])
      expect(
        backtestSeen.some((l) => l.startsWith(want)),
        want,
      ).toBe(true);
    expect(backtestSeen.filter((l) => l.startsWith('order')).every((l) => l.includes(' MARGIN '))).toBe(true);

    // The same chain, event for event.
    expect(paperSeen).toEqual(backtestSeen);

    // The same money, to the last decimal: the backtest, the paper bot's books and the venue's account. The loan
    // crossed 21:00 UTC, so interest was charged at the cover, and both books paid the same.
    const final = bt.portfolio;
    expect(portfolio.cash('USDT').toFixed()).toBe(final.cash.USDT);
    expect(portfolio.position('AAPLUSDT').quantity.toFixed()).toBe(final.positions.AAPLUSDT ?? '0');
    expect(venueBalances.USDT?.available.plus(venueBalances.USDT.frozen).toFixed()).toBe(final.cash.USDT);
    expect(venueBalances.AAPL?.available.toFixed() ?? '0').toBe('0');
    expect(portfolio.fees().toFixed()).toBe(bt.fees);
    expect(paperMargin?.loans).toEqual([]);
    expect(paperMargin?.interestPaid.gt(0)).toBe(true);
  }, 150_000);
});
