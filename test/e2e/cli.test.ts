// The tradebot command from the outside: help, exit codes, validation messages, schema, api calls.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { demoConfigFile } from '../helpers/demo-config.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-cli-'));
/** The embedded simulator of `api --sim`, pinned to a Monday in the regular session: the same on any day. */
const SIM_START = ['--sim-start-time', '2026-11-23T15:00:00Z'];
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('tradebot CLI', () => {
  it('lists every command in --help', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    for (const c of ['run', 'sim', 'validate', 'schema', 'api', 'account']) expect(r.stdout).toContain(c);
  });

  it('validate accepts the demo and exits 0', async () => {
    const r = await runCli(['validate', 'config/demo.yaml']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('config/demo.yaml: ok (3 bots; symbols listed by the embedded simulator)');
  });

  it('validate refuses what run refuses: a symbol the simulator does not list, a pair that is no Reality pair, each at its line', async () => {
    const f = demoConfigFile(dir, 'symbols', (demo) => {
      const [first, second] = demo.bots;
      if (first === undefined || second === undefined) throw new Error('the demo has fewer than two bots');
      first.symbols = [...first.symbols, 'NOPEUSDT'];
      second.symbols = ['BTCUSDT'];
    });
    const v = await runCli(['validate', f]);
    expect(v.code, v.stderr).toBe(2);
    expect(v.stderr).toMatch(
      new RegExp(
        `${f}:\\d+:\\d+ bots\\[0\\]\\.symbols\\[1\\]: bot \\S+: NOPEUSDT is not an instrument of SPOT`,
      ),
    );
    expect(v.stderr).toMatch(/bots\[1\]\.symbols\[0\]: bot \S+: BTCUSDT is not a Reality stock pair/);
    expect(v.stderr).toContain(`${f}: 2 problems`);
    const run = await runCli(['run', '--config', f]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/NOPEUSDT is not an instrument of SPOT/);
    expect(run.stderr).toMatch(/BTCUSDT is not a Reality stock pair/);
  });

  it('validate says when it could not check the symbols (a remote venue that does not answer, or --offline)', async () => {
    const f = join(dir, 'remote.yaml');
    // A loopback port nothing listens on: refused at once, on any machine.
    const live = readFileSync('config/live.example.yaml', 'utf8').replace(
      '${TRADEBOT_BASE_URL:-https://api.example.com}',
      'http://127.0.0.1:9',
    );
    writeFileSync(f, live);
    mkdirSync(join(dir, 'secrets'), { recursive: true });
    writeFileSync(join(dir, 'secrets', 'passphrase.txt'), 'p\n');
    const env = { TRADEBOT_API_KEY: 'k', TRADEBOT_API_SECRET: 's' };
    for (const args of [
      ['validate', f],
      ['validate', f, '--offline'],
    ]) {
      const v = await runCli(args, env);
      expect(v.code, v.stderr).toBe(0);
      expect(v.stdout).toMatch(/: ok \(\d+ bots?; symbols not checked\)/);
      expect(v.stderr).toMatch(
        /the bots' symbols were not checked against the venue: .*tradebot doctor --config/,
      );
    }
  });

  it('a broken YAML file prints its line and column and exits non-zero', async () => {
    const f = join(dir, 'broken.yaml');
    writeFileSync(
      f,
      'venue:\n  kind: simulator\nbots:\n  - name: a\n    strategy: ma-crossover\n    symbols: [AAPLUSDT]\n    risk:\n      maxOrderNotional: 500\n',
    );
    const v = await runCli(['validate', f]);
    expect(v.code).toBe(2);
    expect(v.stderr).toContain(`${f}:8:25 bots[0].risk.maxOrderNotional`);
    const run = await runCli(['run', '--config', f]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/the daemon did not start/);
    expect(run.stderr).toContain(`${f}:8:25`);
  });

  it('schema prints a JSON Schema', async () => {
    const r = await runCli(['schema']);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { type?: string }).type).toBe('object');
  });

  it('api calls an endpoint of the catalogue and prints its data', async () => {
    const r = await runCli([
      'api',
      'tickers',
      '--sim',
      ...SIM_START,
      '--category',
      'SPOT',
      '--symbol',
      'AAPLUSDT',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { symbol: string }[])[0]?.symbol).toBe('AAPLUSDT');
  });

  it('api refuses a bad parameter naming it, with exit code 2', async () => {
    const r = await runCli([
      'api',
      'orderbook',
      '--sim',
      ...SIM_START,
      '--category',
      'SPOT',
      '--symbol',
      'AAPLUSDT',
      '--limit',
      '5000',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/limit = "5000": limit must be from 1 to 1000/);
  });

  it('sim refuses a bad flag with a sentence', async () => {
    const r = await runCli(['sim', '--port', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--port: must be a whole number from 0 \(any free port\) to 65535 \(got "x"\)/);
  });
});

// One exit-code rule for every command (src/cli/exit-codes.ts): 0 done, 1 failed while running, 2 invalid
// input. Each row runs the built command with bad input and names what the message must say.
/** A backtest file `name.yaml` in the temp folder, its second line `datasetLine`. */
const btFile = (name: string, datasetLine: string) => {
  const f = join(dir, `${name}.yaml`);
  writeFileSync(f, `name: ${name}\n${datasetLine}\nstrategy: ma-crossover\n`);
  return f;
};
/** A Yahoo-style CSV (no tradebot metadata) in the temp folder. */
const csvFile = (name: string) => {
  const f = join(dir, name);
  writeFileSync(
    f,
    'Date,Open,High,Low,Close,Adj Close,Volume\n2024-01-02,187.15,188.44,183.89,185.64,184.53,82488700\n2024-01-03,184.22,185.88,183.43,184.25,183.15,58414500\n',
  );
  return f;
};

describe('exit codes: invalid input exits 2 with a sentence, for every command', () => {
  const bt = ['backtest', '--dataset', 'sp500-daily', '--strategy', 'ma-crossover'];
  const sweep = ['sweep', '-c', 'config/backtest.yaml', '--workers', '1', '--out', join(dir, 'sweeps')];
  const rec = ['record', '--sim', '--category', 'SPOT', '--symbol', 'BTCUSDT', '--interval', '1m'];
  const out = ['--out', join(dir, 'rec.csv')];
  const rows: [string, string[], RegExp][] = [
    ['no command', [], /Usage: tradebot/],
    ['an unknown command', ['nosuch'], /unknown command 'nosuch'/],
    ['run without its required --config', ['run'], /required option '-c, --config <file>'/],
    ['run with a missing file', ['run', '--config', join(dir, 'nosuch.yaml')], /nosuch\.yaml/],
    [
      'sim with a port that is not a number',
      ['sim', '--port', 'x'],
      /--port: must be a whole number from 0 \(any free port\) to 65535/,
    ],
    [
      'sim with a latency range upside down',
      ['sim', '--latency-ms', '50-10'],
      /--latency-ms: its minimum must not exceed its maximum \(got "50-10"\)/,
    ],
    [
      'sim with a date not in the calendar',
      ['sim', '--start-time', '2026-02-30'],
      /--start-time: 2026-02-30 is not a date/,
    ],
    ['validate without its file', ['validate'], /missing required argument 'file'/],
    ['validate with a missing file', ['validate', join(dir, 'nosuch.yaml')], /cannot read the file/],
    [
      'validate of a backtest whose dataset file is missing (what backtest would refuse, found first)',
      ['validate', btFile('nodata', `dataset: ${join(dir, 'nosuch.csv')}`)],
      /nodata\.yaml:2:10 dataset: .*nosuch\.csv: no such file/,
    ],
    [
      "validate of a backtest on another tool's CSV without its instrument",
      ['validate', btFile('noinst', `dataset: ${csvFile('AAPL.csv')}`)],
      /noinst\.yaml:2:10 dataset: .*AAPL\.csv carries no instrument rules/,
    ],
    ['schema with an unknown option', ['schema', '--bogus'], /unknown option '--bogus'/],
    ['api with an unknown endpoint', ['api', 'nosuch'], /unknown endpoint nosuch; one of: instruments/],
    [
      'api with half an endpoint name',
      ['api', 'place-order'],
      /unknown endpoint place-order \(did you mean "place-reality-order"\?\)/,
    ],
    ['account without a sub-command', ['account'], /Usage: tradebot account/],
    [
      'account set-leverage without --category',
      ['account', 'set-leverage'],
      /required option '--category <c>'/,
    ],
    ['backtest with an unknown option', ['backtest', '--bogus'], /unknown option '--bogus'/],
    [
      'backtest with neither config nor dataset',
      ['backtest'],
      /give --config FILE, or --dataset and --strategy/,
    ],
    [
      'backtest with a missing dataset file',
      ['backtest', '--dataset', join(dir, 'nosuch.csv'), '--strategy', 'ma-crossover'],
      /nosuch\.csv: no such file/,
    ],
    [
      'backtest with an unknown strategy',
      ['backtest', '--dataset', 'sp500-daily', '--strategy', 'nosuch'],
      /strategy "nosuch" not found/,
    ],
    ['backtest with a parameter out of range', [...bt, '--params', '{"fast":-1}'], /parameter "fast"/],
    ['backtest with parameters that are not JSON', [...bt, '--params', '{fast'], /--params must be JSON/],
    [
      'backtest on an empty synthetic dataset',
      ['backtest', '--dataset', 'synthetic-1m:1:0', '--strategy', 'ma-crossover'],
      /has no candles/,
    ],
    [
      'backtest with a range outside the data',
      [...bt, '--from', '2030-01-01'],
      /no candles between 2030-01-01/,
    ],
    [
      'backtest with --to before --from',
      [...bt, '--from', '2010-01-01', '--to', '2009-01-01'],
      /--to \(2009-01-01\) must be after --from/,
    ],
    [
      'backtest with a date not in the calendar',
      [...bt, '--from', '2010-02-30'],
      /--from: 2010-02-30 is not a date/,
    ],
    [
      'sweep without its required --config',
      ['sweep', '--grid', 'fast=5'],
      /required option '-c, --config <file>'/,
    ],
    [
      'sweep with a value that is not a number',
      [...sweep, '--grid', 'fast=10,abc'],
      /fast=abc is not valid: must be a number/,
    ],
    [
      'sweep with an unknown parameter',
      [...sweep, '--grid', 'bogus=1,2'],
      /"bogus" is not a parameter of ma-crossover/,
    ],
    [
      'sweep with an exit written as a parameter (as backtest/README.md once showed it)',
      [...sweep, '--grid', 'stopLoss=0.01..0.05:0.01'],
      /"stopLoss" is not a parameter of ma-crossover \(did you mean "exits\.stopLoss"\?\)/,
    ],
    [
      'sweep with a misspelt exit',
      [...sweep, '--grid', 'exits.stoploss=0.01'],
      /"exits\.stoploss" is not an exit or a protection \(did you mean "exits\.stopLoss"\?\)/,
    ],
    [
      'sweep with a parameter given twice',
      [...sweep, '--grid', 'fast=10 fast=20'],
      /fast appears twice in the grid/,
    ],
    ['sweep with a value listed twice', [...sweep, '--grid', 'fast=10,10'], /fast=10 is listed twice/],
    [
      'sweep with a fraction for a whole number',
      [...sweep, '--grid', 'fast=10.5'],
      /fast=10\.5 is not valid: must be a whole number/,
    ],
    [
      'sweep with a value below the minimum',
      [...sweep, '--grid', 'fast=-1'],
      /fast=-1 is not valid: must be at least 1 \(/,
    ],
    ['sweep with an empty value', [...sweep, '--grid', 'fast=10,'], /fast has an empty value/],
    [
      'sweep whose every combination breaks a rule',
      [...sweep, '--grid', 'fast=300 slow=100'],
      /no combination of the grid is valid for ma-crossover: fast=300 slow=100: .*slow must be above fast/,
    ],
    ['sweep with a malformed grid', [...sweep, '--grid', 'fast'], /must look like name=1,2,3/],
    [
      'sweep with an unknown metric',
      [...sweep, '--grid', 'fast=5', '--metric', 'nope'],
      /--metric must be one of sharpe/,
    ],
    [
      'sweep with a range outside the data',
      [...sweep, '--grid', 'fast=5', '--from', '2030-01-01'],
      /no candles between 2030-01-01/,
    ],
    [
      'sweep on no workers',
      [...sweep, '--grid', 'fast=5', '--workers', '0'],
      /--workers must be at least 1 \(got "0"\)/,
    ],
    [
      'sweep with a reversed range',
      [...sweep, '--grid', 'fast=50..5:5'],
      /fast=50\.\.5:5: the range starts above its end; write fast=5\.\.50:5/,
    ],
    [
      'a simulator with a fault rate that is no share',
      ['sim', '--error-rate', 'abc'],
      /--error-rate: must be a share from 0 to 1, such as 0\.05 \(got "abc"\)/,
    ],
    [
      'walk-forward without window lengths',
      [...sweep, '--grid', 'fast=5', '--walk-forward'],
      /--walk-forward needs --in-sample and --out-of-sample/,
    ],
    [
      'walk-forward with a malformed length',
      [...sweep, '--grid', 'fast=5', '--walk-forward', '--in-sample', '1y', '--out-of-sample', '90d'],
      /--in-sample must be a length such as 90d/,
    ],
    [
      'walk-forward windows longer than the data',
      [...sweep, '--grid', 'fast=5', '--walk-forward', '--in-sample', '9000d', '--out-of-sample', '900d'],
      /shorter than one in-sample plus out-of-sample window/,
    ],
    [
      'record with an interval in the wrong case',
      [...rec, '--from', '2026-02-01', '--to', '2026-03-01', ...out].map((a) => (a === '1m' ? '1h' : a)),
      /--interval must be one of 1m, .*, 1D \(did you mean "1H"\?\) \(got "1h"\)/,
    ],
    [
      'record with a date not in the calendar',
      [...rec, '--from', '2026-02-30', '--to', '2026-03-01', ...out],
      /--from: 2026-02-30 is not a date of the calendar/,
    ],
    [
      'record with a five-digit year',
      [...rec, '--from', '99999-01-01', '--to', '2026-03-01', ...out],
      /--from must be a date such as 2026-01-31/,
    ],
    [
      'record with --to before --from',
      [...rec, '--from', '2026-03-01', '--to', '2026-02-01', ...out],
      /--to \(2026-02-01\) must be after --from/,
    ],
    ['record without its required options', ['record'], /required option/],
  ];
  it.each(rows)('%s', async (_name, args, message) => {
    const r = await runCli(args);
    expect(r.stderr + r.stdout).toMatch(message);
    expect(r.code, r.stderr).toBe(2);
  });

  it('help and version exit 0', async () => {
    for (const args of [['--help'], ['--version'], ['sweep', '--help']])
      expect((await runCli(args)).code).toBe(0);
  });
});

describe('one daemon per journal', () => {
  it('refuses a second daemon on the same journal, and takes over a lock left by a dead process', async () => {
    const { startCli } = await import('../helpers/cli.js');
    const { demoConfigFile } = await import('../helpers/demo-config.js');
    const f = demoConfigFile(dir, 'locked');
    writeFileSync(join(dir, 'locked.db.lock'), '999999'); // a dead pid: a stale lock
    const first = startCli(['run', '--config', f]);
    await first.waitFor(/"message":"running"/, 20_000);
    const second = await runCli(['run', '--config', f]);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/another tradebot \(pid \d+\) is running with the journal/);
    first.proc.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);
  }, 60_000);
});
