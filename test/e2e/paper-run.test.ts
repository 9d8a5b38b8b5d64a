// `tradebot run --paper` through the real CLI against the simulator on loopback standing in for the real
// venue: a live file runs as a dry run with PAPER on every log line and metric, the venue receives no
// request to a private endpoint (credentials in the file or not), and a kill -9 mid-run followed by a
// restart loses and doubles nothing: the journal's fills are the paper account's, once each.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { liveClock } from '../../src/feeds/clock.js';
import { decodePaperAccount, PAPER_ACCOUNT_KEY } from '../../src/execution/paper-journal.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { openStore } from '../../src/store/index.js';
import { runCli, startCli } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait-for.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-paper-e2e-'));
const credentials = {
  TRADEBOT_API_KEY: 'paper-test-key-123',
  TRADEBOT_API_SECRET: 'paper-test-secret-456',
};

/** The paths the simulator received requests on, but its admin API's. */
async function receivedPaths(sim: Simulator): Promise<string[]> {
  const r = (await (await fetch(`${sim.baseUrl}/sim/stats`)).json()) as {
    data: { received: Record<string, number> };
  };
  return Object.keys(r.data.received).filter((p) => !p.startsWith('/sim/'));
}
const isPublic = (path: string): boolean => /^\/api\/v3\/(reality\/)?market\//.test(path);
const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('run --paper on config/live.example.yaml', () => {
  let sim: Simulator;
  beforeAll(async () => {
    // Monday 2026-11-23 10:00 ET: the regular session.
    sim = await startSimulator({ seed: 11, startTime: Date.UTC(2026, 10, 23, 15) });
  });
  afterAll(() => sim.stop());

  it('runs unchanged as a dry run: PAPER on every line, no private request though the file has credentials', async () => {
    const live = parse(readFileSync('config/live.example.yaml', 'utf8')) as {
      store: { path: string };
      metrics: { port: number };
    };
    // Only what belongs to this machine: the journal's folder and a free metrics port.
    live.store.path = join(dir, 'live.db');
    live.metrics.port = 0;
    const f = join(dir, 'live.yaml');
    writeFileSync(f, stringify(live));
    const run = startCli(['run', '--paper', '--config', f], {
      ...credentials,
      TRADEBOT_BASE_URL: sim.baseUrl,
    });
    const [, metricsUrl] = await run.waitFor(
      /"message":"health and metrics listening".*?"url":"([^"]+)"/,
      60_000,
    );
    await run.waitFor(/"message":"running"/, 60_000);
    // live.example.yaml listens on 0.0.0.0; this machine reaches it on loopback.
    const metrics = await (
      await fetch(`${(metricsUrl ?? '').replace('0.0.0.0', '127.0.0.1')}/metrics`)
    ).text();
    const samples = metrics.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
    expect(samples.length).toBeGreaterThan(0);
    expect(samples.filter((l) => !l.includes('mode="PAPER"'))).toEqual([]);
    run.proc.kill('SIGTERM');
    expect((await run.exited).code).toBe(0);
    const lines = jsonLines(run.stderr);
    expect(lines.length).toBeGreaterThan(3);
    expect(lines.filter((l) => l.mode !== 'PAPER')).toEqual([]);
    expect(run.stderr).not.toContain(credentials.TRADEBOT_API_KEY);
    const paths = await receivedPaths(sim);
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.filter((p) => !isPublic(p))).toEqual([]);
  }, 90_000);

  it('refuses to start a paper run whose bot would call set-leverage (a private endpoint), exit 2, at its line', async () => {
    const f = join(dir, 'leverage.yaml');
    writeFileSync(
      f,
      stringify({
        venue: { kind: 'paper', baseUrl: sim.baseUrl },
        store: { path: join(dir, 'leverage.db') },
        logging: { level: 'info', format: 'json' },
        metrics: { enabled: false },
        bots: [
          {
            name: 'lev',
            strategy: 'ma-crossover',
            symbols: ['AAPLUSDT'],
            leverage: [{ category: 'MARGIN', coin: 'USDT', leverage: '5' }],
          },
        ],
      }),
    );
    const before = (await receivedPaths(sim)).filter((p) => !isPublic(p));
    const r = await runCli(['run', '--config', f]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /leverage\.yaml:\d+:\d+ bots\[0\]\.leverage: bot lev: set-leverage is a private endpoint/,
    );
    expect((await receivedPaths(sim)).filter((p) => !isPublic(p))).toEqual(before);
  }, 60_000);

  it('refuses bad --paper-balances with exit 2 and the fix', async () => {
    const r = await runCli([
      'run',
      '--paper',
      '--paper-balances',
      'USDT=lots',
      '--config',
      'config/live.example.yaml',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--paper-balances: "USDT=lots" is not COIN=AMOUNT.*USDT=10000/);
  });
});

describe('doctor --paper', () => {
  let sim: Simulator;
  beforeAll(async () => {
    // On the wall clock on purpose, as doctor.test.ts: doctor checks this machine's clock against the venue's.
    // The session line is asserted for its form only, whatever the market is doing.
    sim = await startSimulator({ seed: 5, startTime: liveClock.now() });
  });
  afterAll(() => sim.stop());

  it('checks what a paper run needs, not credentials, and calls nothing private', async () => {
    const f = join(dir, 'doctor-live.yaml');
    writeFileSync(f, readFileSync('config/live.example.yaml', 'utf8'));
    const r = await runCli(['doctor', '--paper', '--config', f], { TRADEBOT_BASE_URL: sim.baseUrl }, 60_000);
    expect(r.stdout).toMatch(/\[ok\] +paper: a paper run reads public data only: no credentials are needed/);
    expect(r.stdout).toMatch(/\[ok\] +symbol NVDAUSDT/);
    expect(r.stdout).toMatch(/session: the US market is/);
    expect(r.stdout).not.toMatch(/\] +(credentials|whitelist|permission)/);
    expect(r.stdout).toContain('all checks passed');
    expect(r.code).toBe(0);
    expect((await receivedPaths(sim)).filter((p) => !isPublic(p))).toEqual([]);
  }, 60_000);
});

describe('a paper run killed mid-run', () => {
  let sim: Simulator;
  beforeAll(async () => {
    // Monday 09:25 ET at 60x: the regular session opens 5 simulated minutes in (the demo's market).
    sim = await startSimulator({ seed: 42, speed: 60, startTime: Date.UTC(2026, 10, 23, 14, 25) });
  });
  afterAll(() => sim.stop());

  it('loses and doubles nothing: the journal books each paper fill once, after a kill -9 and a restart', async () => {
    const journal = join(dir, 'kill.db');
    const demo = parse(readFileSync('config/demo.yaml', 'utf8')) as Record<string, unknown> & {
      bots: Record<string, unknown>[];
    };
    const f = join(dir, 'kill.yaml');
    writeFileSync(
      f,
      stringify({
        venue: {
          kind: 'paper',
          baseUrl: sim.baseUrl,
          timeScale: 60,
          account: { balances: { USDT: '30000' } },
        },
        store: { path: journal },
        logging: { level: 'info', format: 'json' },
        metrics: { enabled: false },
        bots: [{ ...demo.bots[0], poll: { tickersMs: 15000, fillsMs: 2000 } }],
      }),
    );
    const first = startCli(['run', '--config', f]);
    await first.waitFor(/"message":"fill"/, 90_000);
    first.proc.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');

    const second = startCli(['run', '--config', f]);
    await second.waitFor(/"message":"running"/, 60_000);
    const booked = () => {
      const s = openStore(journal);
      const fills = s.fills.list({}).map((x) => x.execId);
      const raw = s.meta.get(PAPER_ACCOUNT_KEY);
      s.close();
      const account = decodePaperAccount(raw ?? '{}').core.accounts[0];
      return { fills, paper: (account?.fills ?? []).map((x) => x.execId) };
    };
    // Every paper fill reaches the journal once the fills are read again (fillsMs), none twice.
    const same = (b: ReturnType<typeof booked>) => [...b.paper].sort().join() === [...b.fills].sort().join();
    await waitFor(() => same(booked()), {
      timeoutMs: 30_000,
      what: "the journal's fills to be the paper account's",
      intervalMs: 250,
      detail: () => JSON.stringify(booked()),
    });
    second.proc.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
    const seen = booked();
    expect(seen.paper.length).toBeGreaterThan(0);
    expect(new Set(seen.fills).size).toBe(seen.fills.length);
    expect([...seen.fills].sort()).toEqual([...seen.paper].sort());
    expect((await receivedPaths(sim)).filter((p) => !isPublic(p))).toEqual([]);

    // The journal readers mark a paper run's journal: text and JSON (issue 40: they did not).
    for (const cmd of ['status', 'positions', 'trades']) {
      const text = await runCli([cmd, '--journal', journal]);
      expect(text.stdout, cmd).toMatch(/^PAPER/);
      const json = JSON.parse((await runCli([cmd, '--journal', journal, '--json'])).stdout) as {
        mode: string;
      }[];
      if (cmd !== 'positions') expect(json.length, cmd).toBeGreaterThan(0);
      for (const r of json) expect(r.mode, cmd).toBe('paper');
    }

    // compare reads the paper journal against a backtest's result.json; here one whose fills are the paper
    // run's own, so every trade pairs and costs nothing: the plumbing, end to end.
    const s = openStore(journal);
    const tags = new Map(s.orders.list({}).map((o) => [o.clientOid, o.intent?.tag ?? '']));
    const orders = new Map<
      string,
      { ts: number; symbol: string; side: string; price: string; size: string; tag: string }
    >();
    for (const x of s.fills.list({}))
      if (!orders.has(x.clientOid ?? ''))
        orders.set(x.clientOid ?? '', {
          ts: x.ts,
          symbol: x.symbol,
          side: x.side,
          price: x.price.toFixed(),
          size: x.size.toFixed(),
          tag: tags.get(x.clientOid ?? '') ?? '',
        });
    s.close();
    const result = join(dir, 'result.json');
    const times = [...orders.values()].map((o) => o.ts);
    const symbols = [...new Set([...orders.values()].map((o) => o.symbol))];
    const meta = (o: { symbol?: string; shift?: number } = {}) => ({
      symbol: o.symbol ?? symbols.join(','),
      interval: '1m',
      from: Math.min(...times) - 60_000 + (o.shift ?? 0),
      to: Math.max(...times) + 60_000 + (o.shift ?? 0),
    });
    const fills = [...orders.values()].map((o) => ({ ...o, liquidity: 'taker' }));
    writeFileSync(result, JSON.stringify({ meta: meta(), fills }));
    const cmp = await runCli(['compare', '--journal', journal, '--backtest', result]);
    expect(cmp.code, cmp.stderr).toBe(0);
    expect(cmp.stdout).toMatch(/time \(ET\) +symbol +side +tag +paper +backtest +cost bps +why/);
    expect(cmp.stdout).toContain(`${orders.size} of ${orders.size} trades in both runs`);
    // Inputs that do not overlap are refused with exit 2 and the reason, not compared into a table of misses.
    const other = join(dir, 'other.json');
    writeFileSync(other, JSON.stringify({ meta: meta({ symbol: 'MSFTUSDT' }), fills: [] }));
    const otherSymbol = await runCli(['compare', '--journal', journal, '--backtest', other]);
    expect(otherSymbol.code).toBe(2);
    expect(otherSymbol.stderr).toMatch(
      /the backtest trades MSFTUSDT and the paper run .*: no symbol in common/,
    );
    writeFileSync(other, JSON.stringify({ meta: meta({ shift: -365 * 86_400_000 }), fills: [] }));
    const otherYear = await runCli(['compare', '--journal', journal, '--backtest', other]);
    expect(otherYear.code).toBe(2);
    expect(otherYear.stderr).toMatch(
      /: no time in common; give the backtest of the paper run's recorded candles/,
    );
    const noBot = await runCli(['compare', '--journal', journal, '--backtest', result, '--bot', 'nobody']);
    expect(noBot.code).toBe(2);
    expect(noBot.stderr).toMatch(/--bot: no bot named nobody in this journal/);
    const bad = await runCli(['compare', '--journal', journal, '--backtest', f]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--backtest: .*kill\.yaml is not JSON; give a backtest's result\.json/);
  }, 180_000);
});
