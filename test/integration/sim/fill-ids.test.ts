// reality-fills as the venue gives them: exactly the five fields of spec 2.13 with fillIds off; the
// orderId/clientOid extension only when asked for (the default while the daemon still uses it).
import { afterEach, describe, expect, it } from 'vitest';
import { RestClient } from '../../../src/client/index.js';
import { VirtualClock } from '../../../src/feeds/clock.js';
import { DEFAULT_FILL_IDS, startSimulator } from '../../../src/sim/index.js';
import { startCli, type Running } from '../../helpers/cli.js';

const NOW = Date.UTC(2026, 10, 23, 15, 0); // Monday 10:00 ET
const CREDS = { apiKey: 'k', apiSecret: 's', passphrase: 'p' };
const SPEC_FIELDS = ['execId', 'price', 'size', 'side', 'ts'];

async function fillKeys(fillIds: boolean | undefined): Promise<string[]> {
  const clock = new VirtualClock(NOW);
  const sim = await startSimulator({
    seed: 1,
    clock,
    accounts: [{ ...CREDS, whitelisted: true }],
    ...(fillIds !== undefined ? { fillIds } : {}),
  });
  const client = new RestClient({ baseUrl: sim.baseUrl, clock, credentials: CREDS });
  try {
    await client.placeRealityOrder({
      symbol: 'AAPLUSDT',
      side: 'buy',
      orderType: 'market',
      qty: '200',
      clientOid: 'c1',
    });
    const [fill] = await client.realityFills({ symbol: 'AAPLUSDT' });
    return Object.keys(fill ?? {}).sort();
  } finally {
    client.close();
    await sim.stop();
  }
}

describe('reality-fills fields', () => {
  let cli: Running | undefined;
  afterEach(() => {
    cli?.proc.kill('SIGTERM');
    cli = undefined;
  });

  it('answers only the five spec fields with fillIds off', async () => {
    expect(await fillKeys(false)).toEqual([...SPEC_FIELDS].sort());
  });

  it('adds orderId and clientOid only with fillIds on; by default it answers the five fields', async () => {
    expect(await fillKeys(true)).toEqual([...SPEC_FIELDS, 'orderId', 'clientOid'].sort());
    expect(DEFAULT_FILL_IDS).toBe(false);
    expect(await fillKeys(undefined)).toEqual([...SPEC_FIELDS].sort());
  });

  it('tradebot sim --no-fill-ids serves the five fields', async () => {
    cli = startCli([
      'sim',
      '--port',
      '0',
      '--whitelisted',
      '--no-rate-limits',
      '--no-fill-ids',
      '--start-time',
      new Date(NOW).toISOString(),
    ]);
    const [, baseUrl] = (await cli.waitFor(/listening on (http:\/\/\S+)/, 20_000)) as RegExpMatchArray;
    const client = new RestClient({
      baseUrl: baseUrl as string,
      credentials: { apiKey: 'sim-key', apiSecret: 'sim-secret', passphrase: 'sim-passphrase' },
    });
    try {
      await client.placeRealityOrder({ symbol: 'AAPLUSDT', side: 'buy', orderType: 'market', qty: '200' });
      const [fill] = await client.realityFills({ symbol: 'AAPLUSDT' });
      expect(Object.keys(fill ?? {}).sort()).toEqual([...SPEC_FIELDS].sort());
    } finally {
      client.close();
    }
    // SIGTERM stops it: the server closed, said, exit 0.
    const running = cli;
    cli = undefined;
    running.proc.kill('SIGTERM');
    expect((await running.exited).code).toBe(0);
    expect(running.stdout).toContain('simulator stopped');
  }, 30_000);
});
