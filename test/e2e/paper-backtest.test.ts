// Paper against the backtest (issue 32): a paper run through the real CLI, on the simulator on loopback standing
// in for the real venue (pinned start, 60x), records the candles its bot decides on; a restart appends to the
// recording without a candle twice; `tradebot backtest` of that recording with the same strategy, parameters
// and risk emits the same intents with the same gate decisions; `tradebot compare` shows both runs trade by
// trade, and every fill that differs carries the fill model's reason (docs/paper.md, "Paper against its backtest").
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { openCandleFile } from '../../src/data/format.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { openStore } from '../../src/store/index.js';
import { runCli, startCli } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait-for.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-paper-bt-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const params = { fast: 3, slow: 8, quoteAmount: '2000' };
const risk = {
  allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'],
  maxDataAgeMs: 60000,
  maxOrderNotional: '5000',
  dailyLossLimit: '1000',
};

/** The open times of a recorded candle file, in file order. */
async function openTimes(path: string): Promise<number[]> {
  const out: number[] = [];
  for await (const b of openCandleFile(path).batches())
    for (let i = 0; i < b.length; i++) out.push(b.openTime[i] as number);
  return out;
}

describe('a paper run against the backtest of its recorded candles', () => {
  let sim: Simulator;
  beforeAll(async () => {
    // Monday 09:25 ET at 60x: the regular session opens 5 simulated minutes in (the demo's market).
    sim = await startSimulator({ seed: 42, speed: 60, startTime: Date.UTC(2026, 10, 23, 14, 25) });
  });
  afterAll(() => sim.stop());

  it('records its candles across a restart, and the backtest of them agrees on intents and gate decisions', async () => {
    const journal = join(dir, 'paper.db');
    const candles = join(dir, 'candles');
    const f = join(dir, 'paper.yaml');
    writeFileSync(
      f,
      stringify({
        venue: {
          kind: 'paper',
          baseUrl: sim.baseUrl,
          timeScale: 60,
          account: { balances: { USDT: '30000' }, feeRate: '0.001' },
          record: { dir: candles },
        },
        store: { path: journal },
        logging: { level: 'info', format: 'json' },
        metrics: { enabled: false },
        bots: [
          {
            name: 'aapl-ma',
            strategy: 'ma-crossover',
            params,
            symbols: ['AAPLUSDT'],
            interval: '1m',
            capital: '10000',
            poll: { tickersMs: 15000, fillsMs: 2000 },
            risk,
          },
        ],
      }),
    );
    const file = join(candles, 'AAPLUSDT-1m.csv');
    const first = startCli(['run', '--config', f]);
    await first.waitFor(/"message":"recording candles"/, 60_000);
    await first.waitFor(/"message":"fill"/, 120_000);
    first.proc.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);
    const before = await openTimes(file);
    expect(before.length).toBeGreaterThan(8);

    // The restart resumes the recording where it stopped: appended, no candle twice, none missing.
    const second = startCli(['run', '--config', f]);
    await second.waitFor(/"message":"recording candles".*"resumesAfter"/, 60_000);
    const fills = () => {
      const s = openStore(journal);
      const n = s.fills.list({}).length;
      s.close();
      return n;
    };
    const seen = fills();
    await waitFor(async () => fills() > seen && (await openTimes(file)).length > before.length + 10, {
      timeoutMs: 120_000,
      what: 'another fill and ten more candles after the restart',
      intervalMs: 500,
    });
    second.proc.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
    expect(readdirSync(candles)).toEqual(['AAPLUSDT-1m.csv']);
    const times = await openTimes(file);
    expect(times.slice(0, before.length)).toEqual(before);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBe(60_000);

    // The backtest of the recording: the same strategy, parameters, capital, fees and risk.
    const bt = join(dir, 'backtest.yaml');
    writeFileSync(
      bt,
      stringify({
        name: 'paper-period',
        dataset: file,
        strategy: 'ma-crossover',
        params,
        interval: '1m',
        capital: '10000',
        feeRate: '0.001',
        risk,
      }),
    );
    const b = await runCli(['backtest', '--config', bt, '--out', join(dir, 'results')], {}, 120_000);
    expect(b.code, b.stderr).toBe(0);
    const result = join(dir, 'results', 'paper-period', 'result.json');

    const text = await runCli(['compare', '--journal', journal, '--backtest', result]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/time \(ET\) +symbol +side +tag +paper +backtest +cost bps +why/);
    expect(text.stdout).toMatch(/intents: (\d+) of \1 intents agree/);

    const json = await runCli(['compare', '--journal', journal, '--backtest', result, '--json']);
    const cmp = JSON.parse(json.stdout) as {
      trades: {
        paper?: { price: string; size: string };
        backtest?: { price: string; size: string };
        why: string;
      }[];
      intents: { agree: boolean; why: string }[];
    };
    // The same intents, in the same order, with the same decisions of the gate.
    expect(cmp.intents.length).toBeGreaterThan(0);
    expect(cmp.intents.filter((i) => !i.agree)).toEqual([]);
    // Both runs trade the same executions; a price that differs is explained in the fill model's terms.
    expect(cmp.trades.length).toBeGreaterThan(0);
    for (const t of cmp.trades) {
      expect(t.paper, JSON.stringify(t)).toBeDefined();
      expect(t.backtest, JSON.stringify(t)).toBeDefined();
      if (t.paper?.price !== t.backtest?.price)
        expect(t.why).toMatch(/level(s)? of the book|polled \d+ ms before|trade through/);
      if (t.paper?.size !== t.backtest?.size) expect(t.why).toMatch(/sizes differ: a quote amount is sized/);
    }
  }, 400_000);

  it('refuses --record-candles without --paper, exit 2, saying where a paper file records', async () => {
    const r = await runCli([
      'run',
      '--record-candles',
      join(dir, 'x'),
      '--config',
      'config/live.example.yaml',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--record-candles needs --paper .*venue\.record\.dir/);
  });
});
