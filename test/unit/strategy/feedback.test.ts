// Feedback into the strategy, through the one pipeline (a backtest here): the gate's denials reach
// onDenied with their code and sentence, the venue's answers onOrder, the fills onFill; resting limit
// orders show in ctx.openOrders and hold cash, which the gate names instead of a raw venue refusal.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runBacktest } from '../../../src/backtest/engine.js';
import { Decimal } from '../../../src/market/decimal.js';
import { RiskLimitsSchema } from '../../../src/risk/index.js';
import { defineStrategy, type OrderFeedback, type OpenOrderView } from '../../../src/strategy/index.js';
import { loadStrategy } from '../../../src/strategy/loader.js';
import { silentLogger } from '../../../src/strategy/testing.js';
import { RISK, caseSource, type Bar } from '../../integration/backtest/fixtures/exit-cases.js';

const bars = (closes: number[]): Bar[] =>
  closes.map((c, i) => {
    const o = i === 0 ? c : (closes[i - 1] as number);
    return [o, Math.max(o, c) + 0.5, Math.min(o, c) - 0.5, c];
  });

describe('feedback into the strategy', () => {
  it('ma-crossover denied once by MAX_NOTIONAL_ORDER sees onDenied and trades at its next signal', async () => {
    const strategy = await loadStrategy('ma-crossover');
    const logged: string[] = [];
    const denied: string[] = [];
    // fast 2 / slow 3: the golden cross is at candle 5 (close 102), the fast SMA stays above after it.
    const closes = [100, 99, 98, 97, 98, 102, 104, 106, 108, 110];
    const r = await runBacktest({
      source: caseSource({ name: 'x', exits: {}, bars: bars(closes), fills: [] }),
      dataset: 'feedback',
      strategy,
      params: { fast: 2, slow: 3, quoteAmount: '5000' },
      risk: RiskLimitsSchema.parse({ ...RISK, maxOrderNotional: '3000' }),
      capital: '10000',
      feeRate: '0',
      logger: { ...silentLogger, warn: (m) => logged.push(m), info: (m) => logged.push(m) },
      onEvent: (e) => {
        if (e.type === 'denied') denied.push(`${e.code}: ${e.message}`);
      },
    });
    expect(denied).toEqual(['MAX_NOTIONAL_ORDER: order value 5000 is above maxOrderNotional 3000']);
    expect(logged).toEqual([
      'entry denied, retrying at the next candle with half the amount',
      'entry retried',
    ]);
    // The retry of 2500 at candle 6's close fills at candle 7's open (104): 2500 / 104 = 24.038 -> 24.03.
    expect(r.fills.map((f) => `${f.side} ${f.price} ${f.size} ${f.tag}`)).toEqual([
      'buy 104 24.03 golden-cross',
    ]);
  });

  it('tells onOrder, onFill and onDenied; resting limits show in openOrders and hold the cash', async () => {
    const seen: string[] = [];
    let resting: readonly OpenOrderView[] = [];
    let free = '';
    const strategy = defineStrategy({
      name: 'limit-piler',
      description: 'Places two resting limit buys far under the market, then a market buy (feedback test).',
      params: z.object({}),
      intervals: ['1m'],
      init: () => ({ n: 0 }),
      onCandle(c, ctx, emit, st) {
        const n = st.n++;
        if (n === 0 || n === 1)
          emit({
            type: 'limit',
            side: 'buy',
            symbol: c.symbol,
            category: 'SPOT',
            quantity: new Decimal('40'),
            price: new Decimal('96'),
            tag: `rest-${n}`,
            reason: 'rest under the market',
          });
        if (n === 3) {
          resting = ctx.openOrders(c.symbol);
          free = ctx.freeCash().toFixed();
          emit({
            type: 'market',
            side: 'buy',
            symbol: c.symbol,
            category: 'SPOT',
            quoteAmount: new Decimal('3000'),
            tag: 'too-much',
            reason: 'more than is free',
          });
        }
        if (n === 4)
          emit({
            type: 'market',
            side: 'buy',
            symbol: c.symbol,
            category: 'SPOT',
            quoteAmount: new Decimal('1000'),
            tag: 'fits',
            reason: 'what is free',
          });
      },
      onOrder: (e: Extract<OrderFeedback, { type: 'placed' | 'refused' }>) =>
        seen.push(`${e.type} ${e.intent.tag}`),
      onFill: (f) => seen.push(`fill ${f.tag} ${f.price.toFixed()}`),
      onDenied: (d) => seen.push(`denied ${d.intent.tag} ${d.code}: ${d.message}`),
    });
    await runBacktest({
      source: caseSource({
        name: 'x',
        exits: {},
        bars: bars([100, 100, 100, 100, 100, 100, 100]),
        fills: [],
      }),
      dataset: 'feedback',
      strategy,
      risk: RISK,
      capital: '10000',
      feeRate: '0.001',
    });
    expect(
      resting.map(
        (o) => `${o.side} ${o.size.toFixed()} @ ${o.price.toFixed()} filled ${o.filled.toFixed()} ${o.tag}`,
      ),
    ).toEqual(['buy 40 @ 96 filled 0 rest-0', 'buy 40 @ 96 filled 0 rest-1']);
    // 2 x 40 x 96 x 1.001 = 7687.68 held of 10000.
    expect(free).toBe('2312.32');
    expect(seen).toEqual([
      'placed rest-0',
      'placed rest-1',
      'denied too-much HELD_BY_ORDERS: order needs 3,000.00 USDT: cash 2,312.32 USDT free, 2 limit orders hold 7,687.68 USDT (the venue has no cancel: wait for them to fill, or quote smaller)',
      'placed fits',
      'fill fits 100',
    ]);
  });
});
