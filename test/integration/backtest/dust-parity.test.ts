// Dust parity between the backtester and paper trading on the simulator (the daemon's live pipeline over the
// wire, the simulator replaying the same candles): a sell that leaves 0.005 AAPL behind (below the venue's
// minOrderQty of 0.01) closes the trade on both paths. The strategy then reads the symbol as flat, with the
// dust apart; no exit and no strategy sell is tried on the dust (no BELOW_MIN_QTY loop, no stop-loss on it);
// the next entry buys on top of it and its exit sells the dust too; dust left at the end is shown apart in the
// backtest's result and in the live bot's status.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runBacktest } from '../../../src/backtest/engine.js';
import type { TraderEvent } from '../../../src/execution/trader.js';
import { Decimal } from '../../../src/market/decimal.js';
import { RiskLimitsSchema } from '../../../src/risk/index.js';
import { parseExitRules } from '../../../src/strategy/exits.js';
import { defineStrategy } from '../../../src/strategy/index.js';
import { createPaperBot, startPaperParity, tradeToTheEnd } from './fixtures/paper-parity.js';

const MIN = 60_000;
const START = Date.UTC(2026, 10, 23, 15, 0); // Monday 10:00 ET: the regular session throughout
const N = 30;
const SPEED = 120;
const CREDS = { apiKey: 'd-key', apiSecret: 'd-secret', passphrase: 'd-pass' };
const FEES = { feeRate: '0.002', makerFeeRate: '0.0005' };
const RISK = RiskLimitsSchema.parse({
  allowedSessions: ['regular'],
  maxDataAgeMs: 3_600_000,
  whitelisted: true,
});

// 190 for 8 candles, a drop to 170 (through a 5% stop-loss of an entry at 190) for 4, then 175.
const price = (i: number) => (i < 8 ? 190 : i < 12 ? 170 : 175);
const candles = Array.from({ length: N }, (_, i) => ({
  openTime: START + i * MIN,
  open: price(i).toFixed(2),
  high: (price(i) + 0.2).toFixed(2),
  low: (price(i) - 0.2).toFixed(2),
  close: price(i).toFixed(2),
  volume: '10',
}));

const DUST = new Decimal('0.005');
const BUY_AT = new Set([0, 12, 17]);
const PARTIAL_AT = new Set([4, 20]);
const EXIT_AT = new Set([15]);
// Where a strategy that sells whatever it holds (ma-crossover's death cross) would try to sell the dust.
const SELL_ANY_AT = new Set([5, 6, 7, 8, 9, 10, 21, 22, 23, 24, 25]);

/** Buys 1000 USDT when flat, sells all but 0.005 (leaving dust), sells all, by candle index. */
const dustScript = defineStrategy({
  name: 'dust-script',
  description: 'Leaves dust behind by script, then trades on (dust parity test).',
  params: z.object({}),
  intervals: ['1m'],
  init: () => ({ n: 0 }),
  onCandle(c, ctx, emit, st) {
    const n = st.n++;
    const s = c.symbol;
    const held = ctx.portfolio.position(s).quantity;
    const reason = `held ${held.toFixed()} dust ${ctx.portfolio.dust(s).toFixed()}`;
    const base = { symbol: s, category: 'SPOT', reason } as const;
    if (BUY_AT.has(n) && held.isZero())
      emit({ ...base, type: 'market', side: 'buy', quoteAmount: new Decimal(1000), tag: 'entry' });
    else if (PARTIAL_AT.has(n) && held.gt(DUST))
      emit({ ...base, type: 'market', side: 'sell', quantity: held.minus(DUST), tag: 'partial' });
    else if ((EXIT_AT.has(n) || SELL_ANY_AT.has(n)) && held.gt(0))
      emit({
        ...base,
        type: 'market',
        side: 'sell',
        quantity: held,
        tag: EXIT_AT.has(n) ? 'exit' : 'sell-any',
      });
  },
});

function describeEvent(e: TraderEvent): string | undefined {
  switch (e.type) {
    case 'intent':
      return `intent ${e.signalTime} ${e.intent.side} ${e.intent.tag} (${e.intent.reason})`;
    case 'denied':
      return `denied ${e.intent.tag} ${e.code}`;
    case 'order':
      return `order ${e.order.clientOid} ${e.order.side} ${e.order.qty} ${e.outcome.status}`;
    case 'fill':
      return `fill ${e.fill.tag} ${e.fill.side} ${e.fill.price.toFixed()} ${e.fill.size.toFixed()} fee ${e.fill.fee.toFixed()}`;
    default:
      return undefined;
  }
}

describe('dust parity between the backtester and paper trading on the simulator', () => {
  it('closes the trade at the dust, reads it as flat, sells it with the next exit, and shows it apart', async () => {
    const exits = parseExitRules({ stopLoss: '0.05' }, 'dust parity');
    const { venue, source } = await startPaperParity({
      credentials: CREDS,
      start: START,
      speed: SPEED,
      candles,
      fees: FEES,
      slippageBps: 0,
      tickersMs: 5_000,
    });
    const backtestSeen: string[] = [];
    const bt = await runBacktest({
      source,
      dataset: 'dust-parity',
      bot: 'paper',
      strategy: dustScript,
      risk: RISK,
      capital: '100000',
      ...FEES,
      exits,
      onEvent: (e) => {
        const line = describeEvent(e);
        if (line) backtestSeen.push(line);
      },
    });

    const paperSeen: string[] = [];
    const { bot } = await createPaperBot(
      venue,
      START,
      { strategy: dustScript, risk: RISK, ...FEES, exits },
      (e) => {
        const line = describeEvent(e);
        if (line) paperSeen.push(line);
      },
    );
    await tradeToTheEnd(bot, START + (N - 1) * MIN, 60_000);
    const status = bot.status();
    await bot.stop();
    const venueAapl = venue.sim.engine.balancesDecimal(CREDS.apiKey).AAPL;
    await venue.close();

    // The chain the backtest saw: three entries (the second and third on top of dust), two sells that leave
    // dust, one exit that sells the dust with its trade; nothing denied, no stop-loss on the dust.
    const intents = backtestSeen.filter((l) => l.startsWith('intent'));
    expect(intents.map((l) => l.replace(/^intent \d+ /, ''))).toEqual([
      'buy entry (held 0 dust 0)',
      'sell partial (held 5.2631 dust 0)',
      'buy entry (held 0 dust 0.005)',
      'sell exit (held 5.7192 dust 0)',
      'buy entry (held 0 dust 0)',
      'sell partial (held 5.7142 dust 0)',
    ]);
    expect(backtestSeen.filter((l) => l.startsWith('denied'))).toEqual([]);

    // The same chain live, event for event.
    expect(paperSeen).toEqual(backtestSeen);

    // The trades close at the dust; the dust left at the end is shown apart, on both paths and at the venue.
    expect(bt.trades.map((t) => `${t.quantity} ${t.exitReason}`)).toEqual([
      '5.2631 partial',
      '5.7142 exit',
      '5.7142 partial',
    ]);
    expect(bt.openPositions).toEqual([]);
    expect(bt.portfolio.dust).toEqual({ AAPLUSDT: '0.005' });
    expect(bt.bySymbol.AAPLUSDT?.dust).toBe('0.005');
    expect(status.positions).toEqual([]);
    expect(status.dust).toEqual([{ symbol: 'AAPLUSDT', baseCoin: 'AAPL', quantity: '0.005' }]);
    expect(venueAapl?.available.plus(venueAapl.frozen).toFixed()).toBe('0.005');
  }, 120_000);
});
