// Backtest/live parity: one strategy on one recorded dataset, in the backtester and in paper mode against
// the simulator replaying the same candles (the daemon's live pipeline: RestClient, feeds, risk gate,
// executor, fill sync), shows the same order intents in the same order.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBacktest } from '../../../src/backtest/engine.js';
import { FORMAT_NAME, newBatch, type CandleSource } from '../../../src/backtest/format.js';
import { mulberry32 } from '../../../src/backtest/synthetic.js';
import { createLiveBot, createVenueRuntime } from '../../../src/execution/runtime.js';
import { RiskLimitsSchema } from '../../../src/risk/index.js';
import { startSimulator } from '../../../src/sim/index.js';
import { openStore } from '../../../src/store/index.js';
import { loadStrategy } from '../../../src/strategy/loader.js';
import { silentLogger } from '../../../src/strategy/testing.js';

const START = Date.UTC(2026, 10, 23, 14, 35); // Monday 09:35 ET
const N = 240; // four hours of one-minute candles inside the regular session
const CREDS = { apiKey: 'p-key', apiSecret: 'p-secret', passphrase: 'p-pass' };
const PARAMS = { fast: 3, slow: 8, quoteAmount: '1000' };
const dir = mkdtempSync(join(tmpdir(), 'tradebot-parity-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The recorded dataset: a seeded walk around 190 with cent prices.
const rnd = mulberry32(99);
const candles: {
  openTime: number;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
}[] = [];
let px = 19000;
for (let i = 0; i < N; i++) {
  const open = px;
  px = Math.max(100, px + Math.round((rnd() - 0.5) * 60));
  const hi = Math.max(open, px) + Math.round(rnd() * 10);
  const lo = Math.min(open, px) - Math.round(rnd() * 10);
  candles.push({
    openTime: START + i * 60_000,
    open: (open / 100).toFixed(2),
    high: (hi / 100).toFixed(2),
    low: (lo / 100).toFixed(2),
    close: (px / 100).toFixed(2),
    volume: '10',
  });
}

describe('parity between the backtester and paper trading on the simulator', () => {
  it('emits the same intents in the same order', async () => {
    const strategy = await loadStrategy('ma-crossover');
    const risk = RiskLimitsSchema.parse({
      allowedSessions: ['regular'],
      maxDataAgeMs: 3_600_000,
      whitelisted: true,
    });

    // Paper: the simulator replays the candles; its clock stands just after the last one.
    const sim = await startSimulator({
      seed: 1,
      startTime: START + N * 60_000 + 30_000,
      replay: { AAPLUSDT: candles },
      accounts: [{ ...CREDS, whitelisted: true, balances: { USDT: '100000' } }],
    });
    const instrument = sim.engine.instrument('SPOT', 'AAPLUSDT')?.wire;
    if (!instrument) throw new Error('the simulator has no AAPLUSDT');

    const source: CandleSource = {
      meta: {
        format: FORMAT_NAME,
        version: 1,
        symbol: 'AAPLUSDT',
        category: 'SPOT',
        interval: '1m',
        instrument,
      },
      async *batches() {
        const b = newBatch(N);
        for (const c of candles) {
          const i = b.length++;
          b.openTime[i] = c.openTime;
          b.open[i] = Number(c.open);
          b.high[i] = Number(c.high);
          b.low[i] = Number(c.low);
          b.close[i] = Number(c.close);
          b.volume[i] = 10;
          b.turnover[i] = 10 * Number(c.close);
        }
        yield b;
      },
    };
    const bt = await runBacktest({
      source,
      dataset: 'parity',
      strategy,
      params: PARAMS,
      risk,
      capital: '100000',
    });
    const expected = bt.intents.map(
      (i) => `${new Date(i.ts).toISOString().slice(11, 16)} ${i.side} ${i.tag}`,
    );
    expect(expected.length).toBeGreaterThanOrEqual(6);

    const clock = { now: () => sim.engine.now() };
    const runtime = createVenueRuntime({
      baseUrl: sim.baseUrl,
      credentials: CREDS,
      clock,
      staleAfterMs: 3_600_000,
    });
    const store = openStore(join(dir, 'paper.db'), { clock });
    // The journal says the bot has seen everything before the dataset: it backfills exactly the dataset.
    store.meta.set('candle:paper:AAPLUSDT:1m', String(START - 60_000));
    const seen: string[] = [];
    const { bot } = await createLiveBot({
      runtime,
      store,
      logger: silentLogger,
      spec: {
        name: 'paper',
        strategy,
        params: PARAMS,
        category: 'SPOT',
        symbols: ['AAPLUSDT'],
        interval: '1m',
        risk,
        quoteCoin: 'USDT',
        capital: '100000',
        feeRate: '0.001',
        fillPollMs: 60_000,
        maxSignalAgeMs: 0,
      },
      hooks: {
        onIntent: (_b, i, trigger) =>
          seen.push(`${new Date(trigger).toISOString().slice(11, 16)} ${i.side} ${i.tag}`),
      },
    });
    bot.start();
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && (bot.status().lastCandle ?? 0) < START + (N - 1) * 60_000)
      await new Promise((r) => setTimeout(r, 50));
    await bot.stop();
    runtime.close();
    store.close();
    await sim.stop();
    expect(seen).toEqual(expected);
  }, 60_000);
});
