// Backtest/live parity, end to end: one strategy on one recorded dataset, in the backtester and paper
// traded against the simulator replaying the same candles in (accelerated) real time through the daemon's
// live pipeline (RestClient, feeds, risk gate, executor, fills over the wire). Both sides must show the
// same intents, the same gate decisions, the same orders (clientOids, sizes, prices), the same fills
// (price, size, fee, maker/taker) and the same final cash and position, to the last decimal.
import { describe, expect, it } from 'vitest';
import { runBacktest } from '../../../src/backtest/engine.js';
import { RiskLimitsSchema } from '../../../src/risk/index.js';
import {
  createPaperBot,
  describeChainEvent,
  startPaperParity,
  tradeToTheEnd,
} from './fixtures/paper-parity.js';
import scripted, { SCRIPT } from './fixtures/scripted.js';

const MIN = 60_000;
const START = Date.UTC(2026, 10, 23, 20, 25); // Monday 15:25 ET: the close (16:00) falls inside the run
const N = 50;
const SPEED = 120; // one candle every half second of wall time
const RESUMES = START + 8 * MIN; // AAPL is suspended until then
const CREDS = { apiKey: 'p-key', apiSecret: 'p-secret', passphrase: 'p-pass' };

// The recorded dataset: a gentle wave around 190.00 (cents), open = previous close, with one dip through
// the resting buy (candle 18) and one spike through the resting sell (candle 27).
const cents = (i: number) => 19000 + Math.round(30 * Math.sin(i / 3));
const candles = Array.from({ length: N }, (_, i) => {
  const open = cents(i - 1);
  const close = cents(i);
  const high = Math.max(open, close) + 5 + (i === 27 ? 100 : 0);
  const low = Math.min(open, close) - 5 - (i === 18 ? 100 : 0);
  return {
    openTime: START + i * MIN,
    open: (open / 100).toFixed(2),
    high: (high / 100).toFixed(2),
    low: (low / 100).toFixed(2),
    close: (close / 100).toFixed(2),
    volume: '10',
  };
});

const RISK = RiskLimitsSchema.parse({
  allowedSessions: ['regular'],
  maxDataAgeMs: 3_600_000,
  maxOrderNotional: '3000',
  whitelisted: true,
});
const FEES = { feeRate: '0.002', makerFeeRate: '0.0005' };
const SLIPPAGE_BPS = 5;

describe('parity between the backtester and paper trading on the simulator', () => {
  it('gives the same intents, gate decisions, orders, fills, fees, cash and position', async () => {
    const { venue, source } = await startPaperParity({
      credentials: CREDS,
      start: START,
      speed: SPEED,
      candles,
      fees: FEES,
      slippageBps: SLIPPAGE_BPS,
      tickersMs: 10_000,
      suspendedCodes: ['AAPL'],
    });
    const { sim } = venue;

    // Backtest.
    const backtestSeen: string[] = [];
    const bt = await runBacktest({
      source,
      dataset: 'parity',
      bot: 'paper',
      strategy: scripted,
      risk: RISK,
      capital: '100000',
      ...FEES,
      slippageBps: SLIPPAGE_BPS,
      suspended: (_s, t) => t < RESUMES,
      onEvent: (e) => {
        const line = describeChainEvent(e);
        if (line) backtestSeen.push(line);
      },
    });

    // Paper trading: the simulator lifts the suspension when its clock passes RESUMES.
    const resume = setInterval(() => {
      if (sim.engine.now() >= RESUMES) sim.engine.setSuspended('AAPL', false);
    }, 10);
    const paperSeen: string[] = [];
    const { bot, portfolio } = await createPaperBot(
      venue,
      START,
      { strategy: scripted, risk: RISK, ...FEES },
      (e) => {
        const line = describeChainEvent(e);
        if (line) paperSeen.push(line);
      },
    );
    await tradeToTheEnd(bot, START + (N - 1) * MIN, 60_000);
    await bot.stop();
    clearInterval(resume);
    const venueBalances = sim.engine.balancesDecimal(CREDS.apiKey);
    await venue.close();

    // Every scripted step happened, and each kind of event is there.
    expect(backtestSeen.filter((l) => l.startsWith('intent'))).toHaveLength(Object.keys(SCRIPT).length);
    for (const want of [
      'denied while-suspended SUSPENDED',
      'denied too-big MAX_NOTIONAL_ORDER',
      'denied after-close SESSION_NOT_ALLOWED',
      'fill market-buy buy',
      'fill resting-buy buy',
      'fill marketable-sell sell',
      'fill resting-sell sell',
    ])
      expect(backtestSeen.some((l) => l.startsWith(want))).toBe(true);
    expect(backtestSeen.filter((l) => l.endsWith(' maker'))).toHaveLength(2);
    expect(backtestSeen.filter((l) => l.startsWith('fill') && l.endsWith(' taker'))).toHaveLength(2);

    // The same chain, event for event.
    expect(paperSeen).toEqual(backtestSeen);

    // The same money, to the last decimal: the backtest, the paper bot's books and the venue's account.
    const final = bt.portfolio;
    expect(portfolio.cash('USDT').toFixed()).toBe(final.cash.USDT);
    expect(portfolio.position('AAPLUSDT').quantity.toFixed()).toBe(final.positions.AAPLUSDT);
    expect(venueBalances.USDT?.available.plus(venueBalances.USDT.frozen).toFixed()).toBe(final.cash.USDT);
    expect(portfolio.fees().toFixed()).toBe(bt.fees);
  }, 120_000);
});
