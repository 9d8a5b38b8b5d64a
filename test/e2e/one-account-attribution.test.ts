// Ten bots on one symbol of one account, through the built CLI against a simulator in this process whose
// fills carry the spec's five fields only (so the daemon must attribute them), with the simulator as the
// oracle: its admin API knows each fill's order. Every venue fill is booked exactly once (to a bot, in parts,
// or to the deployment), the books sum to the account's position, and every booking that differs from the
// venue's truth is one the daemon itself listed as not exact.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { venueExecId } from '../../src/execution/fill-attribution.js';
import { Decimal } from '../../src/market/decimal.js';
import { startSimulator } from '../../src/sim/index.js';
import { openStore } from '../../src/store/index.js';
import { startCli } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait-for.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-e2e-one-account-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const CREDS = { apiKey: 'many-key', apiSecret: 'many-secret', passphrase: 'many-pass' };
const ENV = {
  TRADEBOT_API_KEY: CREDS.apiKey,
  TRADEBOT_API_SECRET: CREDS.apiSecret,
  TRADEBOT_PASSPHRASE: CREDS.passphrase,
};
const SPEED = 60;
const SYMBOL = 'AAPLUSDT';
/** A Monday, 09:35 New York: the regular session. */
const START = Date.UTC(2026, 10, 23, 14, 35);
/** Simulated time the deployment trades (the issue asks two hours; 40 minutes show the same at speed 60). */
const RUN_MS = 40 * 60_000;
const SESSIONS = ['pre_market', 'regular', 'after_hours', 'overnight'];

const bot = (name: string, strategy: string, params: Record<string, unknown>) => ({
  name,
  strategy,
  params,
  symbols: [SYMBOL],
  interval: '1m',
  capital: '8000',
  poll: { tickersMs: 5000, fillsMs: 10000 },
  risk: { allowedSessions: SESSIONS, maxDataAgeMs: 60000 },
});

// Nine ma-crossovers whose crosses often fall on the same candle, and one bot of resting limits.
const BOTS = [
  ...[
    [2, 3],
    [2, 4],
    [2, 5],
    [3, 4],
    [3, 5],
    [3, 6],
    [2, 6],
    [4, 5],
    [4, 6],
  ].map(([fast, slow], i) =>
    bot(`ma${i}`, 'ma-crossover', { fast, slow, quoteAmount: String(300 + 40 * i) }),
  ),
  bot('ladder', join(import.meta.dirname, 'fixtures', 'limit-ladder.mjs'), { offset: 0.0004, quantity: '2' }),
];

interface AdminFill {
  execId: string;
  orderId: string;
  clientOid: string;
  side: string;
  price: string;
  size: string;
  ts: number;
}

async function admin<T>(baseUrl: string, path: string): Promise<T> {
  const res = await fetch(`${baseUrl}${path}${path.includes('?') ? '&' : '?'}apiKey=${CREDS.apiKey}`);
  const body = (await res.json()) as { ok: boolean; data: T };
  if (!body.ok) throw new Error(`admin ${path}: ${JSON.stringify(body)}`);
  return body.data;
}

const pct = (xs: readonly number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};
const signed = (side: string, size: Decimal) => (side === 'buy' ? size : size.neg());

describe('many bots, one account', () => {
  it('books every venue fill exactly once, the books sum to the account, and every guess is listed', async () => {
    const sim = await startSimulator({
      seed: 39,
      speed: SPEED,
      startTime: START,
      accounts: [{ ...CREDS, whitelisted: true, balances: { USDT: '100000' } }],
    });
    const cfg = {
      venue: {
        kind: 'remote',
        baseUrl: sim.baseUrl,
        credentials: {
          apiKey: '${TRADEBOT_API_KEY}',
          apiSecret: '${TRADEBOT_API_SECRET}',
          passphrase: '${TRADEBOT_PASSPHRASE}',
        },
        whitelisted: true,
        timeScale: SPEED,
        timeoutMs: 5000,
      },
      store: { path: join(dir, 'many.db') },
      logging: { level: 'info', format: 'json' },
      // Port 0: a free one (engineers and suites run beside each other).
      metrics: { enabled: true, port: 0 },
      shutdownTimeoutMs: 10000,
      fillAttribution: 'fifo',
      bots: BOTS,
    };
    const file = join(dir, 'many.yaml');
    writeFileSync(file, stringify(cfg));
    const d = startCli(['run', '--config', file], ENV);
    await d.waitFor(/"message":"running"/, 60_000);
    const started = sim.engine.now();
    await waitFor(() => sim.engine.now() >= started + RUN_MS, {
      timeoutMs: (RUN_MS / SPEED) * 4,
      what: `${RUN_MS / 60_000} simulated minutes`,
      intervalMs: 500,
    });
    d.proc.kill('SIGTERM');
    expect((await d.exited).code).toBe(0);

    const venue = await admin<AdminFill[]>(sim.baseUrl, `/sim/fills?symbol=${SYMBOL}`);
    const balances = await admin<Record<string, { available: string; frozen: string }>>(
      sim.baseUrl,
      '/sim/balances',
    );
    const store = openStore(join(dir, 'many.db'));
    const journal = store.fills.list({ symbol: SYMBOL });
    store.close();
    await sim.stop();

    // Every venue fill booked exactly once: its parts (bots' and the deployment's) sum to it, same side.
    const byVenue = new Map<string, typeof journal>();
    for (const j of journal) {
      const id = venueExecId(j.execId);
      byVenue.set(id, [...(byVenue.get(id) ?? []), j]);
    }
    expect(venue.length).toBeGreaterThanOrEqual(20);
    expect([...byVenue.keys()].sort()).toEqual(venue.map((v) => v.execId).sort());
    for (const v of venue) {
      const parts = byVenue.get(v.execId) ?? [];
      expect(parts.every((p) => p.side === v.side)).toBe(true);
      expect(parts.reduce((s, p) => s.plus(p.size), new Decimal(0)).toFixed()).toBe(
        new Decimal(v.size).toFixed(),
      );
    }

    // The bots' positions and the deployment's book sum to the account's, by the venue's fills and balance.
    const net = new Map<string, Decimal>();
    for (const j of journal)
      net.set(j.bot ?? '', (net.get(j.bot ?? '') ?? new Decimal(0)).plus(signed(j.side, j.size)));
    const books = [...net.values()].reduce((s, x) => s.plus(x), new Decimal(0));
    const account = venue.reduce((s, v) => s.plus(signed(v.side, new Decimal(v.size))), new Decimal(0));
    expect(books.toFixed()).toBe(account.toFixed());
    const aapl = balances.AAPL ?? { available: '0', frozen: '0' };
    expect(new Decimal(aapl.available).plus(aapl.frozen).toFixed()).toBe(account.toFixed());

    // Against the oracle: a booking that differs from the venue's order is one the daemon listed itself.
    const listed = new Set<string>();
    let guessed = 0;
    // What one market order in flight per symbol costs: signal to the venue's answer, venue ms.
    const latency: number[] = [];
    for (const line of d.stderr.split('\n')) {
      if (!line.startsWith('{')) continue;
      const l = JSON.parse(line) as { message?: string; execId?: string; signalToAnswerMs?: number };
      if (l.message === 'order placed' && l.signalToAnswerMs !== undefined) latency.push(l.signalToAnswerMs);
      if (l.execId === undefined) continue;
      if (l.message === 'fill attributed by the rule, not exactly: it could be of several orders') {
        listed.add(l.execId);
        guessed++;
      }
      if (l.message === 'fill booked to the deployment, not to a bot: no open order of a bot matches it')
        listed.add(l.execId);
    }
    const truth = new Map(venue.map((v) => [v.execId, v.clientOid]));
    let exact = 0;
    const wrong: string[] = [];
    for (const j of journal) {
      if (listed.has(j.execId)) continue;
      exact++;
      if (j.bot === undefined || j.clientOid !== truth.get(venueExecId(j.execId))) wrong.push(j.execId);
    }
    expect(wrong).toEqual([]);
    const unbooked = journal.filter((j) => j.bot === undefined).length;
    const tradingBots = new Set(journal.flatMap((j) => (j.bot === undefined ? [] : [j.bot])));
    expect(tradingBots.size).toBeGreaterThanOrEqual(5);
    // The counts, for the reader of the run.
    console.log(
      `one account, ${BOTS.length} bots on ${SYMBOL}: venue fills ${venue.length}, journal rows ${journal.length}, ` +
        `exact ${exact}, attributed by the rule (listed) ${guessed}, to the deployment ${unbooked}, ` +
        `bots that traded ${tradingBots.size}; signal to answer (venue ms at speed ${SPEED}) p50 ${pct(latency, 50)} ` +
        `p99 ${pct(latency, 99)} over ${latency.length} orders`,
    );
  }, 240_000);
});
