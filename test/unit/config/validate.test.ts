// validate is complete: each bot's strategy is loaded and its parameters checked against the strategy's
// schema; money is a decimal string; time zones come from the tz database; credentials are never literal;
// YAML resource limits are a problem with the file's name; the README's own examples load.
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BacktestConfigSchema,
  ConfigError,
  checkBacktestStrategy,
  loadDeployment,
  loadYaml,
  type ConfigProblem,
} from '../../../src/config/index.js';
import { runCli } from '../../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-validate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const write = (text: string, name = `f${++n}.yaml`) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

/** A deployment with one bot whose lines 6.. are `bot` (indented under the bot). */
const deployment = (bot: string) => `venue:
  kind: simulator
bots:
  - name: one
    symbols: [AAPLUSDT]
${bot
  .trim()
  .split('\n')
  .map((l) => `    ${l}`)
  .join('\n')}
`;

async function problemsOf(file: string, env: NodeJS.ProcessEnv = {}): Promise<ConfigProblem[]> {
  try {
    await loadDeployment(file, env);
  } catch (e) {
    if (e instanceof ConfigError) return [...e.problems];
    throw e;
  }
  throw new Error(`expected ${file} to be refused`);
}
const only = async (file: string, env: NodeJS.ProcessEnv = {}) => {
  const ps = await problemsOf(file, env);
  expect(ps, JSON.stringify(ps)).toHaveLength(1);
  return ps[0] as ConfigProblem;
};

describe('strategies are loaded and refused precisely', () => {
  it('accepts a bundled strategy with valid parameters', async () => {
    const f = write(deployment(`strategy: ma-crossover\nparams: { fast: 3, slow: 8, quoteAmount: "2000" }`));
    expect((await loadDeployment(f, {})).config.bots[0]?.strategy).toBe('ma-crossover');
  });

  it('an unknown strategy, with the known ones', async () => {
    const p = await only(write(deployment('strategy: no-such-strategy')));
    expect(p).toMatchObject({ line: 6, col: 15, path: 'bots[0].strategy' });
    expect(p.message).toMatch(/strategy "no-such-strategy" not found .*use one of .*ma-crossover/);
  });

  it('a path outside the allowed folders, and a file that is not a module', async () => {
    const p = await only(write(deployment('strategy: ../../../../etc/passwd')));
    expect(p).toMatchObject({ line: 6, col: 15, path: 'bots[0].strategy' });
    expect(p.message).toMatch(/not a strategy module: a path must name a \.ts, \.js or \.mjs file/);
    const readme = await only(write(deployment('strategy: ./README.md')));
    expect(readme.message).toMatch(/"\.\/README\.md" is not a strategy module/);
    const escape = await only(write(deployment('strategy: ../../../../tmp/evil.mjs')));
    expect(escape.message).toMatch(
      /leads to \/tmp\/evil\.mjs, outside .*give its absolute path if you mean it/,
    );
  });

  it("a strategy in the deployment's own folder, by a relative path; the same path from another folder is refused", async () => {
    mkdirSync(join(dir, 'own'), { recursive: true });
    mkdirSync(join(dir, 'other'), { recursive: true });
    // The module imports rxjs and zod as a user's would: they resolve through this link.
    symlinkSync(resolve('node_modules'), join(dir, 'node_modules'));
    copyFileSync('test/e2e/fixtures/crashing-strategy.mjs', join(dir, 'own', 'mine.mjs'));
    const ref = relative(process.cwd(), join(dir, 'own', 'mine.mjs'));
    const bot = deployment(`strategy: ${ref}\nparams: { failAt: 3 }`);
    const { config } = await loadDeployment(write(bot, 'own/deploy.yaml'), {});
    expect(config.bots[0]?.strategy).toBe(ref);
    const p = await only(write(bot, 'other/deploy.yaml'));
    expect(p.message).toMatch(/outside .*give its absolute path if you mean it/);
  });

  it.each([
    ['fast: -1', /parameter "fast": must be at least 1 — got -1/, 21],
    ['fast: "3"', /parameter "fast": must be a number — got "3"/, 21],
    ['fast: 2.5', /parameter "fast": must be a whole number — got 2.5/, 21],
  ])('a parameter of the wrong kind: %s', async (param, message, col) => {
    const p = await only(write(deployment(`strategy: ma-crossover\nparams: { ${param} }`)));
    expect(p).toMatchObject({ line: 7, col, path: 'bots[0].params.fast' });
    expect(p.message).toMatch(message);
    expect(p.message).toMatch(/strategy ma-crossover/);
  });

  it('a cross-field rule the strategy declares (fast: 10, slow: 5)', async () => {
    const p = await only(write(deployment(`strategy: ma-crossover\nparams: { fast: 10, slow: 5 }`)));
    expect(p).toMatchObject({ line: 7, col: 31, path: 'bots[0].params.slow' });
    expect(p.message).toMatch(/slow must be above fast/);
  });

  it('an unknown parameter, with the closest known one', async () => {
    const p = await only(write(deployment(`strategy: ma-crossover\nparams:\n  fsat: 3`)));
    expect(p).toMatchObject({ line: 8, col: 7, path: 'bots[0].params.fsat' });
    expect(p.message).toMatch(/unknown parameter "fsat" \(did you mean "fast"\?\)/);
  });

  it('money as a number is refused with the quoted spelling; a negative amount too', async () => {
    const num = await only(write(deployment(`strategy: ma-crossover\nparams: { quoteAmount: 2000 }`)));
    expect(num).toMatchObject({ line: 7, col: 28, path: 'bots[0].params.quoteAmount' });
    expect(num.message).toMatch(/got the number 2000: quote it as "2000"/);
    const neg = await only(write(deployment(`strategy: ma-crossover\nparams: { quoteAmount: "-2000" }`)));
    expect(neg.message).toMatch(/must be above zero, got "-2000"/);
  });

  it('every problem of every bot at once', async () => {
    const f = write(`venue: { kind: simulator }
bots:
  - { name: a, symbols: [AAPLUSDT], strategy: nope }
  - { name: b, symbols: [MSFTUSDT], strategy: rsi-mean-reversion, params: { period: 0 } }
`);
    const ps = await problemsOf(f);
    expect(ps.map((p) => p.path)).toEqual(['bots[0].strategy', 'bots[1].params.period']);
  });

  it('strategy problems show together with the schema problems of the same file', async () => {
    const ps = await problemsOf(
      write(deployment(`strategy: ma-crossover\ncapital: "0"\nparams: { fast: -1 }`)),
    );
    expect(ps.map((p) => p.path)).toEqual(['bots[0].capital', 'bots[0].params.fast']);
  });

  it('a bot interval its strategy does not declare, as a backtest refuses it (reality-session at 1H)', async () => {
    const p = await only(write(deployment(`strategy: reality-session\ninterval: 1H`)));
    expect(p).toMatchObject({ line: 6, path: 'bots[0].strategy' });
    expect(p.message).toBe(
      "declares the intervals 1m, 5m, 15m, and the bot's interval is 1H: set interval to one of them (bot one, strategy reality-session)",
    );
  });

  it('validate --backtest checks the strategy of a backtest definition too', async () => {
    const f = write(`dataset: synthetic-1m:1:100\nstrategy: ma-crossover\nparams: { fast: 10, slow: 5 }\n`);
    await expect(checkBacktestStrategy(loadYaml(BacktestConfigSchema, f, {}))).rejects.toThrow(
      /params\.slow: .*slow must be above fast/,
    );
  });
});

describe('the rest of the file', () => {
  it('capital "0" is refused', async () => {
    const p = await only(write(deployment(`strategy: ma-crossover\ncapital: "0"`)));
    expect(p).toMatchObject({ line: 7, col: 14, path: 'bots[0].capital' });
    expect(p.message).toMatch(/capital must be above zero/);
  });

  it('a time zone unknown to the tz database is refused', async () => {
    const p = await only(
      write(
        deployment(
          `strategy: ma-crossover\nschedules: [{ cron: "0 16 * * 1-5", timezone: Mars/Olympus, task: report }]`,
        ),
      ),
    );
    expect(p).toMatchObject({ line: 7, path: 'bots[0].schedules[0].timezone' });
    expect(p.message).toMatch(/time zone of the tz database, such as America\/New_York/);
  });

  it('a literal credential is refused with the fix, without echoing it', async () => {
    const f = write(`venue:
  kind: remote
  baseUrl: https://api.example.com
  credentials:
    apiKey: plaintextkey123
    apiSecret: \${SECRET}
    passphrase: { file: pass.txt }
bots: [{ name: a, strategy: ma-crossover, symbols: [AAPLUSDT] }]
`);
    writeFileSync(join(dir, 'pass.txt'), 'from-a-file\n');
    const p = await only(f, { SECRET: 'from-env' });
    expect(p).toMatchObject({ line: 5, col: 13, path: 'venue.credentials.apiKey' });
    expect(p.message).toMatch(
      /a secret written in the file is refused: use \$\{TRADEBOT_API_KEY\}.* or \{ file:/,
    );
    expect(p.message).not.toContain('plaintextkey123');
  });

  it('the dashboard token: a literal is refused, ${ENV} and { file } are taken, an unset ${VAR:-} means read-only', async () => {
    const dash = (token: string, host = '127.0.0.1') =>
      write(`venue: { kind: simulator }
dashboard:
  enabled: true
  host: ${host}
  token: ${token}
bots: [{ name: a, strategy: ma-crossover, symbols: [AAPLUSDT] }]
`);
    const literal = await only(dash('literal-dashboard-token-123'));
    expect(literal).toMatchObject({ line: 5, path: 'dashboard.token' });
    expect(literal.message).toMatch(/use \$\{TRADEBOT_DASHBOARD_TOKEN\}.* or \{ file:/);
    expect(literal.message).not.toContain('literal-dashboard-token-123');
    const fromEnv = await loadDeployment(dash('${TOKEN}'), { TOKEN: 'from-the-environment-0001' });
    expect(fromEnv.config.dashboard.token).toBe('from-the-environment-0001');
    // The token is a secret: the logger is told to scrub it.
    expect(fromEnv.secrets).toContain('from-the-environment-0001');
    writeFileSync(join(dir, 'token.txt'), 'from-a-file-000000000001\n');
    expect((await loadDeployment(dash('{ file: token.txt }'), {})).config.dashboard.token).toBe(
      'from-a-file-000000000001',
    );
    expect((await loadDeployment(dash('${TOKEN:-}'), {})).config.dashboard.token).toBeUndefined();
    const short = await only(dash('${TOKEN}'), { TOKEN: 'short' });
    expect(short.message).toMatch(/at least 16 characters/);
    expect(short.message).not.toContain('short"');
  });

  it('a dashboard on a non-loopback address without a token is refused with the reason', async () => {
    const f = write(`venue: { kind: simulator }
dashboard: { enabled: true, host: 0.0.0.0 }
bots: [{ name: a, strategy: ma-crossover, symbols: [AAPLUSDT] }]
`);
    const p = await only(f);
    expect(p).toMatchObject({ path: 'dashboard.host' });
    expect(p.message).toMatch(/listen on 0\.0\.0\.0 without a token: anyone who reaches that address/);
    const withToken = write(`venue: { kind: simulator }
dashboard: { enabled: true, host: 0.0.0.0, token: "\${T}" }
bots: [{ name: a, strategy: ma-crossover, symbols: [AAPLUSDT] }]
`);
    expect((await loadDeployment(withToken, { T: 'a-long-enough-token-0001' })).config.dashboard.host).toBe(
      '0.0.0.0',
    );
    // run refuses to start, with the sentence and exit 2, before opening anything.
    const r = await runCli(['run', '--config', f]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/the daemon did not start/);
    expect(r.stderr).toMatch(/dashboard\.host: the dashboard would listen on 0\.0\.0\.0 without a token/);
  });

  it('a literal credential that is not even a string is refused without echoing it', async () => {
    const f = write(`venue:
  kind: remote
  baseUrl: https://api.example.com
  credentials: { apiKey: 987654321, apiSecret: "\${S}", passphrase: "\${S}" }
bots: [{ name: a, strategy: ma-crossover, symbols: [AAPLUSDT] }]
`);
    const ps = await problemsOf(f, { S: 'from-env' });
    expect(ps.map((p) => p.path)).toContain('venue.credentials.apiKey');
    expect(JSON.stringify(ps)).not.toContain('987654321');
  });

  it("the README's old example (an unquoted ${VAR} inside { ... }) is one problem with the fix, not a cascade", async () => {
    const f = write(
      'venue: { kind: remote, baseUrl: https://x.example, credentials: { apiKey: ${TRADEBOT_API_KEY}, apiSecret: ${TRADEBOT_API_SECRET}, passphrase: { file: ./p.txt } } }\nbots: []\n',
    );
    const p = await only(f);
    expect(p.line).toBe(1);
    expect(p.message).toMatch(
      /^YAML syntax: .*a \$\{VAR\} inside \{ \.\.\. \} must be quoted, e\.g\. apiKey: "\$\{TRADEBOT_API_KEY\}"/,
    );
    expect(p.message).toMatch(/\(\d+ more errors? after it follows? from this one\)/);
  });

  it('an alias bomb ends in a problem with the file name, not a crash', async () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      const cur = String.fromCharCode(97 + i);
      lines.push(`${cur}: &${cur} [${Array(10).fill(`*${prev}`).join(',')}]`);
    }
    const f = write(`${lines.join('\n')}\n`, 'bomb.yaml');
    const p = await only(f);
    expect(p.file).toBe(f);
    expect(p.message).toMatch(/YAML resource limit: .*alias/i);
    const cli = await runCli(['validate', f]);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain(`${f}:1:1 YAML resource limit`);
  });
});

describe('validate warns of exits that resting orders can block (issue 30)', () => {
  it('a stop-loss beside limit sells: valid (exit 0), with a warning that names the file and the safe pattern', async () => {
    const fixture = resolve('test/integration/backtest/fixtures/resting-take-profit.ts');
    const f = write(
      `name: xb\ndataset: synthetic-1m:1:100:BTCUSDT\nstrategy: ${fixture}\n`,
      'blockable.yaml',
    );
    const cli = await runCli(['validate', f]);
    expect(cli.code).toBe(0);
    expect(cli.stdout).toBe(`${f}: ok (backtest)\n`);
    expect(cli.stderr).toContain(
      `${f}: warning: strategy: strategy "resting-take-profit" has stopLoss exits and builds limit sells (${fixture} calls limit(..., 'sell', ...))`,
    );
    const plain = write(
      'name: ma\ndataset: synthetic-1m:1:100:BTCUSDT\nstrategy: ma-crossover\n',
      'plain.yaml',
    );
    expect((await runCli(['validate', plain])).stderr).toBe('');
  });
});

describe('validate warns of a MARGIN bot that shares its account', () => {
  it('valid (exit 0), with a warning naming the bot and the fix; a MARGIN bot alone has none', async () => {
    const short = (name: string) =>
      `  - name: ${name}\n    strategy: ma-crossover-short\n    category: MARGIN\n    symbols: [AAPLUSDT]\n    leverage: [{ category: MARGIN, coin: AAPL, leverage: "3" }]\n`;
    const long = '  - name: longy\n    strategy: ma-crossover\n    symbols: [TSLAUSDT]\n';
    const venue = 'venue: { kind: simulator, startTime: "2026-11-23T15:00:00Z" }\nbots:\n';
    const shared = write(`${venue}${short('shorty')}${long}`);
    const cli = await runCli(['validate', '--offline', shared]);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stderr).toContain(
      `${shared}: warning: bots[0] (shorty): trades MARGIN on the account it shares with 1 other bot: the venue's loans are the account's`,
    );
    expect(cli.stderr).toContain('run a MARGIN bot in a deployment of its own, on its own account');
    expect(cli.stderr).not.toContain('bots[1] (longy)');
    const alone = write(`${venue}${short('shorty')}`);
    const one = await runCli(['validate', '--offline', alone]);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stderr).not.toContain('MARGIN');
  });
});

describe('run refuses what validate refuses', () => {
  it('a bad strategy parameter stops run before anything starts, with exit 2 and file:line:col', async () => {
    const f = write(deployment(`strategy: ma-crossover\nparams: { fast: 10, slow: 5 }`));
    const r = await runCli(['run', '--config', f]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/the daemon did not start/);
    expect(r.stderr).toContain(`${f}:7:31 bots[0].params.slow`);
  });

  it('store.path under /proc is a problem of the file, for validate too', async () => {
    const f = write(
      `venue: { kind: simulator }\nstore: { path: /proc/x/j.db }\nbots: [{ name: a, strategy: ma-crossover, symbols: [AAPLUSDT] }]\n`,
    );
    const p = await only(f);
    expect(p).toMatchObject({ line: 2, path: 'store.path' });
    expect(p.message).toMatch(/not under \/proc/);
  });
});

describe("the README's YAML examples", () => {
  it('each ```yaml block of the README parses and loads (env and secret files supplied)', async () => {
    const blocks = [...readFileSync('README.md', 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g)].map(
      (m) => m[1] as string,
    );
    expect(blocks.length).toBeGreaterThan(0);
    const here = join(dir, 'readme');
    mkdirSync(join(here, 'secrets'), { recursive: true });
    writeFileSync(join(here, 'secrets', 'passphrase.txt'), 'readme-pass\n');
    for (const [i, text] of blocks.entries()) {
      const f = join(here, `block${i}.yaml`);
      writeFileSync(f, text);
      const { config } = await loadDeployment(f, {
        TRADEBOT_API_KEY: 'readme-key',
        TRADEBOT_API_SECRET: 'readme-secret',
        TRADEBOT_DASHBOARD_TOKEN: 'readme-dashboard-token-0001',
        SLACK_WEBHOOK_URL: 'https://hooks.example.com/services/readme',
        TRADEBOT_TELEGRAM_TOKEN: '123:readme-token',
      });
      expect(config.bots.length).toBeGreaterThan(0);
    }
  });
});
