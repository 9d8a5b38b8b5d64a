// Input the command used to accept and then fail on forever, or refuse in vague words (issue 28), from the
// outside: `run` refuses before trading with exit 2 and a sentence at the line; `sim` and `account` flags
// are refused with exit 2, by the same rules as the YAML that sets the same options.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/sim/index.js';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-bad-input-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A deployment on the embedded simulator at a pinned Monday during US regular hours. */
const deployment = (name: string, bots: string) => {
  const f = join(dir, `${name}.yaml`);
  writeFileSync(
    f,
    `venue: { kind: simulator, startTime: "2026-11-23T15:00:00Z" }
store: { path: ${join(dir, `${name}.db`)} }
metrics: { enabled: false }
status: { enabled: false }
fillAttribution: fifo
bots:
${bots}`,
  );
  return f;
};

describe('run refuses before trading, with exit 2', () => {
  it('an interval the venue does not serve for a Reality pair (it used to poll a refusal forever)', async () => {
    const f = deployment(
      'interval',
      '  - { name: three-minutes, strategy: ma-crossover, symbols: [AAPLUSDT], interval: 3m }\n',
    );
    const r = await runCli(['run', '--config', f], {}, 20_000);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/the daemon did not start/);
    expect(r.stderr).toContain(`${f}:7:`);
    expect(r.stderr).toMatch(/bots\[0\]\.interval: interval must be one of 1m, 5m, 15m, 1H, 4H, 1D/);
  }, 30_000);

  it('a symbol the venue does not list, and one that is no Reality pair: each named with its bot, no order placed', async () => {
    const f = deployment(
      'symbols',
      `  - { name: typo-bot, strategy: ma-crossover, symbols: [AAPLUSDT, AAPLXUSDT] }
  - { name: crypto-bot, strategy: ma-crossover, symbols: [BTCUSDT] }
`,
    );
    const r = await runCli(['run', '--config', f], {}, 30_000);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/2 problems the venue found; the daemon did not start/);
    expect(r.stderr).toContain(
      `${f}:7:67 bots[0].symbols[1]: bot typo-bot: AAPLXUSDT is not an instrument of SPOT at the venue (did you mean "AAPLUSDT"?)`,
    );
    expect(r.stderr).toContain(
      `${f}:8:59 bots[1].symbols[0]: bot crypto-bot: BTCUSDT is not a Reality stock pair`,
    );
    const journal = join(dir, 'symbols.db');
    if (existsSync(journal)) {
      const db = new BetterSqlite3(journal, { readonly: true });
      try {
        expect(db.prepare('SELECT COUNT(*) FROM orders').pluck().get()).toBe(0);
      } finally {
        db.close();
      }
    }
  }, 40_000);
});

describe('flags are refused by the rules of the YAML that sets the same option', () => {
  it.each([
    [
      'a blank port (it used to take a random one)',
      ['--port', ''],
      /--port: must be a whole number from 0 \(any free port\) to 65535 \(got ""\)/,
    ],
    ['a blank seed', ['--seed', ''], /--seed: must be a whole number such as 42 \(got ""\)/],
    [
      'a speed YAML refuses',
      ['--speed', '1e9'],
      /--speed: must be a number above 0 and at most 3600 .*\(got "1e9"\)/,
    ],
    [
      'an interest rate above 100% a period',
      ['--interest-rate', '2'],
      /--interest-rate: must be a plain decimal string, the share of the loan charged per period, at most 1/,
    ],
    [
      'an interest period shorter than a second',
      ['--interest-period-ms', '10'],
      /--interest-period-ms: must be a whole number of milliseconds from 1000 to 31536000000/,
    ],
    [
      'a latency beyond any number of milliseconds',
      ['--latency-ms', '1e20'],
      /^tradebot: invalid options:\n {2}--latency-ms: must be a whole number of milliseconds from 0 to 60000 \(got "1e20"\)\n$/,
    ],
  ])(
    'sim with %s',
    async (_name, flags, message) => {
      const r = await runCli(['sim', ...flags], {}, 15_000);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).not.toMatch(/listening on/);
      expect(r.code, r.stderr).toBe(2);
    },
    20_000,
  );

  it('account set-leverage without --leverage sets nothing and says so (it used to print success)', async () => {
    const sim = await startSimulator({ startTime: Date.UTC(2026, 10, 23, 15) });
    try {
      const r = await runCli(
        ['account', 'set-leverage', '--category', 'MARGIN', '--coin', 'USDT', '--base-url', sim.baseUrl],
        {
          TRADEBOT_API_KEY: 'sim-key',
          TRADEBOT_API_SECRET: 'sim-secret',
          TRADEBOT_PASSPHRASE: 'sim-passphrase',
        },
      );
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/--leverage is required, e\.g\. --leverage 5/);
      expect(r.stdout).not.toMatch(/success/);
      expect(sim.engine.leverageOf('sim-key')).toEqual({});
    } finally {
      await sim.stop();
    }
  });

  it('record without a venue exits 2 with the fix, as api does (it used to exit 1)', async () => {
    const out = join(dir, 'no-venue.csv');
    const r = await runCli(
      [
        'record',
        '--category',
        'SPOT',
        '--symbol',
        'AAPLUSDT',
        '--interval',
        '1m',
        '--from',
        '2026-11-02',
        '--to',
        '2026-11-03',
        '--out',
        out,
      ],
      { TRADEBOT_BASE_URL: '' },
    );
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/no venue: pass --base-url URL, set TRADEBOT_BASE_URL, or use --sim/);
    expect(existsSync(out)).toBe(false);
  });
});
