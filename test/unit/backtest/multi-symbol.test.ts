// A backtest over two symbols with an informative timeframe, against a fixture checked by hand; the
// higher-timeframe candle never reaches the strategy before its close; lookahead is caught.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runBacktest } from '../../../src/backtest/engine.js';
import { lookahead } from '../../../src/research/lookahead.js';
import { resultJson } from '../../../src/research/result-json.js';
import { metricsOf } from '../../../src/research/metrics.js';
import { openDataset } from '../../../src/data/datasets.js';
import type { Candle } from '../../../src/market/candle.js';
import { Decimal } from '../../../src/market/decimal.js';
import { RiskLimitsSchema } from '../../../src/risk/index.js';
import { buyMarket, defineStrategy, sellMarket } from '../../../src/strategy/index.js';
import { loadStrategy } from '../../../src/strategy/loader.js';
import { closesSeries } from '../../helpers/candle-series.js';

const ALL = RiskLimitsSchema.parse({
  allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'],
  maxDataAgeMs: 604_800_000,
});
const M = 60_000;
const T0 = Date.UTC(2026, 10, 24, 15, 0); // a Tuesday, 10:00 ET; aligned to 3 minutes

/** What the strategy was handed, and the clock when it was. */
interface Seen {
  readonly interval: string;
  readonly symbol: string;
  readonly openTime: number;
  readonly at: number;
}

/**
 * Follows the last closed 3m candle of each symbol: on a 1m candle, buys 100 USDT when it is up and the
 * symbol is flat, sells everything when it is down.
 */
const htfFollow = (seen: Seen[]) =>
  defineStrategy({
    name: 'htf-follow',
    description: 'Trades 1m candles in the direction of the last closed 3m candle.',
    params: z.object({}),
    intervals: ['1m'],
    informative: ['3m'],
    init: () => new Map<string, Candle>(),
    onCandle(c, ctx, emit, last3m) {
      seen.push({ interval: c.interval, symbol: c.symbol, openTime: c.openTime, at: ctx.clock.now() });
      if (c.interval === '3m') {
        last3m.set(c.symbol, c);
        return;
      }
      const h = last3m.get(c.symbol);
      if (h === undefined) return;
      const held = ctx.portfolio.position(c.symbol).quantity;
      if (h.close > h.open && held.isZero()) emit(buyMarket(c.symbol, new Decimal(100), 'htf-up', '3m up'));
      if (h.close < h.open && held.gt(0)) emit(sellMarket(c.symbol, held, 'htf-down', '3m down'));
    },
  });

// Each 1m candle opens at the previous close (high/low half a point beyond). 3m buckets: candles 0-2, 3-5;
// candle 6 starts a bucket that never closes in the data.
//   AAA: 10 11 12 | 11 10 9 | 10   bucket 0: open 10 close 12 (up)   bucket 1: open 12 close 9 (down)
//   BBB: 20 19 18 | 19 20 21 | 20  bucket 0: open 20 close 18 (down) bucket 1: open 18 close 21 (up)
const AAA = () => closesSeries(T0, [10, 11, 12, 11, 10, 9, 10], 'AAAUSDT');
const BBB = () => closesSeries(T0, [20, 19, 18, 19, 20, 21, 20], 'BBBUSDT');

describe('a backtest over two symbols with an informative timeframe', () => {
  it('matches the hand-checked fixture: intents, fills, per-symbol results and the final cash', async () => {
    const seen: Seen[] = [];
    const r = await runBacktest({
      source: [AAA(), BBB()],
      dataset: 'aaa + bbb',
      strategy: htfFollow(seen),
      risk: ALL,
      capital: '1000',
      feeRate: '0.001',
      slippageBps: 0,
    });
    // Candle k is decided at T0 + (k+1)m, the open of candle k+1, AAA before BBB.
    // T0+3m: AAA's 3m bucket 0 (up) closes with candle 2 -> buy 100 USDT at candle 3's open, 12.
    //        BBB's bucket 0 is down, BBB is flat: nothing.
    // T0+6m: AAA's bucket 1 (down) -> sell the 8.33333 held at candle 6's open, 9.
    //        BBB's bucket 1 (up) -> buy 100 USDT at BBB candle 6's open, 21.
    // End:   candle 6 is decided with bucket 2 still open: no new 3m candle, nothing changes.
    expect(r.intents.map((i) => [i.ts - T0, i.symbol, i.side, i.tag, i.approved])).toEqual([
      [3 * M, 'AAAUSDT', 'buy', 'htf-up', true],
      [6 * M, 'AAAUSDT', 'sell', 'htf-down', true],
      [6 * M, 'BBBUSDT', 'buy', 'htf-up', true],
    ]);
    // Sizes: 100 / 12 = 8.333333.. -> 8.33333 (5 decimals, rounded down); 100 / 21 = 4.7619047.. -> 4.7619.
    // Fees 0.1% of price x size: 12 x 8.33333 x 0.001 = 0.09999996; 9 x 8.33333 x 0.001 = 0.07499997;
    // 21 x 4.7619 x 0.001 = 0.0999999.
    expect(r.fills.map((f) => [f.ts - T0, f.symbol, f.side, f.price, f.size, f.fee])).toEqual([
      [3 * M, 'AAAUSDT', 'buy', '12', '8.33333', '0.09999996'],
      [6 * M, 'AAAUSDT', 'sell', '9', '8.33333', '0.07499997'],
      [6 * M, 'BBBUSDT', 'buy', '21', '4.7619', '0.0999999'],
    ]);
    // Cash: 1000 - 99.99996 - 0.09999996 + 74.99997 - 0.07499997 - 99.9999 - 0.0999999 = 874.72511017.
    expect(r.portfolio.cash).toEqual({ USDT: '874.72511017', AAA: '0', BBB: '4.7619' });
    expect(r.portfolio.positions).toMatchObject({ AAAUSDT: '0', BBBUSDT: '4.7619' });
    // Equity: cash + 4.7619 BBB at its last close 20 (95.238) = 969.96311017.
    expect(r.finalEquity).toBe('969.96311017');
    // AAA's round trip: (9 - 12) x 8.33333 - 0.09999996 - 0.07499997 = -25.17498993.
    expect(r.trades).toEqual([
      expect.objectContaining({ symbol: 'AAAUSDT', pnl: '-25.17498993', fees: '0.17499993' }),
    ]);
    expect(r.bySymbol).toEqual({
      AAAUSDT: {
        candles: 7,
        fills: 2,
        trades: 1,
        wins: 0,
        pnl: '-25.17498993',
        fees: '0.17499993',
        position: '0',
        lastClose: '10',
      },
      BBBUSDT: {
        candles: 7,
        fills: 1,
        trades: 0,
        wins: 0,
        pnl: '0',
        fees: '0.0999999',
        position: '4.7619',
        lastClose: '20',
      },
    });
    expect(r.meta).toMatchObject({
      symbol: 'AAAUSDT,BBBUSDT',
      symbols: ['AAAUSDT', 'BBBUSDT'],
      informative: ['3m'],
      candles: 14,
    });
    // result.json keeps every money figure a decimal string, per symbol too.
    const json = resultJson(r, metricsOf(r), 2) as {
      bySymbol: Record<string, { pnl: unknown; fees: unknown }>;
    };
    expect(typeof json.bySymbol.AAAUSDT?.pnl).toBe('string');
    expect(typeof json.bySymbol.BBBUSDT?.fees).toBe('string');
  });

  it('hands the strategy each 3m candle only after it closed, just before the 1m candle that closes it', async () => {
    const seen: Seen[] = [];
    await runBacktest({
      source: [AAA(), BBB()],
      dataset: 'aaa + bbb',
      strategy: htfFollow(seen),
      risk: ALL,
      slippageBps: 0,
    });
    const higher = seen.filter((s) => s.interval === '3m');
    expect(higher.map((s) => [s.symbol, s.openTime - T0])).toEqual([
      ['AAAUSDT', 0],
      ['BBBUSDT', 0],
      ['AAAUSDT', 3 * M],
      ['BBBUSDT', 3 * M],
    ]);
    for (const h of higher) {
      expect(h.at).toBeGreaterThanOrEqual(h.openTime + 3 * M);
      // The next thing the strategy sees is the 1m candle that closes the bucket.
      const next = seen[seen.indexOf(h) + 1];
      expect(next).toMatchObject({ interval: '1m', symbol: h.symbol, openTime: h.openTime + 2 * M });
      // And every 1m candle of the bucket came before it.
      const before = seen
        .slice(0, seen.indexOf(h))
        .filter((s) => s.interval === '1m' && s.symbol === h.symbol);
      expect(before.map((s) => s.openTime)).toEqual(expect.arrayContaining([h.openTime, h.openTime + M]));
    }
    // The bucket that starts with candle 6 never closes in the data: it never reaches the strategy.
    expect(higher.some((h) => h.openTime === T0 + 6 * M)).toBe(false);
  });

  it('merges in time order with ties in dataset order, and is deterministic (a multi-symbol synthetic)', async () => {
    const strategy = await loadStrategy('ma-crossover');
    const run = () =>
      runBacktest({
        source: [openDataset('synthetic-1m:1:3000:AAAUSDT'), openDataset('synthetic-1m:2:3000:BBBUSDT')],
        dataset: 'synthetic-1m:1:3000:AAAUSDT,BBBUSDT',
        strategy,
        params: { fast: 10, slow: 40, quoteAmount: '1000' },
        risk: ALL,
        slippageBps: 2,
      });
    const a = await run();
    expect(new Set(a.fills.map((f) => f.symbol))).toEqual(new Set(['AAAUSDT', 'BBBUSDT']));
    expect(a.fills.map((f) => f.ts)).toEqual([...a.fills.map((f) => f.ts)].sort((x, y) => x - y));
    expect((await run()).meta.tradeHash).toBe(a.meta.tradeHash);
    // Per-symbol PnL and fees add up to the run's.
    const bySymbol = Object.values(a.bySymbol ?? {});
    expect(bySymbol.reduce((s, x) => s.plus(x.fees), new Decimal(0)).toFixed()).toBe(a.fees);
    expect(bySymbol.reduce((s, x) => s.plus(x.pnl), new Decimal(0)).toFixed()).toBe(
      a.trades.reduce((s, t) => s.plus(t.pnl), new Decimal(0)).toFixed(),
    );
  });

  it('refuses datasets of one symbol twice, or of different intervals, with a sentence', async () => {
    const strategy = await loadStrategy('ma-crossover');
    const o = { dataset: 'x', strategy, risk: ALL };
    await expect(runBacktest({ ...o, source: [AAA(), AAA()] })).rejects.toThrow(
      /distinct symbols: AAAUSDT is given twice/,
    );
    await expect(runBacktest({ ...o, source: [AAA(), openDataset('sp500-daily')] })).rejects.toThrow(
      /share one interval/,
    );
  });
});

/** Exposes, for each candle, the close of the NEXT one: a shift(-1), the classic lookahead bug. */
const peeker = defineStrategy({
  name: 'peek-ahead',
  description: 'Exposes the next candle close as an indicator of the current one (lookahead, for tests).',
  params: z.object({}),
  intervals: ['1m'],
  init: () => new Map<string, Candle>(),
  onCandle(c, ctx, _emit, prev) {
    const p = prev.get(c.symbol);
    if (p !== undefined) ctx.expose('next-close', c.close, p);
    ctx.expose('close', c.close);
    prev.set(c.symbol, c);
  },
});

describe('the lookahead check', () => {
  it('catches a strategy that peeks one candle ahead: the signal, its symbol and its candle', async () => {
    const report = await lookahead({
      source: [AAA(), BBB()],
      dataset: 'aaa + bbb',
      strategy: peeker,
      risk: ALL,
      cuts: 10,
    });
    expect(report.names).toEqual(['close', 'next-close']);
    expect(report.findings).toHaveLength(1);
    // Cut after candle 0: the data keeps candle 1's open (10, AAA), never its close 11.
    expect(report.findings[0]).toMatchObject({
      name: 'next-close',
      symbol: 'AAAUSDT',
      openTime: T0,
      cut: T0,
      full: 11,
      truncated: 10,
    });
  });

  it('passes the bundled strategies on their own data', async () => {
    for (const [name, params] of [
      ['ma-crossover', { fast: 10, slow: 40, quoteAmount: '1000' }],
      ['rsi-mean-reversion', {}],
      ['template', {}],
    ] as const) {
      const report = await lookahead({
        source: [openDataset('synthetic-1m:3:2000:AAAUSDT'), openDataset('synthetic-1m:4:2000:BBBUSDT')],
        dataset: 'synthetic',
        strategy: await loadStrategy(name),
        params,
        risk: ALL,
        cuts: 8,
      });
      expect(report.findings, name).toEqual([]);
      expect(report.signals, name).toBeGreaterThan(0);
      expect(report.cuts.length, name).toBeGreaterThanOrEqual(8);
    }
    // reality-session trades a Reality token inside the US session: a day of SPXUSDT minutes from 09:30 ET.
    const closes = Array.from(
      { length: 600 },
      (_, k) => Math.round((5000 + 30 * Math.sin(k / 17) + k * 0.1) * 100) / 100,
    );
    const spx = await lookahead({
      source: closesSeries(Date.UTC(2026, 10, 24, 14, 30), closes),
      dataset: 'spx minutes',
      strategy: await loadStrategy('reality-session'),
      risk: ALL,
      cuts: 8,
    });
    expect(spx.findings).toEqual([]);
    expect(spx.signals).toBeGreaterThan(0);
  });
});
