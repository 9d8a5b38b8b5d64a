// Deployment files: the shipped ones load; every kind of mistake is reported with file, line, column,
// field path and a fix; secrets come from the environment or files.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BacktestConfigSchema,
  ConfigError,
  MAX_CONFIG_BYTES,
  configJsonSchema,
  loadConfig,
  loadYaml,
} from '../../../src/config/index.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const write = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const problemsOf = (file: string, env: NodeJS.ProcessEnv = {}) => {
  try {
    loadConfig(file, env);
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  throw new Error('expected a ConfigError');
};

const GOOD = `venue:
  kind: simulator
  speed: 60
bots:
  - name: one
    strategy: ma-crossover
    symbols: [AAPLUSDT]
    risk:
      maxOrderNotional: "500"
`;

describe('shipped configurations', () => {
  it('demo.yaml loads with its three bots and the embedded simulator', () => {
    const { config } = loadConfig('config/demo.yaml', {});
    expect(config.venue.kind).toBe('simulator');
    expect(config.bots.map((b) => b.name)).toEqual(['aapl-ma', 'tsla-rsi', 'nvda-session']);
    expect(config.bots[2]?.risk.allowedSessions).toEqual(['regular']);
  });
  it('live.example.yaml loads with its secrets from the environment and a file', () => {
    const { config, secrets } = loadConfig('config/live.example.yaml', {
      TRADEBOT_API_KEY: 'key-from-env',
      TRADEBOT_API_SECRET: 'secret-from-env',
    });
    expect(config.venue.kind === 'remote' && config.venue.credentials.passphrase).toBe('example-passphrase');
    expect(secrets).toEqual(
      expect.arrayContaining(['key-from-env', 'secret-from-env', 'example-passphrase']),
    );
  });
  it('backtest.yaml loads', () => {
    expect(loadYaml(BacktestConfigSchema, 'config/backtest.yaml', {}).config.strategy).toBe('ma-crossover');
  });
  it('applies defaults and freezes the result', () => {
    const { config } = loadConfig(write('good.yaml', GOOD), {});
    expect(config.bots[0]?.interval).toBe('1m');
    expect(config.metrics.port).toBe(9464);
    expect(Object.isFrozen(config.bots[0])).toBe(true);
    expect(config.bots[0]?.risk.maxOrderNotional?.toFixed()).toBe('500');
  });
});

describe('mistakes are reported with line and column', () => {
  it('an unknown key', () => {
    const [p] = problemsOf(
      write(
        'unknown.yaml',
        GOOD.replace('    strategy: ma-crossover', '    strategy: ma-crossover\n    symbolz: [X]'),
      ),
    );
    expect(p).toMatchObject({ line: 7, col: 5, path: 'bots[0].symbolz' });
    expect(p?.message).toMatch(/unknown key symbolz \(did you mean "symbols"\?\)/);
  });
  it('a misspelt key inside a nested object, and a value out of a list, with the nearest right one', () => {
    const ps = problemsOf(
      write(
        'typos.yaml',
        GOOD.replace(
          '    strategy: ma-crossover',
          '    strategy: ma-crossover\n    interval: 1h\n    poll: { tickerMs: 2000 }',
        ),
      ),
    );
    expect(ps.find((p) => p.path === 'bots[0].poll.tickerMs')?.message).toMatch(
      /unknown key tickerMs \(did you mean "tickersMs"\?\)/,
    );
    expect(ps.find((p) => p.path === 'bots[0].interval')?.message).toMatch(
      /got "1h" \(did you mean "1H"\?\)/,
    );
  });
  it('a wrong type and a number where a decimal string belongs', () => {
    const ps = problemsOf(
      write('types.yaml', GOOD.replace('speed: 60', 'speed: fast').replace('"500"', '500')),
    );
    expect(ps.find((p) => p.path === 'venue.speed')).toMatchObject({ line: 3, col: 10 });
    const d = ps.find((p) => p.path === 'bots[0].risk.maxOrderNotional');
    expect(d).toMatchObject({ line: 9, col: 25 });
    expect(d?.message).toMatch(/decimal string .* got 500/);
  });
  it('a missing environment variable', () => {
    const [p] = problemsOf(write('env.yaml', GOOD.replace('speed: 60', 'speed: 60\n  seed: ${NOPE_SEED}')));
    expect(p).toMatchObject({ line: 4, col: 9 });
    expect(p?.message).toMatch(/NOPE_SEED is not set/);
  });
  it('a bad cron expression and a duplicate bot name', () => {
    const text = `${GOOD}    schedules:\n      - { cron: "every day", task: report }\n  - name: one\n    strategy: rsi-mean-reversion\n    symbols: [TSLAUSDT]\n`;
    const ps = problemsOf(write('cron.yaml', text));
    expect(ps.find((p) => p.path === 'bots[0].schedules[0].cron')?.message).toMatch(/valid cron expression/);
    expect(ps.find((p) => p.path === 'bots[1].name')).toMatchObject({
      line: 12,
      col: 11,
      message: expect.stringMatching(/already used/),
    });
  });
  it('two bots on one symbol without a fill attribution rule, and accepted with fillAttribution: fifo', () => {
    const two = `${GOOD}  - name: two\n    strategy: rsi-mean-reversion\n    symbols: [TSLAUSDT, AAPLUSDT]\n`;
    const [p] = problemsOf(write('shared.yaml', two));
    expect(p).toMatchObject({ path: 'bots[1].symbols[1]', line: 12 });
    expect(p?.message).toMatch(/AAPLUSDT is also traded by bots\[0\] \(one\).*set fillAttribution: fifo/);
    const ok = loadConfig(write('shared-fifo.yaml', `fillAttribution: fifo\n${two}`), {});
    expect(ok.config.fillAttribution).toBe('fifo');
    expect(ok.config.fills).toBe('venue');
  });
  it('a YAML syntax error', () => {
    const [p] = problemsOf(write('syntax.yaml', 'venue:\n  kind: simulator\n bots: [\n'));
    expect(p?.message).toMatch(/^YAML syntax/);
    expect(p?.line).toBeGreaterThanOrEqual(2);
  });
  it('a file that cannot be read, and one too large to be a deployment file, at line 1 column 1', () => {
    const missing = join(dir, 'nosuch.yaml');
    expect(problemsOf(missing)).toEqual([
      {
        file: missing,
        line: 1,
        col: 1,
        path: '',
        message: expect.stringMatching(/^cannot read the file: ENOENT/),
      },
    ]);
    const large = write('large.yaml', `${GOOD}#${'x'.repeat(MAX_CONFIG_BYTES)}\n`);
    expect(problemsOf(large)).toEqual([
      {
        file: large,
        line: 1,
        col: 1,
        path: '',
        message: `the file is ${MAX_CONFIG_BYTES + GOOD.length + 2} bytes, above the limit of ${MAX_CONFIG_BYTES}: a deployment file is a few kilobytes; check that this is the right file`,
      },
    ]);
  });
  it('a missing secret file', () => {
    const [p] = problemsOf(
      write(
        'file.yaml',
        `venue:\n  kind: remote\n  baseUrl: https://x.example\n  credentials:\n    apiKey: \${K}\n    apiSecret: { file: nope.txt }\n    passphrase: \${P}\nbots: [{ name: a, strategy: x, symbols: [AAPLUSDT] }]\n`,
      ),
      { K: 'k123', P: 'p123' },
    );
    expect(p).toMatchObject({
      line: 6,
      message: expect.stringMatching(/cannot read the secret file .*nope.txt: ENOENT/),
    });
  });
});

describe('JSON Schema', () => {
  it('describes every bot field', () => {
    const schema = JSON.stringify(configJsonSchema());
    for (const word of ['maxOrderNotional', 'allowedSessions', 'tickersMs', 'schedules', 'baseUrl'])
      expect(schema).toContain(word);
  });
});
