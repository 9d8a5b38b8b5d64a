// A user's own strategy, in a folder outside the repository with no node_modules, importing everything
// from 'tradebot': the built command runs it by name (strategiesDir) and by .ts path in a backtest, in a
// sweep's worker threads and in the daemon on the embedded simulator, with no extra flag; a .js one too.
// Also the author's tools: `new strategy`, `strategies` and validate's file:line:col.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runCli, startCli } from '../helpers/cli.js';
import { redisMissing, startRedis } from '../helpers/redis.js';

const repo = join(import.meta.dirname, '..', '..');
// The user's project: outside the repository, no package.json, no node_modules anywhere above it.
const home = mkdtempSync(join(tmpdir(), 'tradebot-own-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));
const project = join(home, 'project');
const out = join(home, 'results');
/** Somewhere else to run from: names resolve against the backtest file's folder, not the cwd. */
const elsewhere = join(home, 'elsewhere');
mkdirSync(join(project, 'strategies'), { recursive: true });
mkdirSync(elsewhere, { recursive: true });

// The bundled template, copied as a user would and renamed: it imports from 'tradebot' only.
const template = readFileSync(join(repo, 'strategies', 'template.ts'), 'utf8');
expect(template).toMatch(/from 'tradebot';/);
writeFileSync(
  join(project, 'strategies', 'my-ema.ts'),
  template.replace("name: 'template',", "name: 'my-ema',"),
);
// The same with no cap on its period: a warm-up longer than a bot's start can backfill.
expect(template).toContain('.max(1000)');
writeFileSync(
  join(project, 'strategies', 'huge-ema.ts'),
  template.replace("name: 'template',", "name: 'huge-ema',").replace('.max(1000)', '.max(1_000_000)'),
);

// A plain .js strategy, which also takes an indicator straight from trading-signals (a dependency of
// tradebot, found although this folder has no node_modules).
mkdirSync(join(project, 'js-strategies'));
writeFileSync(
  join(project, 'js-strategies', 'js-sma.js'),
  `import { SMA } from 'trading-signals';
import { buyMarket, decimalParam, defineStrategy, sellMarket, z } from 'tradebot';

export default defineStrategy({
  name: 'js-sma',
  description: 'Buys when the close is above its SMA, sells the position when it is below.',
  params: z.object({
    period: z.number().int().min(2).default(5).describe('SMA period, in candles'),
    quoteAmount: decimalParam('50', 'quote coin spent per entry'),
  }),
  intervals: ['1m'],
  init: (ctx) => new SMA(ctx.params.period),
  onCandle(c, ctx, emit, sma) {
    const avg = sma.update(c.close, false);
    if (avg === null) return;
    const held = ctx.portfolio.position(c.symbol).quantity;
    if (c.close > avg && !held.gt(0)) emit(buyMarket(c.symbol, ctx.params.quoteAmount, 'entry', 'above SMA', ctx.category));
    else if (c.close < avg && held.gt(0)) emit(sellMarket(c.symbol, held, 'exit', 'below SMA', ctx.category));
  },
});
`,
);

const DATASET = 'synthetic-1m:7:20000';
const backtestFile = (name: string, body: Record<string, unknown>): string => {
  const f = join(project, `${name}.yaml`);
  writeFileSync(f, stringify({ name, dataset: DATASET, ...body }));
  return f;
};
const tradeHash = (stdout: string): string => {
  const m = /trade hash\s+([0-9a-f]{64})/.exec(stdout);
  expect(m, stdout).not.toBeNull();
  return (m as RegExpExecArray)[1] as string;
};
const closedTrades = (name: string): number =>
  (JSON.parse(readFileSync(join(out, name, 'result.json'), 'utf8')) as { trades: unknown[] }).trades.length;

describe('an own strategy outside the repository, with the built command and no extra flag', () => {
  let bundledHash = '';

  it('backtest by name: strategiesDir defaults to strategies next to the backtest file', async () => {
    // The same code bundled, for reference: the copy must trade exactly like it.
    const ref = await runCli(
      ['backtest', '--dataset', DATASET, '--strategy', 'template', '--name', 'ref', '--out', out],
      {},
      60_000,
    );
    expect(ref.code, ref.stderr).toBe(0);
    bundledHash = tradeHash(ref.stdout);

    const f = backtestFile('by-name', { strategy: 'my-ema' });
    const r = await runCli(['backtest', '--config', f, '--out', out], {}, 60_000, elsewhere);
    expect(r.code, r.stderr).toBe(0);
    expect(tradeHash(r.stdout)).toBe(bundledHash);
    expect(closedTrades('by-name')).toBeGreaterThan(0);
  }, 120_000);

  it('the template at period 200 makes no trade before candle 692 of synthetic-1m:3:5000 (its warm-up: what an EMA of 200 needs)', async () => {
    const r = await runCli(
      [
        'backtest',
        '--dataset',
        'synthetic-1m:3:5000',
        '--strategy',
        'template',
        '--params',
        '{"period":200}',
        '--name',
        'template-200',
        '--out',
        out,
      ],
      {},
      60_000,
    );
    expect(r.code, r.stderr).toBe(0);
    const res = JSON.parse(readFileSync(join(out, 'template-200', 'result.json'), 'utf8')) as {
      meta: { from: number };
      fills: { ts: number }[];
      warmUp: { candles: number; intents: number };
    };
    expect(res.fills.length).toBeGreaterThan(0);
    // A fill is at the open of the candle after the one decided on: candle 693 at the earliest. (The EMA of
    // trading-signals answered from the first close: the first trade came at candle 32.)
    const firstFillCandle = (res.fills[0] as { ts: number }).ts - res.meta.from;
    expect(firstFillCandle / 60_000 + 1).toBeGreaterThanOrEqual(693);
    expect(res.warmUp).toMatchObject({ candles: 692, intents: 0 });
    expect(r.stdout).toMatch(
      /warm-up +692 candles per symbol and interval \(declared\); no intent before it/,
    );
    // The template declares what its EMA needs, so the backtest has no warm-up to warn about.
    expect(r.stderr).not.toContain('warm-up too short');
  }, 60_000);

  it('backtest by .ts path, relative to the working directory and absolute', async () => {
    const rel = await runCli(
      [
        'backtest',
        '--dataset',
        DATASET,
        '--strategy',
        './strategies/my-ema.ts',
        '--name',
        'rel',
        '--out',
        out,
      ],
      {},
      60_000,
      project,
    );
    expect(rel.code, rel.stderr).toBe(0);
    expect(tradeHash(rel.stdout)).toBe(bundledHash);
    const abs = await runCli(
      [
        'backtest',
        '--dataset',
        DATASET,
        '--strategy',
        join(project, 'strategies', 'my-ema.ts'),
        '--name',
        'abs',
        '--out',
        out,
      ],
      {},
      60_000,
      elsewhere,
    );
    expect(abs.code, abs.stderr).toBe(0);
    expect(tradeHash(abs.stdout)).toBe(bundledHash);
  }, 120_000);

  it('a .js strategy by name (an explicit strategiesDir) and by path', async () => {
    const f = backtestFile('js-name', { strategy: 'js-sma', strategiesDir: 'js-strategies' });
    const byName = await runCli(['backtest', '--config', f, '--out', out], {}, 60_000, elsewhere);
    expect(byName.code, byName.stderr).toBe(0);
    expect(closedTrades('js-name')).toBeGreaterThan(0);
    const byPath = await runCli(
      [
        'backtest',
        '--dataset',
        DATASET,
        '--strategy',
        'js-strategies/js-sma.js',
        '--name',
        'js-path',
        '--out',
        out,
      ],
      {},
      60_000,
      project,
    );
    expect(byPath.code, byPath.stderr).toBe(0);
    expect(tradeHash(byPath.stdout)).toBe(tradeHash(byName.stdout));
  }, 120_000);

  it('sweep runs it in worker threads', async () => {
    const f = backtestFile('swept', { strategy: 'my-ema' });
    const r = await runCli(
      ['sweep', '--config', f, '--grid', 'period=10,20', '--workers', '2', '--out', out],
      {},
      90_000,
      elsewhere,
    );
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(readFileSync(join(out, 'swept-sweep', 'sweep.json'), 'utf8')) as {
      params: Record<string, unknown>;
      error?: string;
      metrics?: { trades: number };
    }[];
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.error).toBeUndefined();
      expect(row.metrics?.trades).toBeGreaterThan(0);
    }
  }, 120_000);

  it.skipIf(redisMissing !== undefined)(
    `sweep on a BullMQ queue: a tradebot worker started elsewhere loads it${redisMissing ? ` (${redisMissing})` : ''}`,
    async () => {
      const redis = await startRedis();
      const w = startCli(['worker', '--queue', redis.url], {}, elsewhere);
      try {
        await w.waitFor(/worker ready/, 30_000);
        const f = backtestFile('queued', { strategy: 'my-ema' });
        const r = await runCli(
          ['sweep', '--config', f, '--grid', 'period=10,20', '--queue', redis.url, '--out', out],
          {},
          90_000,
          elsewhere,
        );
        expect(r.code, r.stderr).toBe(0);
        const queued = JSON.parse(readFileSync(join(out, 'queued-sweep', 'sweep.json'), 'utf8')) as {
          error?: string;
          metrics?: { trades: number };
        }[];
        expect(queued).toHaveLength(2);
        for (const row of queued) expect(row.metrics?.trades, row.error).toBeGreaterThan(0);
      } finally {
        w.proc.kill('SIGTERM');
        await w.exited;
        await redis.stop();
      }
    },
    120_000,
  );

  it('run: the daemon trades it on the embedded simulator and exits 0 on SIGTERM', async () => {
    const f = join(project, 'deploy.yaml');
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
        metrics: { enabled: true, port: 0 },
        status: { enabled: false },
        bots: [
          {
            name: 'mine',
            strategy: 'my-ema',
            params: { period: 2, quoteAmount: '500' },
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
    const d = startCli(['run', '--config', f], {}, elsewhere);
    await d.waitFor(/"message":"running"/, 30_000);
    await d.waitFor(/"message":"order placed".*"bot":"mine"|"bot":"mine".*"message":"order placed"/, 60_000);
    d.proc.kill('SIGTERM');
    expect((await d.exited).code, d.stderr.slice(-2000)).toBe(0);
  }, 120_000);

  it('an unknown name exits 2 and lists the folders searched and the names there', async () => {
    const f = backtestFile('unknown', { strategy: 'my-emma' });
    const r = await runCli(['backtest', '--config', f, '--out', out], {}, 60_000, elsewhere);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `strategy "my-emma" (did you mean "my-ema"?) not found in ${join(project, 'strategies')} (yours) or`,
    );
    expect(r.stderr).toMatch(
      /\(bundled\): use one of huge-ema, my-ema, bollinger-reversion, ma-crossover, .*template/,
    );
  }, 60_000);
});

describe("the author's tools", () => {
  const scratch = join(home, 'scratch');
  mkdirSync(scratch, { recursive: true });

  it('new strategy writes a strategy and a backtest file that validates and runs; never overwrites', async () => {
    const made = await runCli(['new', 'strategy', 'bb-revert'], {}, 30_000, scratch);
    expect(made.code, made.stderr).toBe(0);
    const file = join(scratch, 'strategies', 'bb-revert.ts');
    const yamlFile = join(scratch, 'bb-revert.backtest.yaml');
    expect(readFileSync(file, 'utf8')).toContain("name: 'bb-revert',");
    expect(existsSync(yamlFile)).toBe(true);
    const ok = await runCli(['validate', yamlFile], {}, 120_000, elsewhere);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('ok (backtest)');
    const run = await runCli(['backtest', '--config', yamlFile, '--out', out], {}, 60_000, elsewhere);
    expect(run.code, run.stderr).toBe(0);

    const before = readFileSync(file, 'utf8') + 'edited';
    writeFileSync(file, before);
    const again = await runCli(['new', 'strategy', 'bb-revert'], {}, 30_000, scratch);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already exists: pick another name/);
    expect(readFileSync(file, 'utf8')).toBe(before);
  }, 300_000);

  it.each(['Bad_Name', 'x--y', '-x'])('new strategy refuses the name %s with exit 2', async (name) => {
    const r = await runCli(['new', 'strategy', '--', name], {}, 30_000, scratch);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/kebab-case/);
  });

  it('strategies lists yours and the bundled ones with parameters, defaults and descriptions', async () => {
    const r = await runCli(
      ['strategies', '--json', '--dir', join(project, 'strategies')],
      {},
      30_000,
      elsewhere,
    );
    expect(r.code, r.stderr).toBe(0);
    const list = JSON.parse(r.stdout) as {
      name: string;
      source: string;
      description: string;
      params: { name: string; default: unknown; description: string }[];
    }[];
    const mine = list.find((s) => s.name === 'my-ema');
    expect(mine?.source).toBe('own');
    expect(mine?.params).toEqual([
      { name: 'period', default: 20, description: 'EMA period, in candles' },
      {
        name: 'quoteAmount',
        default: '50',
        description: 'quote coin spent per entry, a decimal string such as "50"',
      },
    ]);
    const ma = list.find((s) => s.name === 'ma-crossover');
    expect(ma?.source).toBe('bundled');
    expect(ma?.description).toMatch(/moving average crossover/);
    expect(ma?.params.map((p) => [p.name, p.default])).toEqual([
      ['fast', 12],
      ['slow', 26],
      ['quoteAmount', '100'],
      ['retries', 3],
    ]);
    const text = await runCli(['strategies', '--dir', join(project, 'strategies')], {}, 30_000, elsewhere);
    expect(text.stdout).toMatch(
      /my-ema {2}\(yours: .*my-ema\.ts\)\n {2}Template strategy: .*\n {2}intervals: 1m, 5m, 15m, 1H\n {2}warm-up: 71 candles \(declared\) at the defaults\n {4}period {7}20 {4}EMA period, in candles/,
    );
  }, 60_000);

  it('validate and run refuse a bot whose warm-up the venue cannot backfill at its start', async () => {
    const dep = join(project, 'slow-deploy.yaml');
    const deployment = (period: number) =>
      [
        'venue: { kind: simulator, startTime: "2026-11-23T15:00:00Z" }',
        'bots:',
        '  - name: slow',
        '    strategy: huge-ema',
        `    params: { period: ${period} }`,
        '    symbols: [AAPLUSDT]',
        '    interval: 1m',
        '',
      ].join('\n');
    writeFileSync(dep, deployment(200_000));
    const bad = await runCli(['validate', dep], {}, 120_000, elsewhere);
    expect(bad.code, bad.stderr).toBe(2);
    expect(bad.stderr).toContain(
      `${dep}:4:15 bots[0].strategy: its warm-up cannot be backfilled (declared): a warm-up of 690,777 candles of 1m takes a backfill of 690,777 1m candles per symbol: 6,978 history-candles requests, more than the 1,200 a bot's start may take`,
    );
    expect(bad.stderr).toContain('(bot slow, strategy huge-ema)');
    const run = await runCli(['run', '--config', dep], {}, 30_000, elsewhere);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('its warm-up cannot be backfilled');
    writeFileSync(dep, deployment(200));
    const ok = await runCli(['validate', dep], {}, 120_000, elsewhere);
    expect(ok.code, ok.stderr).toBe(0);
  }, 300_000);

  it('validate loads the strategy a file names and puts each problem at its file:line:col', async () => {
    const f = join(project, 'bad.backtest.yaml');
    writeFileSync(
      f,
      [
        'name: bad',
        `dataset: ${DATASET}`,
        'strategy: my-ema',
        'params:',
        '  period: 1',
        '  quoteAmount: 50',
        '  perod: 3',
        '',
      ].join('\n'),
    );
    const r = await runCli(['validate', f], {}, 120_000, elsewhere);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${f}:5:11 params.period: parameter "period"`);
    expect(r.stderr).toContain(
      `${f}:6:16 params.quoteAmount: parameter "quoteAmount": must be a decimal string, got the number 50: quote it as "50"`,
    );
    expect(r.stderr).toContain(`${f}:7:3 params.perod: unknown parameter "perod"`);
    expect(r.stderr).toContain('(strategy my-ema)');

    const dep = join(project, 'bad-deploy.yaml');
    writeFileSync(
      dep,
      [
        'strategiesDir: missing-folder',
        'venue: { kind: simulator }',
        'bots:',
        '  - name: a',
        '    strategy: my-ema',
        '    symbols: [AAPLUSDT]',
        '',
      ].join('\n'),
    );
    const d = await runCli(['validate', dep], {}, 120_000, elsewhere);
    expect(d.code).toBe(2);
    expect(d.stderr).toContain(`${dep}:1:16 strategiesDir: strategiesDir missing-folder is not a folder`);
    expect(d.stderr).toMatch(new RegExp(`${dep}:5:15 bots\\[0\\]\\.strategy: strategy "my-ema" not found`));
  }, 300_000);
});
