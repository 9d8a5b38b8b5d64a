// History-candles rule 1 (spec 4.1) on the simulator: when endTime passes an interval boundary the
// answer starts one interval earlier; historyCandlesRange and `tradebot record` stay exact under it.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestClient, historyCandlesRange } from '../../../src/client/index.js';
import { VirtualClock } from '../../../src/feeds/clock.js';
import { startSimulator, type Simulator } from '../../../src/sim/index.js';
import { runCli } from '../../helpers/cli.js';

const MIN = 60_000;
const NOW = Date.UTC(2026, 10, 23, 15, 0);

describe('history candles, rule 1', () => {
  let sim: Simulator;
  let client: RestClient;
  beforeAll(async () => {
    const clock = new VirtualClock(NOW);
    sim = await startSimulator({ seed: 9, clock, rateLimits: false });
    // The client's own token bucket waits on the virtual clock.
    client = new RestClient({ baseUrl: sim.baseUrl, clock, sleep: async (ms) => clock.advance(ms) });
  });
  afterAll(async () => {
    client.close();
    await sim.stop();
  });

  const opens = async (startTime: number, endTime: number) =>
    (
      await client.historyCandles({
        category: 'SPOT',
        symbol: 'BTCUSDT',
        interval: '1m',
        startTime: String(startTime),
        endTime: String(endTime),
      })
    )
      .map((c) => Number(c[0]))
      .sort((a, b) => a - b);

  it('adds the earlier interval only when endTime passes a boundary', async () => {
    const s = NOW - 600 * MIN;
    expect(await opens(s, s + 9 * MIN)).toEqual(Array.from({ length: 10 }, (_, i) => s + i * MIN));
    expect(await opens(s, s + 9 * MIN + 1)).toEqual(Array.from({ length: 11 }, (_, i) => s + (i - 1) * MIN));
  });

  it('historyCandlesRange yields every open time of the range once', async () => {
    const start = NOW - 2000 * MIN + 12_345;
    const end = NOW - 3 * MIN + 7;
    const seen: number[] = [];
    for await (const c of historyCandlesRange(client, {
      category: 'SPOT',
      symbol: 'BTCUSDT',
      interval: '1m',
      startTime: start,
      endTime: end,
    }))
      seen.push(Number(c[0]));
    const first = Math.ceil(start / MIN) * MIN;
    expect(seen).toEqual(
      Array.from({ length: Math.floor((end - first) / MIN) + 1 }, (_, i) => first + i * MIN),
    );
  });
});

describe('tradebot record under rule 1', () => {
  it('writes each candle of the range once, in order, with no gap', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'tb-record-')), 'btc.csv');
    const r = await runCli(
      [
        'record',
        '--sim',
        '--category',
        'SPOT',
        '--symbol',
        'BTCUSDT',
        '--interval',
        '1m',
        '--from',
        '2026-01-05',
        '--to',
        '2026-01-06',
        '--out',
        out,
      ],
      {},
      60_000,
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const times = readFileSync(out, 'utf8')
      .split('\n')
      .filter((l) => /^\d/.test(l))
      .map((l) => Number(l.split(',')[0]));
    const from = Date.UTC(2026, 0, 5);
    expect(times).toEqual(Array.from({ length: 1440 }, (_, i) => from + i * MIN));
  }, 90_000);
});
