// Issue 30, "errors with a place, checks that check": what `tradebot validate`, `backtest` and `run` say
// about a strategy file and its parameters, through the built command.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runCli, startCli } from '../helpers/cli.js';

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

// A user's strategy that logs on every candle and throws on its 40th, in a .ts file outside the package.
const THROWER = `import { defineStrategy, z } from 'tradebot';

export default defineStrategy({
  name: 'thrower',
  description: 'Logs every candle, throws on the fortieth.',
  params: z.object({}),
  intervals: ['1m'],
  init: () => ({ seen: 0 }),
  onCandle(c, ctx, _emit, state) {
    state.seen++;
    ctx.logger.debug('candle seen', { close: c.close, seen: state.seen });
    if (state.seen === 40) ctx.logger.warn('about to fail');
    if (state.seen === 40) throw new Error('boom');
  },
});
`;
const LOGGER = THROWER.replace("name: 'thrower'", "name: 'chatty'").replace(
  "if (state.seen === 40) throw new Error('boom');",
  '',
);
writeFileSync(join(home, 'strategies', 'thrower.ts'), THROWER);
writeFileSync(join(home, 'strategies', 'chatty.ts'), LOGGER);

describe('a strategy failure names its place; ctx.logger writes strategy.log', () => {
  it('names the hook, file:line:col of the throw in the .ts file, the symbol and the candle time; --verbose adds the stack', async () => {
    const file = join(home, 'strategies', 'thrower.ts');
    const args = ['backtest', '--dataset', 'synthetic-1m:7:3000', '--strategy', file, '--out', out];
    const r = await runCli(args);
    expect(r.code, r.stderr).toBe(1);
    const line = THROWER.split('\n').findIndex((l) => l.includes("throw new Error('boom')")) + 1;
    const col = (THROWER.split('\n')[line - 1] as string).indexOf('new Error') + 1;
    expect(r.stderr).toMatch(
      new RegExp(
        `strategy "thrower" failed in onCandle at ${file.replace(/[.]/g, '\\.')}:${line}:${col} \\(SYNUSDT, candle 2025-01-06T00:39:00\\.000Z\\): boom`,
      ),
    );
    expect(r.stderr).not.toMatch(/^\s+at /m);
    const verbose = await runCli([...args, '--verbose']);
    expect(verbose.code).toBe(1);
    expect(verbose.stderr).toMatch(new RegExp(`^\\s+at .*thrower\\.ts:${line}:${col}`, 'm'));
  });

  it('writes one line per ctx.logger call to strategy.log; the terminal shows them from --log-level on, rate-limited', async () => {
    const file = join(home, 'strategies', 'chatty.ts');
    const quiet = await runCli([
      'backtest',
      '--dataset',
      'synthetic-1m:7:3000',
      '--strategy',
      file,
      '--name',
      'quiet',
      '--out',
      out,
    ]);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).not.toMatch(/candle seen/);
    expect(quiet.stdout).toMatch(/strategy\.log \(3,?001 lines of the strategy's log\)/);
    const log = readFileSync(join(out, 'quiet', 'strategy.log'), 'utf8')
      .trimEnd()
      .split('\n');
    expect(log).toHaveLength(3001);
    expect(log[0]).toMatch(/^2025-01-06T00:00:00\.000Z SYNUSDT debug candle seen close=[\d.]+ seen=1$/);
    expect(log.filter((l) => / warn about to fail$/.test(l))).toHaveLength(1);

    const loud = await runCli([
      'backtest',
      '--dataset',
      'synthetic-1m:7:3000',
      '--strategy',
      file,
      '--name',
      'loud',
      '--out',
      out,
      '--log-level',
      'debug',
    ]);
    expect(loud.code, loud.stderr).toBe(0);
    expect(loud.stderr).toMatch(/^strategy: \S+ SYNUSDT debug candle seen close=[\d.]+ seen=1$/m);
    // Not 3,001 lines on the terminal: the rest is counted, and said.
    expect(loud.stderr.split('\n').filter((l) => l.includes('candle seen')).length).toBeLessThan(1000);
    expect(loud.stderr).toMatch(
      /strategy: \d+ log lines not shown here \(too many at once\); every line is in strategy\.log/,
    );
  });
});

// A strategy with a type error, freqtrade's stop-loss name and a misspelt hook: it loads in no run.
const BAD = `import { buyMarket, defineStrategy, z } from 'tradebot';

export default defineStrategy({
  name: 'bad',
  description: 'Has a type error, a freqtrade name and a misspelt hook.',
  params: z.object({ period: z.number().int().default(14).describe('period, in candles') }),
  intervals: ['1m'],
  stoploss: -0.1,
  onCandle(c, ctx, emit) {
    const reason: string = ctx.params.period;
    emit(buyMarket(c.symbol, '100', 'entry', reason));
  },
  onFil() {},
});
`;
// Only a type error: it loads and runs, and validate says what TypeScript says.
const TYPO = `import { defineStrategy, z } from 'tradebot';

export default defineStrategy({
  name: 'typo',
  description: 'Reads a candle field that does not exist.',
  params: z.object({}),
  intervals: ['1m'],
  onCandle(c) {
    if (c.closed > 1) return;
  },
});
`;
writeFileSync(join(home, 'strategies', 'bad.ts'), BAD);
writeFileSync(join(home, 'strategies', 'typo.ts'), TYPO);
const placeOf = (text: string, needle: string): string => {
  const lines = text.split('\n');
  const i = lines.findIndex((l) => l.includes(needle));
  return `${i + 1}:${(lines[i] as string).indexOf(needle) + 1}`;
};

describe('tradebot validate checks a strategy file', () => {
  it('type-checks a .ts strategy against the package, refuses unknown keys with a did-you-mean and translates freqtrade names, each at file:line:col', async () => {
    const file = join(home, 'strategies', 'bad.ts');
    const r = await runCli(['validate', file], {}, 120_000);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toContain(
      `${file}:${placeOf(BAD, 'reason: string')} Type 'number' is not assignable to type 'string'`,
    );
    expect(r.stderr).toContain(
      `${file}:${placeOf(BAD, 'onFil()')} unknown key "onFil" (did you mean "onFill"?)`,
    );
    expect(r.stderr).toContain(
      `${file}:${placeOf(BAD, 'stoploss')} "stoploss" is freqtrade's name: write exits: { stopLoss: '0.1' }`,
    );
    expect(r.stderr).toMatch(/bad\.ts: \d+ problems\n$/);
  }, 150_000);

  it('says ok, type-checked, to the template copied as a user would', async () => {
    const file = join(home, 'strategies', 'mine.ts');
    const template = readFileSync(join(import.meta.dirname, '..', '..', 'strategies', 'template.ts'), 'utf8');
    writeFileSync(file, template.replace("name: 'template',", "name: 'mine',"));
    const r = await runCli(['validate', file], {}, 120_000);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`${file}: ok (strategy mine, type-checked)\n`);
    expect(r.code).toBe(0);
  }, 150_000);

  it('type-checks the own .ts strategy a backtest file names', async () => {
    const file = backtestFile('typo', { strategy: 'typo' });
    const r = await runCli(['validate', file], {}, 120_000);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toContain(
      `${join(home, 'strategies', 'typo.ts')}:${placeOf(TYPO, 'closed')} Property 'closed' does not exist on type 'Candle'`,
    );
  }, 150_000);
});

describe('tradebot backtest type-checks a .ts strategy as validate does', () => {
  it('refuses a type error at its file:line:col (exit 2, nothing run), and checks an unchanged strategy once', async () => {
    const cache = join(home, 'xdg-cache');
    const env = { XDG_CACHE_HOME: cache };
    const verdicts = join(cache, 'tradebot', 'type-check');
    const file = backtestFile('typo-run', { strategy: 'typo' });
    const bad = await runCli(['backtest', '--config', file, '--out', out], env, 120_000);
    expect(bad.code, bad.stdout + bad.stderr).toBe(2);
    expect(bad.stderr).toContain('the strategy has 1 type error; the backtest did not run');
    expect(bad.stderr).toContain(
      `${join(home, 'strategies', 'typo.ts')}:${placeOf(TYPO, 'closed')} Property 'closed' does not exist on type 'Candle'`,
    );
    expect(bad.stdout).not.toContain('result.json');

    // Fixed, it runs; its verdict is kept, and a second run of the unchanged files reads it, not rewrites it.
    const fixedText = TYPO.replace("name: 'typo'", "name: 'typo-fixed'").replace('c.closed', 'c.close');
    const dir = join(home, 'fixed-strategies');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'typo-fixed.ts'), fixedText);
    const fixed = backtestFile('typo-fixed', { strategy: 'typo-fixed', strategiesDir: dir });
    const first = await runCli(['backtest', '--config', fixed, '--out', out], env, 120_000);
    expect(first.code, first.stderr).toBe(0);
    const kept = readdirSync(verdicts).filter((n) => n.endsWith('.json'));
    const verdict = kept
      .map((n) => join(verdicts, n))
      .find((f) => readFileSync(f, 'utf8').includes('typo-fixed'));
    expect(verdict, kept.join(', ')).toBeDefined();
    const inode = statSync(verdict as string).ino;
    const second = await runCli(['backtest', '--config', fixed, '--out', out], env, 120_000);
    expect(second.code, second.stderr).toBe(0);
    expect(statSync(verdict as string).ino).toBe(inode);
    expect(readdirSync(verdicts)).toHaveLength(kept.length);
    // A change to the strategy is another verdict: an error brought in is found, not read from the cache.
    writeFileSync(join(dir, 'typo-fixed.ts'), fixedText.replace('c.close', 'c.clsoe'));
    const broken = await runCli(['backtest', '--config', fixed, '--out', out], env, 120_000);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain("Property 'clsoe' does not exist on type 'Candle'");
  }, 300_000);
});

describe('run --verbose', () => {
  it('logs a strategy failure with its place, and with --verbose its stack', async () => {
    const live = THROWER.replace("name: 'thrower'", "name: 'thrower-live'").replaceAll('=== 40', '=== 3');
    writeFileSync(join(home, 'strategies', 'thrower-live.ts'), live);
    const f = join(home, 'deploy.yaml');
    writeFileSync(
      f,
      stringify({
        venue: {
          kind: 'simulator',
          seed: 42,
          speed: 300,
          startTime: '2026-11-23T14:35:00Z',
          port: 0,
          account: { balances: { USDT: '30000' } },
        },
        store: { path: join(home, 'run.db') },
        logging: { level: 'info', format: 'json' },
        metrics: { enabled: false },
        status: { enabled: false },
        bots: [
          {
            name: 'thrower',
            strategy: 'thrower-live',
            symbols: ['AAPLUSDT'],
            interval: '1m',
            capital: '10000',
            risk: {
              allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'],
              maxDataAgeMs: 60000,
            },
          },
        ],
      }),
    );
    const d = startCli(['run', '--config', f, '--verbose'], {}, home);
    try {
      const line = `${placeOf(live, "new Error('boom')")}`;
      await d.waitFor(
        new RegExp(
          `"error":"strategy \\\\"thrower-live\\\\" failed in onCandle at [^"]*thrower-live\\.ts:${line} \\(AAPLUSDT, candle 2026-11-2\\dT\\d\\d:\\d\\d:00\\.000Z\\): boom"`,
        ),
        60_000,
      );
      await d.waitFor(new RegExp(`"stack":"Error: boom\\\\n\\s+at [^"]*thrower-live\\.ts:${line}`), 10_000);
    } finally {
      d.proc.kill('SIGTERM');
      await d.exited;
    }
  }, 120_000);
});
