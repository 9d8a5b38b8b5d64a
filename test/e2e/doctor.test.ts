// `tradebot doctor` through the built CLI against a simulator on loopback: all green with a whitelisted
// key; each failure (wrong secret, missing permission, not whitelisted, unknown symbol, clock off by
// 40 s) is named with its fix and exits 1; bad input exits 2.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { liveClock } from '../../src/feeds/clock.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-doctor-'));
const GOOD = { apiKey: 'doc-key', apiSecret: 'doc-secret', passphrase: 'doc-pass' };
const PLAIN = { apiKey: 'doc-plain', apiSecret: 'plain-secret', passphrase: 'plain-pass' };
const NOREAD = { apiKey: 'doc-noread', apiSecret: 'noread-secret', passphrase: 'noread-pass' };
const env = (c: typeof GOOD) => ({
  TRADEBOT_API_KEY: c.apiKey,
  TRADEBOT_API_SECRET: c.apiSecret,
  TRADEBOT_PASSPHRASE: c.passphrase,
});

describe('tradebot doctor', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({
      seed: 5,
      // On the wall clock on purpose: doctor checks this machine's clock against the venue's. Nothing here depends
      // on the day: the session line is asserted for its form, whatever the market is doing.
      startTime: liveClock.now(),
      accounts: [
        { ...GOOD, whitelisted: true },
        { ...PLAIN, whitelisted: false },
        { ...NOREAD, whitelisted: true, permissions: ['withdrawal'] },
      ],
    });
  });
  afterAll(async () => {
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const doctor = (args: string[], e: Record<string, string>) =>
    runCli(['doctor', '--base-url', sim.baseUrl, ...args], e, 60_000);

  /** A remote deployment on the simulator, its credentials from K, S and P; `extra` at the top level. */
  const deployment = (
    name: string,
    symbols: string[],
    extra: Record<string, unknown>,
    whitelisted = false,
  ) => {
    const f = join(dir, `${name}.yaml`);
    writeFileSync(
      f,
      stringify({
        venue: {
          kind: 'remote',
          baseUrl: sim.baseUrl,
          credentials: { apiKey: '${K}', apiSecret: '${S}', passphrase: '${P}' },
          whitelisted,
        },
        store: { path: join(dir, `${name}.db`) },
        bots: [
          {
            name: 'b',
            strategy: 'ma-crossover',
            params: { fast: 2, slow: 4, quoteAmount: '100' },
            symbols,
            interval: '1m',
            capital: '1000',
          },
        ],
        ...extra,
      }),
    );
    return f;
  };
  const withKey = (c: typeof GOOD) => ({ K: c.apiKey, S: c.apiSecret, P: c.passphrase });

  it('is all green with a whitelisted key and a deployment file, and exits 0', async () => {
    const f = deployment('live', ['AAPLUSDT', 'TSLAUSDT'], {}, true);
    const r = await runCli(['doctor', '--config', f], withKey(GOOD));
    expect(r.stdout).toContain('all checks passed');
    expect(r.stdout).toMatch(/\[ok\] +reachable: .* answered in \d+ ms/);
    expect(r.stdout).toMatch(
      /\[ok\] +latency: \d+ ms \(best of 3\): a price is at most \d+ ms old when read, within b's/,
    );
    expect(r.stdout).toMatch(/\[ok\] +whitelist/);
    expect(r.stdout).toMatch(/\[ok\] +symbol TSLAUSDT/);
    expect(r.stdout).toMatch(/permission trade-read-write: cannot be probed without placing an order/);
    expect(r.stdout).toMatch(/session: the US market is/);
    expect(r.code).toBe(0);
  }, 60_000);

  it('fails the latency check when prices would arrive older than the bot allows, naming the bot and the fix', async () => {
    // 300 ms each way on a venue at real speed, with a bot that allows prices 500 ms old and polls every 300 ms.
    const slow = await startSimulator({
      seed: 6,
      startTime: liveClock.now(),
      accounts: [{ ...GOOD, whitelisted: true }],
      faults: { latencyMs: [300, 300] },
    });
    try {
      const f = join(dir, 'slow.yaml');
      writeFileSync(
        f,
        stringify({
          venue: {
            kind: 'remote',
            baseUrl: slow.baseUrl,
            credentials: { apiKey: '${K}', apiSecret: '${S}', passphrase: '${P}' },
            whitelisted: true,
          },
          store: { path: join(dir, 'slow.db') },
          bots: [
            {
              name: 'tight',
              strategy: 'ma-crossover',
              symbols: ['AAPLUSDT'],
              poll: { tickersMs: 300 },
              risk: { maxDataAgeMs: 500 },
            },
          ],
        }),
      );
      const r = await runCli(['doctor', '--config', f], withKey(GOOD));
      expect(r.stdout).toMatch(
        /\[FAIL\] latency: \d+ ms \(best of 3\): a price would be \d+ ms old when read .* past tight's risk\.maxDataAgeMs 500/,
      );
      expect(r.stdout).toMatch(/fix: run the daemon nearer the venue, poll tickers faster/);
      expect(r.code).toBe(1);
    } finally {
      await slow.stop();
    }
  }, 60_000);

  it('passes an account without whitelist access when the deployment books estimated fills', async () => {
    const f = deployment('estimated', ['AAPLUSDT'], { fills: 'estimated' });
    const r = await runCli(['doctor', '--config', f], withKey(PLAIN));
    expect(r.stdout).toMatch(
      /\[ok\] +whitelist: the account has no whitelist access \(90068\), and the deployment books estimated fills/,
    );
    expect(r.stdout).toContain('all checks passed');
    expect(r.code).toBe(0);
  }, 60_000);

  it.each([
    [
      'a wrong secret',
      env({ ...GOOD, apiSecret: 'nope' }),
      [],
      /\[FAIL\] credentials: .*API secret is wrong/,
      /fix: check TRADEBOT_API_SECRET/,
    ],
    [
      'a missing permission',
      env(NOREAD),
      [],
      /\[FAIL\] permission trade-read: .*lacks the trade-read permission/,
      /fix: edit the API key/,
    ],
    [
      'no whitelist',
      env(PLAIN),
      [],
      /\[FAIL\] whitelist: .*no whitelist access/,
      /fix: apply for whitelist access .*; until then, fills: estimated in the deployment trades market orders/,
    ],
    [
      'an unknown symbol',
      env(GOOD),
      ['--symbols', 'AAPLUSDT,FOOUSDT'],
      /\[FAIL\] symbol FOOUSDT: FOOUSDT is not an instrument of SPOT/,
      /fix: check bots\[\]\.symbols/,
    ],
  ])(
    'names %s with its fix and exits 1',
    async (_what, e, args, failure, fix) => {
      const r = await doctor(args, e);
      expect(r.stdout).toMatch(failure);
      expect(r.stdout).toMatch(fix);
      const failed = r.stdout.match(/^\[FAIL\]/gm)?.length ?? 0;
      expect(r.stdout).toContain(failed === 1 ? '\n1 check failed' : `\n${failed} checks failed`);
      expect(r.code).toBe(1);
    },
    60_000,
  );

  it('names a clock 40 s off the venue with its fix and exits 1', async () => {
    const ahead = await startSimulator({
      seed: 5,
      startTime: liveClock.now() + 40_000,
      accounts: [{ ...GOOD, whitelisted: true }],
    });
    try {
      const r = await runCli(['doctor', '--base-url', ahead.baseUrl], env(GOOD), 60_000);
      expect(r.stdout).toMatch(
        /\[FAIL\] clock: this machine's clock is 4\d\.\d s behind the venue, more than the 30 s/,
      );
      expect(r.stdout).toMatch(/fix: sync the clock with NTP/);
      expect(r.code).toBe(1);
    } finally {
      await ahead.stop();
    }
  }, 60_000);

  it('knows an accelerated simulator (--speed 60): its clock is far ahead by design, not a skew to fix', async () => {
    const fast = await startSimulator({
      seed: 5,
      speed: 60,
      startTime: Date.UTC(2026, 10, 23, 15), // a Monday 10:00 ET, days away from the wall clock
      accounts: [{ ...GOOD, whitelisted: true }],
    });
    try {
      const r = await runCli(['doctor', '--base-url', fast.baseUrl], env(GOOD), 60_000);
      expect(r.stdout).toMatch(
        /\[ok\] +clock: the venue runs accelerated at 60x \(its admin API \(GET \/sim\/time\) says speed 60\): its clock reads 2026-11-2\d .* by design/,
      );
      expect(r.stdout).not.toMatch(/sync the clock with NTP/);
      expect(r.stdout).toContain('all checks passed');
      expect(r.code).toBe(0);
    } finally {
      await fast.stop();
    }
  }, 60_000);

  it("names where a wrong secret came from: the deployment's own ${VAR}, or its secret file", async () => {
    const f = join(dir, 'op.yaml');
    const secretFile = join(dir, 'passphrase.txt');
    writeFileSync(secretFile, 'wrong-passphrase\n');
    const write = (credentials: Record<string, unknown>) =>
      writeFileSync(
        f,
        stringify({
          venue: { kind: 'remote', baseUrl: sim.baseUrl, credentials, whitelisted: true },
          store: { path: join(dir, 'op.db') },
          bots: [{ name: 'b', strategy: 'ma-crossover', symbols: ['AAPLUSDT'], capital: '1000' }],
        }),
      );
    const opEnv = {
      OP_API_KEY: GOOD.apiKey,
      OP_API_SECRET: 'not-the-secret',
      OP_PASSPHRASE: GOOD.passphrase,
    };
    write({ apiKey: '${OP_API_KEY}', apiSecret: '${OP_API_SECRET}', passphrase: '${OP_PASSPHRASE}' });
    const r = await runCli(['doctor', '--config', f], opEnv);
    expect(r.stdout).toMatch(/\[FAIL\] credentials: .*API secret is wrong/);
    expect(r.stdout).toMatch(/fix: check the value of \$\{OP_API_SECRET\} \(venue\.credentials\.apiSecret\)/);
    expect(r.stdout).not.toContain('TRADEBOT_API_SECRET');
    expect(r.stdout + r.stderr).not.toContain('not-the-secret');
    expect(r.code).toBe(1);
    write({ apiKey: '${OP_API_KEY}', apiSecret: '${S}', passphrase: { file: 'passphrase.txt' } });
    const p = await runCli(['doctor', '--config', f], { ...opEnv, S: GOOD.apiSecret });
    expect(p.stdout).toMatch(/fix: check the content of passphrase\.txt \(venue\.credentials\.passphrase\)/);
    expect(p.stdout).not.toContain('TRADEBOT_PASSPHRASE');
    expect(p.code).toBe(1);
  }, 60_000);

  it('exits 2 on bad input', async () => {
    expect((await runCli(['doctor'], {}, 30_000)).code).toBe(2);
    expect((await runCli(['doctor', '--base-url', 'not a url'], {}, 30_000)).code).toBe(2);
    expect((await doctor(['--symbols', 'aapl'], env(GOOD))).code).toBe(2);
  }, 60_000);
});
