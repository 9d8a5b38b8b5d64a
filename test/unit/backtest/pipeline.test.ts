// The backtester drives the same trading pipeline as the live bot: behaviours that used to exist only live.
import { describe, expect, it } from 'vitest';
import { closesSeries } from '../../helpers/candle-series.js';
import { z } from 'zod';
import { runBacktest } from '../../../src/backtest/engine.js';
import type { CandleSource } from '../../../src/data/format.js';
import type { TraderEvent } from '../../../src/execution/trader.js';
import { Decimal } from '../../../src/market/decimal.js';
import { RiskLimitsSchema } from '../../../src/risk/index.js';
import { buyMarket, defineStrategy } from '../../../src/strategy/index.js';

const MONDAY_1000_ET = Date.UTC(2026, 10, 23, 15, 0);

const series = (closes: number[]): CandleSource => closesSeries(MONDAY_1000_ET, closes);

// Buys 5000 on the first candle, then tries to buy 100 more on every candle.
const keepBuying = defineStrategy({
  name: 'keep-buying',
  description: 'test',
  params: z.object({}),
  intervals: ['1m'],
  init: () => ({ n: 0 }),
  onCandle(c, _ctx, emit, st) {
    emit(buyMarket(c.symbol, new Decimal(st.n++ === 0 ? '5000' : '100'), 'buy', 'test'));
  },
});

describe('the backtester on the shared pipeline', () => {
  it('trips a daily loss limit inside the day, and denies every entry after it', async () => {
    // 5000 bought at 100, then the price falls 1 per candle: 50 of loss per candle.
    const closes = Array.from({ length: 30 }, (_, i) => 100 - i);
    const events: TraderEvent[] = [];
    const r = await runBacktest({
      source: series(closes),
      dataset: 't',
      strategy: keepBuying,
      risk: RiskLimitsSchema.parse({
        allowedSessions: ['regular'],
        maxDataAgeMs: 60_000,
        dailyLossLimit: '400',
      }),
      capital: '10000',
      feeRate: '0',
      onEvent: (e) => events.push(e),
    });
    const states = events.filter((e) => e.type === 'trading-state');
    expect(states.map((e) => (e.type === 'trading-state' ? e.to : ''))).toEqual(['REDUCING', 'HALTED']);
    const halted = states[1];
    // It halts within the first quarter hour, not at a day boundary.
    expect(halted?.ts).toBeLessThan(MONDAY_1000_ET + 15 * 60_000);
    expect(r.denials.TRADING_HALTED).toBeGreaterThan(5);
    expect(r.denials.REDUCING_ONLY).toBeGreaterThan(0);
    // After the halt nothing was bought.
    const lastFill = r.fills[r.fills.length - 1];
    expect(lastFill?.ts).toBeLessThanOrEqual(halted?.ts ?? 0);
  });

  it('runs a strategy’s onTicker, with tickers derived from the candles', async () => {
    const seen: string[] = [];
    const tickerWatcher = defineStrategy({
      name: 'ticker-watcher',
      description: 'test',
      params: z.object({}),
      intervals: ['1m'],
      onCandle: () => undefined,
      onTicker(t) {
        seen.push(`${t.symbol} ${t.lastPrice} ${t.ts}`);
      },
    });
    await runBacktest({
      source: series([100, 101.25, 99.5]),
      dataset: 't',
      strategy: tickerWatcher,
      risk: RiskLimitsSchema.parse({ allowedSessions: ['regular'] }),
    });
    // One ticker per candle, at its close, with the close as the last price (SPX has 2 price decimals).
    expect(seen).toEqual([
      `SPXUSDT 100.00 ${MONDAY_1000_ET + 60_000}`,
      `SPXUSDT 101.25 ${MONDAY_1000_ET + 120_000}`,
      `SPXUSDT 99.50 ${MONDAY_1000_ET + 180_000}`,
    ]);
  });
});
