// Issue 30, "errors with a place, checks that check": what `tradebot validate`, `backtest` and `run` say
// about a strategy file and its parameters, through the built command.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runCli } from '../helpers/cli.js';

const home = mkdtempSync(join(tmpdir(), 'tradebot-checks-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));
const out = join(home, 'results');
mkdirSync(join(home, 'strategies'), { recursive: true });

const backtestFile = (name: string, body: Record<string, unknown>): string => {
  const f = join(home, `${name}.yaml`);
  writeFileSync(f, stringify({ name, dataset: 'synthetic-1m:7:3000', ...body }));
  return f;
};

describe('parameters are read by one function for validate, backtest, sweep and run', () => {
  it('a number written in quotes is refused alike by validate and backtest, with the fix', async () => {
    const file = backtestFile('quoted', { strategy: 'ma-crossover', params: { fast: '5' } });
    const validate = await runCli(['validate', file]);
    const backtest = await runCli(['backtest', '--config', file, '--out', out]);
    for (const r of [validate, backtest]) {
      expect(r.code, r.stdout + r.stderr).toBe(2);
      expect(r.stderr).toMatch(
        /parameter "fast": must be a (whole )?number — got "5": write 5 without quotes/,
      );
    }
  });
});
