// `extraPairs`: the simulator lists N synthetic Reality pairs beside the real ones, with the same rules, for
// benches of many symbols (bench/scale.ts). Over the wire: listed, priced, tradable, with company data (a bot
// asks for a pair's suspension); the option is refused out of bounds in YAML and on `tradebot sim` alike.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Instrument } from '../../../src/api/index.js';
import { RestClient } from '../../../src/client/index.js';
import { ConfigError, loadDeployment } from '../../../src/config/index.js';
import { VirtualClock } from '../../../src/feeds/clock.js';
import { startSimulator } from '../../../src/sim/index.js';
import { runCli } from '../../helpers/cli.js';

const START = Date.UTC(2026, 10, 23, 15); // a Monday, US regular hours
const CREDS = { apiKey: 'sim-key', apiSecret: 'sim-secret', passphrase: 'sim-passphrase' };

async function withSim<T>(extraPairs: number, run: (c: RestClient) => Promise<T>): Promise<T> {
  const clock = new VirtualClock(START);
  const sim = await startSimulator({ seed: 3, clock, extraPairs });
  const c = new RestClient({
    baseUrl: sim.baseUrl,
    clock,
    sleep: async (ms) => clock.advance(ms),
    credentials: CREDS,
    retry: { maxAttempts: 1 },
  });
  try {
    return await run(c);
  } finally {
    c.close();
    await sim.stop();
  }
}

describe('a simulator with extra Reality pairs', () => {
  it('lists N more Reality pairs with the rules of the real ones, and none by default', async () => {
    const reality = (list: Instrument[]) => list.filter((i) => i.isReality === 'yes');
    const plain = await withSim(0, async (c) => reality(await c.instruments({ category: 'SPOT' })));
    const listed = await withSim(30, async (c) => reality(await c.instruments({ category: 'SPOT' })));
    expect(listed.length).toBe(plain.length + 30);
    const extra = listed.filter((i) => !plain.some((p) => p.symbol === i.symbol));
    expect(extra.map((i) => i.symbol).slice(0, 3)).toEqual(['XAAAUSDT', 'XAABUSDT', 'XAACUSDT']);
    expect(new Set(extra.map((i) => i.symbol)).size).toBe(30);
    const aapl = plain.find((i) => i.symbol === 'AAPLUSDT');
    // Everything but the names: precisions, limits, price ratios, status, symbol type.
    const rules = (i: Instrument | undefined) => ({ ...i, symbol: undefined, baseCoin: undefined });
    expect(aapl).toBeDefined();
    for (const i of extra) expect(rules(i)).toEqual(rules(aapl));
  });

  it('prices, trades and answers company data for a synthetic pair', async () => {
    await withSim(5, async (c) => {
      const [ticker] = await c.tickers({ category: 'SPOT', symbol: 'XAADUSDT' });
      expect(Number(ticker?.lastPrice)).toBeGreaterThan(0);
      await expect(c.suspensionResumptionInfo({ code: 'XAAD' })).resolves.toBeDefined();
      await expect(c.companyOverview({ code: 'XAAD' })).resolves.toMatchObject({ code: 'XAAD' });
      const placed = await c.placeRealityOrder({
        symbol: 'XAADUSDT',
        side: 'buy',
        orderType: 'market',
        qty: '100',
        clientOid: 'x1',
      });
      expect(placed.orderId).toEqual(expect.any(String));
      // A code beyond the table is no company of this venue.
      await expect(c.companyOverview({ code: 'XAAZ' })).rejects.toThrow(/40034|not a Reality company/);
    });
  });
});

describe('extraPairs at the boundary', () => {
  const dir = mkdtempSync(join(tmpdir(), 'extra-pairs-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('YAML refuses a count out of bounds, naming venue.extraPairs and the range', async () => {
    const f = join(dir, 'bad.yaml');
    writeFileSync(
      f,
      `venue: { kind: simulator, extraPairs: 5000 }
bots: [{ name: one, strategy: ma-crossover, symbols: [AAPLUSDT] }]
`,
    );
    const e = await loadDeployment(f).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(ConfigError);
    const p = (e as ConfigError).problems.find((x) => x.path === 'venue.extraPairs');
    expect(p?.message).toMatch(/must be a whole number from 0 to 1000/);
  });

  it('`tradebot sim --extra-pairs` refuses the same, exit 2', async () => {
    const r = await runCli(
      ['sim', '--extra-pairs', '2.5', '--start-time', '2026-11-23T15:00:00Z'],
      {},
      15_000,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--extra-pairs: must be a whole number from 0 to 1000 .*\(got "2\.5"\)/);
    expect(r.stdout).not.toMatch(/listening on/);
  });
});
