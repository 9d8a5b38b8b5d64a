import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_STRATEGIES_DIR,
  StrategyLoadError,
  StrategyParamsError,
  listStrategies,
  loadStrategy,
  parseStrategyParams,
  resolveStrategyFile,
} from '../../../src/strategy/loader.js';
import { strategyCatalogue } from '../../../src/strategy/catalogue.js';
import { formatCatalogue } from '../../../src/cli/commands/strategies.js';
import { isStrategy } from '../../../src/strategy/contract.js';

const FIXTURES = resolve(import.meta.dirname, 'fixtures');

describe('loadStrategy', () => {
  it('lists the bundled strategies of strategies/', () => {
    expect(DEFAULT_STRATEGIES_DIR).toBe(resolve(import.meta.dirname, '../../../strategies'));
    expect(listStrategies()).toEqual(
      expect.arrayContaining(['ma-crossover', 'reality-session', 'rsi-mean-reversion', 'template']),
    );
  });

  it.each(['ma-crossover', 'rsi-mean-reversion', 'reality-session', 'template'])(
    'finds %s by name',
    async (name) => {
      const s = await loadStrategy(name);
      expect(isStrategy(s)).toBe(true);
      expect(s.name).toBe(name);
      expect(s.intervals.length).toBeGreaterThan(0);
      // Every bundled strategy runs on its defaults.
      expect(() => parseStrategyParams(s, {})).not.toThrow();
    },
  );

  it('finds a strategy by relative and absolute path', async () => {
    const byRel = await loadStrategy('strategies/ma-crossover.ts', {
      cwd: resolve(import.meta.dirname, '../../..'),
    });
    const byAbs = await loadStrategy(resolve(DEFAULT_STRATEGIES_DIR, 'ma-crossover.ts'));
    expect(byRel).toBe(byAbs);
    expect(byRel.name).toBe('ma-crossover');
  });

  it('accepts a plain object that follows the contract, after checking it', async () => {
    const s = await loadStrategy(resolve(FIXTURES, 'plain-spec.ts'));
    expect(isStrategy(s)).toBe(true);
    expect(parseStrategyParams(s, {})).toEqual({ n: 1 });
  });

  it('refuses an unknown name, listing the known strategies', async () => {
    await expect(loadStrategy('ma-crosover')).rejects.toThrow(
      /strategy "ma-crosover" \(did you mean "ma-crossover"\?\) not found in .*strategies .*use one of .*ma-crossover, ma-crossover-short, reality-session, rsi-mean-reversion, template/,
    );
    await expect(loadStrategy('Bad Name')).rejects.toThrow(/not a kebab-case name/);
  });

  it('refuses a missing file, a module without a strategy and one that breaks the contract', async () => {
    await expect(loadStrategy('./nope/missing.ts')).rejects.toBeInstanceOf(StrategyLoadError);
    await expect(loadStrategy(resolve(FIXTURES, 'not-a-strategy.ts'))).rejects.toThrow(
      /does not export a strategy: add `export default defineStrategy/,
    );
    await expect(loadStrategy(resolve(FIXTURES, 'broken-params.ts'))).rejects.toThrow(
      /parameter "period" has no default: add \.default\(\.\.\.\)[\s\S]*parameter "period" has no description/,
    );
  });

  it('refuses a file whose strategy name differs from the name it was asked by', async () => {
    await expect(loadStrategy('wrong-name', { dir: resolve(FIXTURES, 'dir') })).rejects.toThrow(
      /declares the strategy name "other-name": rename the file or the strategy/,
    );
  });
});

describe('own strategy folders', () => {
  // A user's folder outside the repository; its files import from 'tradebot' like the bundled ones.
  const own = mkdtempSync(join(tmpdir(), 'tradebot-own-unit-'));
  afterAll(() => rmSync(own, { recursive: true, force: true }));
  const template = readFileSync(resolve(DEFAULT_STRATEGIES_DIR, 'template.ts'), 'utf8');
  const named = (name: string, description = 'Template strategy') =>
    template
      .replace("name: 'template',", `name: '${name}',`)
      .replace("'Template strategy: buys", `'${description}: buys`);
  writeFileSync(join(own, 'mine.ts'), named('mine'));
  // Same name as a bundled strategy: the user's wins.
  writeFileSync(join(own, 'ma-crossover.ts'), named('ma-crossover', 'My own crossover'));
  // A strategy that is a folder with an index module.
  mkdirSync(join(own, 'folded'));
  writeFileSync(join(own, 'folded', 'index.ts'), named('folded'));

  it('finds a strategy by name in an own folder, which wins over a bundled one of the same name', async () => {
    expect((await loadStrategy('mine', { dirs: [own] })).name).toBe('mine');
    expect((await loadStrategy('ma-crossover', { dirs: [own] })).description).toMatch(/^My own crossover/);
    expect((await loadStrategy('ma-crossover')).description).toMatch(/^Fast\/slow/);
    expect((await loadStrategy('rsi-mean-reversion', { dirs: [own] })).name).toBe('rsi-mean-reversion');
  });

  it('finds a strategy that is a folder with an index module', async () => {
    expect(resolveStrategyFile('folded', { dirs: [own] })).toBe(join(own, 'folded', 'index.ts'));
    expect((await loadStrategy('folded', { dirs: [own] })).name).toBe('folded');
    expect(listStrategies(own)).toEqual(['folded', 'ma-crossover', 'mine']);
  });

  it('an unknown name lists every folder searched, a missing one marked, the nearest name and the names there', () => {
    const missing = join(own, 'nope');
    expect(() => resolveStrategyFile('minr', { dirs: [missing, own] })).toThrow(
      `strategy "minr" (did you mean "mine"?) not found in ${missing} (yours, missing) or ${own} (yours) or ${DEFAULT_STRATEGIES_DIR} (bundled): use one of folded, ma-crossover, mine, bollinger-reversion, ma-crossover-short, reality-session, rsi-mean-reversion, template,`,
    );
    // A name with its words apart from the real one's: rsi-reversion for rsi-mean-reversion.
    expect(() => resolveStrategyFile('rsi-reversion', { dirs: [own] })).toThrow(
      /did you mean "rsi-mean-reversion"\?\)/,
    );
  });

  it('a relative path may reach into an own folder, never outside the allowed ones', () => {
    const cwd = resolve(own, 'nope');
    expect(resolveStrategyFile('../mine.ts', { cwd, dirs: [own] })).toBe(join(own, 'mine.ts'));
    expect(() => resolveStrategyFile('../../../../../../etc/passwd.js', { cwd, dirs: [own] })).toThrow(
      /leads to \/etc\/passwd\.js, outside .*give its absolute path if you mean it/,
    );
    expect(() => resolveStrategyFile('../mine.ts', { cwd })).toThrow(/outside/);
  });

  it('the catalogue lists own strategies first, marks a bundled one that an own one hides', async () => {
    const list = await strategyCatalogue({ dirs: [own] });
    expect(list.map((e) => `${e.source}:${e.name}${e.shadowed ? ' (hidden)' : ''}`)).toEqual([
      'own:folded',
      'own:ma-crossover',
      'own:mine',
      'bundled:bollinger-reversion',
      'bundled:ma-crossover (hidden)',
      'bundled:ma-crossover-short',
      'bundled:reality-session',
      'bundled:rsi-mean-reversion',
      'bundled:template',
    ]);
    expect(list.find((e) => e.name === 'mine')?.params?.map((p) => [p.name, p.default])).toEqual([
      ['period', 20],
      ['quoteAmount', '50'],
    ]);
    // Built-in exits and protections are listed as a YAML file would spell them (they override each).
    const bb = list.find((e) => e.name === 'bollinger-reversion');
    expect(bb?.exits).toEqual({ stopLoss: '0.03', takeProfit: '0.06' });
    expect(bb?.protections).toEqual({ cooldownAfterStop: 5 });
    expect(list.find((e) => e.name === 'reality-session')?.exits).toEqual({ sessionEnd: ['regular'] });
    expect(list.find((e) => e.name === 'mine')?.exits).toBeUndefined();
    expect(formatCatalogue(list)).toContain(
      '  exits: stopLoss "0.03", takeProfit "0.06"\n  protections: cooldownAfterStop 5\n',
    );
  });

  it("the catalogue says each strategy's warm-up at its defaults and where it comes from", async () => {
    // Without startupCandles the warm-up is derived from the largest period-like parameter.
    const derived = named('undeclared').replace(
      /\n\s*startupCandles: \(p\) => new EMA\(p\.period\)\.samplesNeeded,/,
      '',
    );
    writeFileSync(join(own, 'undeclared.ts'), derived);
    try {
      const list = await strategyCatalogue({ dirs: [own] });
      const of = (name: string) => list.find((e) => e.name === name && e.source === 'own')?.warmUp;
      expect(of('mine')).toEqual({ candles: 71, source: 'declared' }); // what an EMA of 20 needs
      expect(of('undeclared')).toEqual({ candles: 20, source: 'derived from "period"' });
      const rsi = list.find((e) => e.name === 'rsi-mean-reversion');
      expect(rsi?.warmUp).toEqual({ candles: 15, source: 'declared' });
      const text = formatCatalogue(list);
      expect(text).toContain('  warm-up: 15 candles (declared) at the defaults\n');
      expect(text).toContain('  warm-up: 20 candles (derived from "period") at the defaults\n');
    } finally {
      rmSync(join(own, 'undeclared.ts'));
    }
  });
});

describe('parseStrategyParams', () => {
  it('applies defaults and turns money into Decimals', async () => {
    const s = await loadStrategy('ma-crossover');
    const p = parseStrategyParams(s, { fast: 5 }) as {
      fast: number;
      slow: number;
      quoteAmount: { toFixed(): string };
    };
    expect(p.fast).toBe(5);
    expect(p.slow).toBe(26);
    expect(p.quoteAmount.toFixed()).toBe('100');
  });

  it('refuses an unknown parameter, suggesting the one that was meant', async () => {
    const s = await loadStrategy('ma-crossover');
    expect(() => parseStrategyParams(s, { fsat: 5 })).toThrow(
      /unknown parameter "fsat" \(did you mean "fast"\?\); known parameters: fast, slow, quoteAmount/,
    );
  });

  it('reports every invalid parameter at once, with its description and default', async () => {
    const s = await loadStrategy('rsi-mean-reversion');
    try {
      parseStrategyParams(s, { period: 'fourteen', quoteAmount: '-5', extra: true });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(StrategyParamsError);
      const err = e as StrategyParamsError;
      expect(err.strategy).toBe('rsi-mean-reversion');
      expect(err.problems).toHaveLength(3);
      expect(err.message).toMatch(/invalid parameters for strategy "rsi-mean-reversion"/);
      expect(err.message).toMatch(/unknown parameter "extra"/);
      expect(err.message).toMatch(
        /parameter "period": must be a number — got "fourteen" \(RSI period, in candles; default 14\)/,
      );
      expect(err.message).toMatch(/parameter "quoteAmount": must be above zero, got "-5"/);
    }
  });

  it('refuses params that are not a mapping', async () => {
    const s = await loadStrategy('template');
    expect(() => parseStrategyParams(s, [1, 2])).toThrow(
      /params must be a mapping of parameter names to values, got a list/,
    );
    expect(parseStrategyParams(s, null)).toMatchObject({ period: 20 });
  });
});
