// Input the command used to accept and then fail on forever, or refuse in vague words (issue 28), from the
// outside: `run` refuses before trading with exit 2 and a sentence at the line; `sim` and `account` flags
// are refused with exit 2, by the same rules as the YAML that sets the same options.
import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/sim/index.js';
import { runCli } from '../helpers/cli.js';

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
});
