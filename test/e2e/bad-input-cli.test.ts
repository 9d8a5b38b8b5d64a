// Input the command used to accept and then fail on forever, or refuse in vague words (issue 28), from the
// outside: `run` refuses before trading with exit 2 and a sentence at the line; `sim` and `account` flags
// are refused with exit 2, by the same rules as the YAML that sets the same options.
import { describe, expect, it } from 'vitest';
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
});
