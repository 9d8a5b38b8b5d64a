// The static look `validate` and the daemon's start take for exits that resting limit sells can block
// (issue 30): stop or trailing exits (the strategy's, or the YAML's over them) and a limit sell in the source.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildsLimitSells, exitBlockWarning } from '../../../src/strategy/exit-block-check.js';
import { parseExitRules } from '../../../src/strategy/exits.js';
import { loadStrategy, resolveStrategyFile } from '../../../src/strategy/loader.js';
import { restingTakeProfit } from '../../integration/backtest/fixtures/resting-take-profit.js';

const FIXTURE = join(
  import.meta.dirname,
  '..',
  '..',
  'integration',
  'backtest',
  'fixtures',
  'resting-take-profit.ts',
);
const dir = mkdtempSync(join(tmpdir(), 'tradebot-exit-block-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('exitBlockWarning', () => {
  it('warns for a stop-loss beside a limit sell the strategy builds, naming the file and the safe pattern', () => {
    const w = exitBlockWarning(restingTakeProfit, FIXTURE);
    expect(w).toContain('strategy "resting-take-profit" has stopLoss exits and builds limit sells');
    expect(w).toContain(FIXTURE);
    expect(w).toContain('EXIT_BLOCKED');
    expect(w).toContain('exits.takeProfit');
  });

  it('counts the YAML exits over the strategy, and is quiet without a stop or without a limit sell', async () => {
    const ma = await loadStrategy('ma-crossover');
    const maFile = resolveStrategyFile('ma-crossover');
    expect(exitBlockWarning(ma, maFile, parseExitRules({ stopLoss: '0.05' }, 'exits'))).toBeUndefined();
    const file = join(dir, 'sells.ts');
    writeFileSync(file, "emit(limit(c.symbol,\n  'sell',\n  qty, price, 'tp', 'take profit'));\n");
    expect(buildsLimitSells(file)).toBe(true);
    expect(exitBlockWarning(ma, file)).toBeUndefined();
    expect(
      exitBlockWarning(ma, file, parseExitRules({ trailingStop: { distance: '0.03' } }, 'exits')),
    ).toMatch(/has trailingStop exits and builds limit sells/);
    writeFileSync(file, "emit(limit(c.symbol, 'buy', qty, price, 'dip', 'a dip'));\n");
    expect(buildsLimitSells(file)).toBe(false);
  });
});
