// The result tells the whole truth (issue 30): positions open when the data ends are in the summary,
// result.json and the report, counted in the headline as the summary says; closeAtEnd sells them through the
// pipeline; exits that the strategy's own resting limit sells block are counted (EXIT_BLOCKED, with the order);
// every trade carries its entry tag and exit reason, and the report groups the trades by entry tag.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runBacktest } from '../../../src/backtest/engine.js';
import { formatSummary, metricsOf } from '../../../src/research/metrics.js';
import { renderReport } from '../../../src/research/report.js';
import { resultJson } from '../../../src/research/result-json.js';
import { Decimal } from '../../../src/market/decimal.js';
import { RiskLimitsSchema } from '../../../src/risk/index.js';
import { buyMarket, defineStrategy } from '../../../src/strategy/index.js';
import { closesSeries } from '../../helpers/candle-series.js';
import { restingTakeProfit } from './fixtures/resting-take-profit.js';

const MONDAY_1000_ET = Date.UTC(2026, 10, 23, 15, 0);
const RISK = RiskLimitsSchema.parse({
  allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'],
  maxDataAgeMs: 604_800_000,
});
// Two round trips that win (buy the dip, sell 1% up), then a buy and a fall of about 18%.
const CLOSES = [
  100, 99, 101, 102, 100, 99, 101, 102, 100, 99, 101, 102, 100, 98, 96, 94, 92, 90, 88, 86, 84, 83,
];

const run = (closeAtEnd = false) =>
  runBacktest({
    source: closesSeries(MONDAY_1000_ET, CLOSES, 'BTCUSDT'),
    dataset: 'limit-dip',
    strategy: restingTakeProfit,
    risk: RISK,
    capital: '10000',
    feeRate: '0.001',
    closeAtEnd,
  });

describe('the result of a limit-order strategy that ends holding a position', () => {
  it('lists the open position (size, entry, mark, unrealised PnL) in the result and result.json', async () => {
    const r = await run();
    expect(r.trades.length).toBeGreaterThan(0);
    expect(r.trades.every((t) => new Decimal(t.pnl).gt(0))).toBe(true);
    expect(r.openPositions).toHaveLength(1);
    const [p] = r.openPositions;
    expect(p).toMatchObject({ symbol: 'BTCUSDT', size: '0.5', mark: '83', entryTag: 'dip' });
    // Marked at the last close, after the entry's fee: what the final equity counts.
    const entry = new Decimal(p?.entryPrice ?? '0');
    const fee = entry.mul('0.5').mul('0.001');
    expect(p?.unrealisedPnl).toBe(new Decimal(83).minus(entry).mul('0.5').minus(fee).toFixed());
    const realised = r.trades.reduce((a, t) => a.plus(t.pnl), new Decimal(0));
    expect(new Decimal(r.finalEquity).toFixed()).toBe(
      new Decimal(10000)
        .plus(realised)
        .plus(p?.unrealisedPnl ?? '0')
        .toFixed(),
    );
    const json = JSON.parse(JSON.stringify(resultJson(r, metricsOf(r), 2))) as {
      openPositions: Record<string, unknown>[];
    };
    expect(json.openPositions).toEqual([
      {
        symbol: 'BTCUSDT',
        entryTime: p?.entryTime,
        entryTag: 'dip',
        size: '0.5',
        entryPrice: p?.entryPrice,
        mark: '83',
        unrealisedPnl: p?.unrealisedPnl,
        unrealisedReturn: p?.unrealisedReturn,
      },
    ]);
    for (const v of Object.values(json.openPositions[0] ?? {}))
      if (typeof v === 'number') expect(Number.isInteger(v)).toBe(true); // only the entry time is a number
  });

  it('shows it on the first screen of the summary, and says the win rate counts closed trades only', async () => {
    const r = await run();
    const text = formatSummary(r, metricsOf(r));
    const lines = text.split('\n');
    const at = lines.findIndex((l) => l.startsWith('total return'));
    expect(lines[at + 1]).toMatch(
      /^open positions +total return includes unrealised PnL of -\d+\.\d\d on 1 open position \(marked at the last close; closeAtEnd: true sells them\)$/,
    );
    expect(lines[at + 2]).toMatch(
      /BTCUSDT 0\.5 bought at [\d.]+, marked at 83 \(last close\): unrealised -[\d.]+ \(-1\d\.\d\d%\)/,
    );
    expect(text).toMatch(
      /\ntrades \/ win rate +2 closed \/ 100\.00% \(of closed trades only; 1 still open\)\n/,
    );
  });

  it('counts the stop-losses the resting take-profit blocked, with the order that blocks', async () => {
    const r = await run();
    expect(r.denials['EXIT_BLOCKED']).toBeGreaterThan(0);
    expect(r.denials['HELD_BY_ORDERS']).toBeUndefined();
    const first = r.firstDenials['EXIT_BLOCKED'];
    expect(first).toMatchObject({ symbol: 'BTCUSDT', tag: 'stop_loss' });
    expect(first?.blockedBy).toMatch(/./);
    expect(first?.message).toContain(first?.blockedBy ?? '?');
    const text = formatSummary(r, metricsOf(r));
    expect(text).toMatch(
      new RegExp(
        `\\nexits blocked +\\d+ exits? denied EXIT_BLOCKED: the strategy's own resting limit sells held the position; first .* BTCUSDT stop_loss blocked by order ${first?.blockedBy ?? '?'}\\n`,
      ),
    );
    const html = renderReport(r, metricsOf(r));
    expect(html).toContain(`blocked by order ${first?.blockedBy ?? '?'}`);
    expect(html).toMatch(/<table id="denials">.*<td>EXIT_BLOCKED<\/td>/s);
  });

  it('draws the open position and a table by entry tag in the report', async () => {
    const r = await run();
    const html = renderReport(r, metricsOf(r));
    expect(html).toMatch(
      /<table id="open-positions">.*<td>BTCUSDT<\/td><td>0\.5\d*<\/td><td>[\d.]+<\/td><td>83(\.00)?<\/td><td class="neg">-[\d.]+<\/td>/s,
    );
    expect(html).toMatch(
      /<table id="tags">.*<tr><td>dip<\/td><td>2<\/td><td>1<\/td><td>100\.00%<\/td><td class="pos">/s,
    );
    expect(html).toMatch(/open +total return includes unrealised PnL of -/);
  });

  it('gives every trade its entry tag and exit reason in result.json', async () => {
    const r = await run();
    const json = JSON.parse(JSON.stringify(resultJson(r, metricsOf(r), 2))) as {
      trades: { entryTag: string; exitReason: string }[];
    };
    expect(json.trades.map((t) => [t.entryTag, t.exitReason])).toEqual([
      ['dip', 'take-profit'],
      ['dip', 'take-profit'],
    ]);
  });
});

/** Buys 1,000 quote coin at the first candle and never sells. */
const holder = defineStrategy({
  name: 'holder',
  description: 'Buys once, holds.',
  params: z.object({}),
  intervals: ['1m'],
  onCandle(c, ctx, emit) {
    if (ctx.portfolio.position(c.symbol).quantity.isZero() && ctx.openOrders(c.symbol).length === 0)
      emit(buyMarket(c.symbol, new Decimal('1000'), 'first-candle', 'buy once'));
  },
});

const hold = (closeAtEnd: boolean) =>
  runBacktest({
    source: closesSeries(MONDAY_1000_ET, [100, 101, 102, 103, 104, 105], 'BTCUSDT'),
    dataset: 'hold',
    strategy: holder,
    risk: RISK,
    capital: '10000',
    feeRate: '0.001',
    slippageBps: 10,
    closeAtEnd,
  });

describe('closeAtEnd', () => {
  it('sells at the last close through the pipeline: exit reason end_of_backtest, its fee charged', async () => {
    const open = await hold(false);
    const closed = await hold(true);
    expect(open.openPositions).toHaveLength(1);
    expect(open.trades).toEqual([]);
    expect(closed.openPositions).toEqual([]);
    expect(closed.meta.closeAtEnd).toBe(true);
    expect(open.meta.closeAtEnd).toBeUndefined();
    // The same fills, plus the exit: a market sell at the last close (105) minus the slippage, at that close.
    expect(closed.fills.slice(0, -1)).toEqual(open.fills);
    const exit = closed.fills[closed.fills.length - 1];
    expect(exit).toMatchObject({
      side: 'sell',
      price: '104.89',
      tag: 'end_of_backtest',
      ts: MONDAY_1000_ET + 6 * 60_000,
    });
    expect(exit?.fee).toBe(
      new Decimal('104.89')
        .mul(exit?.size ?? '0')
        .mul('0.001')
        .toFixed(),
    );
    expect(closed.trades).toHaveLength(1);
    expect(closed.trades[0]).toMatchObject({ entryTag: 'first-candle', exitReason: 'end_of_backtest' });
    // The headline counts the exit's fee: the final equity is the cash after the sale.
    expect(closed.finalEquity).toBe(closed.portfolio.cash['USDT']);
    expect(metricsOf(closed).finalEquity).toBe(closed.finalEquity);
    expect(metricsOf(closed).totalReturn).toBeCloseTo(Number(closed.finalEquity) / 10000 - 1, 10);
    expect(formatSummary(closed, metricsOf(closed))).toMatch(
      /\nopen positions +none \(closeAtEnd: sold at the last close, exit reason end_of_backtest\)\n/,
    );
    expect(closed.meta.tradeHash).not.toBe(open.meta.tradeHash);
  });

  it('says so when the exit at the end is blocked too (the resting take-profit holds the position)', async () => {
    const closed = await run(true);
    expect(closed.openPositions).toHaveLength(1);
    expect(formatSummary(closed, metricsOf(closed))).toContain(
      'closeAtEnd could not sell them, see the denials',
    );
    expect(closed.fills).toEqual((await run(false)).fills);
  });
});
