// A margin liquidation over the wire (issue 44): a MARGIN bot sells AAPL short on the pinned simulator, the
// replayed price jumps past the liquidation price, and the simulator closes the short by force. Its fill has no
// order (the public fill row has five fields), yet it must be booked to the bot whose short it closed, marked a
// liquidation, and leave the bot flat with no loan; the simulator's admin API (GET /sim/margin) is the oracle.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/daemon/logger.js';
import { DaemonMetrics } from '../../../src/daemon/metrics.js';
import { pipelineEvents } from '../../../src/daemon/pipeline-events.js';
import { coinsBySuffix } from '../../../src/execution/describe.js';
import { runBacktest } from '../../../src/backtest/engine.js';
import { LIQUIDATION_TAG } from '../../../src/execution/fill-booking.js';
import type { TraderEvent } from '../../../src/execution/trader.js';
import { Decimal } from '../../../src/market/decimal.js';
import { RiskLimitsSchema } from '../../../src/risk/index.js';
import type { ReplayCandle } from '../../../src/sim/index.js';
import { defineStrategy, sellShort, z, type Strategy } from '../../../src/index.js';
import { barsSource } from '../../helpers/candle-series.js';
import { runCli } from '../../helpers/cli.js';
import { startLiveVenue } from '../../helpers/live-venue.js';
import { waitFor } from '../../helpers/wait-for.js';

const MIN = 60_000;
const START = Date.UTC(2026, 10, 23, 15); // Monday 10:00 ET: the regular session
const JUMP = 12; // the candle whose open is 300: the short's liquidation price is about 289.8
const CREDS = { apiKey: 'liq-key', apiSecret: 'liq-secret', passphrase: 'liq-pass' };

const candles: ReplayCandle[] = Array.from({ length: 60 }, (_, i) => {
  const p = i < JUMP ? '190' : '300';
  return { openTime: START + i * MIN, open: p, high: p, low: p, close: p, volume: '1000' };
});

/** Sells 10 short on its first candle and holds it. */
const shortOnce = defineStrategy({
  name: 'short-once',
  description: 'Sells 10 short on its first candle and holds it (test).',
  params: z.object({}),
  intervals: ['1m'],
  startupCandles: () => 0,
  init: () => ({ done: false }),
  onCandle(candle, _ctx, emit, st) {
    if (st.done) return;
    st.done = true;
    emit(sellShort(candle.symbol, '10', 'short', 'first candle'));
  },
});

const RISK = RiskLimitsSchema.parse({
  allowedSessions: ['regular'],
  maxDataAgeMs: 3_600_000,
  whitelisted: true,
});

interface SimMargin {
  loans: unknown[];
  liquidations: { ts: number; side: string; price: string; size: string }[];
}

describe('a margin liquidation', () => {
  it('is booked to the bot whose short it closed, marked, leaves it flat with no loan, and the backtest of the same candles liquidates at the same candle', async () => {
    const venue = await startLiveVenue({
      credentials: CREDS,
      account: {
        whitelisted: true,
        balances: { USDT: '1000' },
        takerFeeRate: '0.001',
        makerFeeRate: '0.001',
      },
      sim: {
        seed: 1,
        startTime: START,
        speed: 120,
        rateLimits: false,
        replay: { AAPLUSDT: candles },
        candleFills: { slippageBps: 0 },
      },
      runtime: { staleAfterMs: 3_600_000, whitelisted: true, cadences: { tickersMs: 5_000 } },
    });
    await venue.runtime.client.setLeverage({ category: 'MARGIN', coin: 'AAPL', leverage: '3' });
    const events: TraderEvent[] = [];
    // The daemon's own subscriber of the pipeline: its log lines (JSON) and its metrics.
    const lines: string[] = [];
    const logger = createLogger({
      format: 'json',
      stream: new Writable({
        write(chunk: Buffer, _enc, cb) {
          lines.push(chunk.toString());
          cb();
        },
      }),
    });
    const metrics = new DaemonMetrics();
    const daemonView = pipelineEvents(logger, metrics, coinsBySuffix('USDT'));
    const { bot, portfolio } = await venue.createLiveBot(
      {
        name: 'shorty',
        strategy: shortOnce as unknown as Strategy,
        category: 'MARGIN',
        capital: '1000',
        fillPollMs: 2_000,
        leverage: [{ category: 'MARGIN', coin: 'AAPL', leverage: '3' }],
        risk: RiskLimitsSchema.parse({
          allowedSessions: ['regular'],
          maxDataAgeMs: 3_600_000,
          whitelisted: true,
        }),
      },
      {
        onEvent: (e) => {
          events.push(e);
          daemonView(e);
        },
      },
    );
    bot.start();
    const admin = async (): Promise<SimMargin> =>
      (
        (await (await fetch(`${venue.sim.baseUrl}/sim/margin?apiKey=${CREDS.apiKey}`)).json()) as {
          data: SimMargin;
        }
      ).data;
    const fills = () => venue.store.fills.list({ bot: 'shorty' });
    await waitFor(() => fills().some((f) => f.liquidation === true), {
      what: 'the liquidation booked to the bot',
      timeoutMs: 60_000,
      detail: () => JSON.stringify({ fills: fills(), deployment: venue.store.fills.deploymentBook() }),
    });

    // The simulator's account: the short was liquidated once, at the jump's open, and owes nothing.
    const m = await admin();
    expect(m.loans).toEqual([]);
    expect(m.liquidations).toHaveLength(1);
    const liq = m.liquidations[0] as SimMargin['liquidations'][number];
    expect(liq).toMatchObject({ ts: START + JUMP * MIN, side: 'buy', price: '300', size: '10' });

    // The journal: the short's sell, then the liquidation under the bot, the same price, size and time.
    const journal = fills();
    expect(journal.map((f) => [f.side, f.size.toFixed(), f.liquidation === true])).toEqual([
      ['sell', '10', false],
      ['buy', '10', true],
    ]);
    const booked = journal[1];
    expect(booked?.price.toFixed()).toBe(liq.price);
    expect(booked?.ts).toBe(liq.ts);
    expect(booked?.orderId).toBeUndefined();
    expect(venue.store.fills.deploymentBook()).toEqual([]);

    // The bot: flat, no loan left, and its fill event says liquidation.
    expect(portfolio.position('AAPLUSDT').quantity.isZero()).toBe(true);
    expect(bot.status().positions).toEqual([]);
    const fillEvent = events.find((e) => e.type === 'fill' && e.fill.liquidation === true);
    expect(fillEvent?.type === 'fill' && fillEvent.fill.tag).toBe(LIQUIDATION_TAG);
    const loans = bot.status().margin?.loans ?? [];
    expect(loans).toEqual([]);
    // The bot's cash is the account's USDT to the last decimal (the sell's proceeds less the buy, fees and interest).
    const balances = (await (
      await fetch(`${venue.sim.baseUrl}/sim/balances?apiKey=${CREDS.apiKey}`)
    ).json()) as { data: Record<string, { available: string }> };
    expect(new Decimal(balances.data.USDT?.available ?? 'NaN').toFixed()).toBe(
      portfolio.cash('USDT').toFixed(),
    );

    // Every surface says so: the daemon's log line and metric, and the built CLI's trades and status on the journal.
    const said = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.message === 'liquidated');
    expect(said).toMatchObject({
      level: 'warn',
      bot: 'shorty',
      symbol: 'AAPLUSDT',
      side: 'buy',
      size: '10',
      price: '300',
    });
    expect(said?.venueTime).toBe(new Date(liq.ts).toISOString());
    expect(await metrics.registry.getSingleMetricAsString('tradebot_liquidations_total')).toContain(
      'tradebot_liquidations_total{bot="shorty",symbol="AAPLUSDT"} 1',
    );
    const trades = await runCli(['trades', '--journal', venue.journalPath, '--json']);
    expect(trades.code, trades.stderr).toBe(0);
    expect((JSON.parse(trades.stdout) as { liquidation: boolean }[]).map((x) => x.liquidation)).toEqual([
      false,
      true,
    ]);
    const table = await runCli(['trades', '--journal', venue.journalPath]);
    expect(table.stdout).toMatch(/buy LIQUIDATED +AAPLUSDT +10 AAPL +300 USDT/);
    const status = await runCli(['status', '--journal', venue.journalPath, '--json']);
    expect(status.code, status.stderr).toBe(0);
    const bots = JSON.parse(status.stdout) as { bot: string; margin?: { liquidations: unknown[] } }[];
    expect(bots.find((b) => b.bot === 'shorty')?.margin).toMatchObject({
      loans: [],
      liquidations: [
        { time: new Date(liq.ts).toISOString(), symbol: 'AAPLUSDT', side: 'buy', price: '300', size: '10' },
      ],
    });

    // The backtest of the same candles, with the same strategy, capital, fees and leverage: the same two fills,
    // the liquidation at the same candle, price and size, and the same cash.
    const instrument = venue.sim.engine.instrument('SPOT', 'AAPLUSDT')?.wire;
    if (instrument === undefined) throw new Error('the simulator has no AAPLUSDT');
    const bt = await runBacktest({
      source: barsSource(
        candles.map((c) => [c.openTime, Number(c.open), Number(c.high), Number(c.low), Number(c.close)]),
        instrument,
      ),
      dataset: 'liquidation',
      bot: 'shorty',
      strategy: shortOnce as unknown as Strategy,
      risk: RISK,
      capital: '1000',
      feeRate: '0.001',
      makerFeeRate: '0.001',
      slippageBps: 0,
      margin: { leverage: { AAPL: '3' } },
    });
    expect(bt.fills.map((f) => [f.side, f.price, f.size, f.fee, f.tag])).toEqual(
      journal.map((f) => [
        f.side,
        f.price.toFixed(),
        f.size.toFixed(),
        f.fee.toFixed(),
        f === booked ? LIQUIDATION_TAG : 'short',
      ]),
    );
    expect(bt.fills[1]?.ts).toBe(liq.ts);
    // The short's own fill differs in time only (live: the order's arrival a moment after the close).
    expect(bt.portfolio.cash.USDT).toBe(portfolio.cash('USDT').toFixed());
    expect(bt.portfolio.positions.AAPLUSDT ?? '0').toBe('0');
  });
});
