// The backtest engine: pinned trade hash, no lookahead, sessions and holidays, fees and slippage.
import { describe, expect, it } from 'vitest';
import { closesSeries } from '../../helpers/candle-series.js';
import { z } from 'zod';
import { openDataset } from '../../../src/data/datasets.js';
import { runBacktest } from '../../../src/backtest/engine.js';
import { formatSummary, metricsOf } from '../../../src/research/metrics.js';
import { renderReport } from '../../../src/research/report.js';
import { Decimal } from '../../../src/market/decimal.js';
import { RiskLimitsSchema } from '../../../src/risk/index.js';
import { buyMarket, defineStrategy, sellMarket } from '../../../src/strategy/index.js';
import { loadStrategy } from '../../../src/strategy/loader.js';

const ALL = RiskLimitsSchema.parse({
  allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'],
  maxDataAgeMs: 604_800_000,
});

const series = closesSeries;

// Buys on the first candle, sells on the third: the simplest way to see when fills happen.
const buyThenSell = defineStrategy({
  name: 'buy-then-sell',
  description: 'test',
  params: z.object({}),
  intervals: ['1m', '1D'],
  init: () => ({ n: 0 }),
  onCandle(c, ctx, emit, st) {
    st.n++;
    if (st.n === 1) emit(buyMarket(c.symbol, new Decimal('1000'), 'in', 'first candle'));
    const held = ctx.portfolio.position(c.symbol).quantity;
    if (st.n === 3 && held.gt(0)) emit(sellMarket(c.symbol, held, 'out', 'third candle'));
  },
});

const MONDAY_1000_ET = Date.UTC(2026, 10, 23, 15, 0);

describe('backtest engine', () => {
  it('pins the trade-list hash of the S&P 500 dataset with ma-crossover (config/backtest.yaml)', async () => {
    const strategy = await loadStrategy('ma-crossover');
    const run = () =>
      runBacktest({
        source: openDataset('sp500-daily'),
        dataset: 'sp500-daily',
        strategy,
        params: { fast: 20, slow: 100, quoteAmount: '5000' },
        risk: ALL,
        capital: '10000',
        feeRate: '0.001',
        slippageBps: 2,
      });
    const a = await run();
    expect(a.meta.tradeHash).toBe('d377c2ba6a25c4ab063bba7e321cbff81663856a8efb7403b0225589e3d2683d');
    expect(a.trades).toHaveLength(29);
    // What ran, defaults included (retries is not in the config): result.json and the report show it.
    expect(a.meta.params).toEqual({ fast: 20, slow: 100, quoteAmount: '5000', retries: 3 });
    expect((await run()).meta.tradeHash).toBe(a.meta.tradeHash);
  });

  it('has no lookahead: an order decided at a close fills at the next open, plus slippage and fees', async () => {
    const r = await runBacktest({
      source: series(MONDAY_1000_ET, [100, 110, 120, 130, 140]),
      dataset: 't',
      strategy: buyThenSell,
      risk: ALL,
      capital: '10000',
      feeRate: '0.001',
      slippageBps: 10,
    });
    const [buy, sell] = r.fills;
    // Decided on candle 0 (close 100); candle 1 opens at 100 (its open is candle 0's close) -> 100 x 1.001
    expect(buy?.ts).toBe(MONDAY_1000_ET + 60_000);
    expect(buy?.price).toBe('100.1');
    // The market buy spends 1000 quote: 1000 / 100.1 rounded down to 4 decimals = 9.99
    expect(buy?.size).toBe('9.99');
    expect(buy?.fee).toBe(new Decimal('100.1').mul('9.99').mul('0.001').toFixed());
    // Decided on candle 2 (close 120); candle 3 opens at 120 -> 120 x 0.999 = 119.88
    expect(sell?.ts).toBe(MONDAY_1000_ET + 3 * 60_000);
    expect(sell?.price).toBe('119.88');
    expect(r.trades).toHaveLength(1);
    const pnl = new Decimal('119.88')
      .minus('100.1')
      .mul('9.99')
      .minus(buy?.fee ?? '0')
      .minus(sell?.fee ?? '0');
    expect(r.trades[0]?.pnl).toBe(pnl.toFixed());
    expect(r.finalEquity).toBe(new Decimal(10000).plus(pnl).toFixed());
  });

  it('counts the time in the market by candle: in at candle 1 open, out at candle 3 open is 2 of 5', async () => {
    const run = (tradeFrom?: number) =>
      runBacktest({
        source: series(MONDAY_1000_ET, [100, 110, 120, 130, 140]),
        dataset: 't',
        strategy: buyThenSell,
        risk: ALL,
        capital: '10000',
        tradeFrom,
      });
    const r = await run();
    expect(r.fills.map((f) => (f.ts - MONDAY_1000_ET) / 60_000)).toEqual([1, 3]);
    // Held at the close of candles 1 and 2; flat at the close of 0, 3 and 4.
    expect(r.inMarket).toEqual({ steps: 5, held: 2 });
    expect(metricsOf(r).exposure).toBeCloseTo(0.4, 12);
    // A warm-up (walk-forward's out-of-sample window from candle 2): its candles are not counted, and the
    // buy decided in it is not placed.
    expect((await run(MONDAY_1000_ET + 2 * 60_000)).inMarket).toEqual({ steps: 3, held: 0 });
  });

  it('gives per-symbol figures for one symbol too, with the fees of a position still open at the end', async () => {
    const r = await runBacktest({
      source: series(MONDAY_1000_ET, [100, 110]),
      dataset: 't',
      strategy: buyThenSell,
      risk: ALL,
      capital: '10000',
      feeRate: '0.001',
    });
    // Bought at candle 1's open, never sold: no round trip, but its fee is paid (the report's Fees tile).
    expect(r.trades).toEqual([]);
    expect(r.bySymbol).toEqual({
      SPXUSDT: {
        candles: 2,
        fills: 1,
        trades: 0,
        wins: 0,
        pnl: '0',
        fees: r.fees,
        position: r.fills[0]?.size,
        lastClose: '110',
      },
    });
    expect(r.fees).toBe(r.fills[0]?.fee);
  });

  it('keeps the first sentence of each denial code for the summary and the report', async () => {
    const r = await runBacktest({
      source: series(MONDAY_1000_ET, [100, 110, 120]),
      dataset: 't',
      strategy: buyThenSell,
      risk: RiskLimitsSchema.parse({ ...ALL, maxOrderNotional: '500' }),
      capital: '10000',
    });
    expect(r.denials).toEqual({ MAX_NOTIONAL_ORDER: 1 });
    const first = r.firstDenials.MAX_NOTIONAL_ORDER;
    // Decided at candle 0's close (candle 1's open time), on the symbol, with the gate's sentence.
    expect(first).toMatchObject({ ts: MONDAY_1000_ET + 60_000, symbol: 'SPXUSDT' });
    expect(first?.message).toMatch(/1000.*500/);
    expect(formatSummary(r)).toContain(
      `first MAX_NOTIONAL_ORDER: 2026-11-23 15:01 UTC SPXUSDT: ${first?.message ?? ''}`,
    );
    const html = renderReport(r, metricsOf(r));
    expect(html).toMatch(
      /<table id="denials">.*<td>MAX_NOTIONAL_ORDER<\/td><td>1<\/td><td class="nw">2026-11-23 15:01 UTC<\/td><td>SPXUSDT<\/td>/s,
    );
  });

  it('sees a day of round trips in the exposure, which a once-a-day equity sample never would', async () => {
    // One day of minute candles of a pair that trades around the clock; the strategy is in the market 30
    // minutes of every hour, and flat at each (daily) equity sample.
    const inAndOut = defineStrategy({
      name: 'half-hours',
      description: 'test',
      params: z.object({}),
      intervals: ['1m'],
      onCandle(c, ctx, emit) {
        const minute = new Date(c.openTime).getUTCMinutes();
        const held = ctx.portfolio.position(c.symbol).quantity;
        if (minute === 9) emit(buyMarket(c.symbol, new Decimal('100'), 'in', 'in'));
        if (minute === 39 && held.gt(0)) emit(sellMarket(c.symbol, held, 'out', 'out'));
      },
    });
    const r = await runBacktest({
      source: series(
        Date.UTC(2026, 10, 23, 0, 0),
        Array.from({ length: 1440 }, () => 100),
        'SYNUSDT',
      ),
      dataset: 't',
      strategy: inAndOut,
      risk: ALL,
      capital: '10000',
    });
    expect(r.trades).toHaveLength(24);
    // In at minute 10's open, out at minute 40's: 30 of every 60 candles.
    expect(r.inMarket).toEqual({ steps: 1440, held: 720 });
    expect(metricsOf(r).exposure).toBeCloseTo(0.5, 12);
  });

  it('respects sessions and holidays for a Reality token, as the daemon does', async () => {
    const thanksgiving = Date.UTC(2026, 10, 26, 15, 0);
    const r = await runBacktest({
      source: series(thanksgiving, [100, 101, 102, 103]),
      dataset: 't',
      strategy: buyThenSell,
      risk: ALL,
      capital: '10000',
    });
    expect(r.fills).toHaveLength(0);
    expect(r.intents[0]).toMatchObject({ approved: false, code: 'CALENDAR_CLOSED' });
    const regularOnly = RiskLimitsSchema.parse({ allowedSessions: ['regular'], maxDataAgeMs: 604_800_000 });
    const preMarket = Date.UTC(2026, 10, 23, 13, 0); // 08:00 ET
    const p = await runBacktest({
      source: series(preMarket, [100, 101, 102, 103]),
      dataset: 't',
      strategy: buyThenSell,
      risk: regularOnly,
      capital: '10000',
    });
    expect(p.denials.SESSION_NOT_ALLOWED).toBeGreaterThan(0);
    expect(p.fills).toHaveLength(0);
  });

  it('fills a limit order only when the price trades through it', async () => {
    const limitBuyer = defineStrategy({
      name: 'limit-buyer',
      description: 'test',
      params: z.object({}),
      intervals: ['1m'],
      init: () => ({ n: 0 }),
      onCandle(c, _ctx, emit, st) {
        if (st.n++ === 0)
          emit({
            type: 'limit',
            symbol: c.symbol,
            category: 'SPOT',
            side: 'buy',
            quantity: new Decimal(1),
            price: new Decimal('97'),
            tag: 'dip',
            reason: 'test',
          });
      },
    });
    // lows: 99.5, 98.5, 96.5 (97 is reached at candle 2's low of 96.5, but not traded through before)
    const r = await runBacktest({
      source: series(MONDAY_1000_ET, [100, 99, 98, 97, 99]),
      dataset: 't',
      strategy: limitBuyer,
      risk: ALL,
      capital: '10000',
      feeRate: '0.002',
      makerFeeRate: '0.0005',
    });
    expect(r.fills).toHaveLength(1);
    expect(r.fills[0]).toMatchObject({ price: '97', size: '1', liquidity: 'maker', fee: '0.0485' });
    // It fills in the candle whose low (96.5) went through 97, the fourth one, stamped at that candle's
    // close: the first moment a candle's range is known (src/sim/candle-fills.ts).
    expect(r.fills[0]?.ts).toBe(MONDAY_1000_ET + 4 * 60_000);
  });
});
