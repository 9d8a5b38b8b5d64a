// Issue 44's acceptance through the built CLI: a pinned `tradebot sim` with a short interest period and a large
// rate, and `tradebot run` with one MARGIN bot that sells short, holds across interest periods and covers. While
// short and after the cover, the journal (its SQLite file), the simulator's account (GET /sim/margin, the oracle)
// and `tradebot status --json` agree on the position, the amount borrowed and the interest, to the last decimal.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { Decimal } from '../../src/market/decimal.js';
import { openStore, type StoredFill } from '../../src/store/index.js';
import { dashboardUrl, runCli, startCli, type Running } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait-for.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-e2e-margin-short-'));
const CREDS = { apiKey: 'short-key', apiSecret: 'short-secret', passphrase: 'short-pass' };
const ENV = {
  TRADEBOT_API_KEY: CREDS.apiKey,
  TRADEBOT_API_SECRET: CREDS.apiSecret,
  TRADEBOT_PASSPHRASE: CREDS.passphrase,
};
const SPEED = 60;
/** A Monday, 09:35 New York: the regular session. */
const START = '2026-11-23T14:35:00Z';
/** 0.1% of the loan's basis per 10 venue minutes (10 s of real time at speed 60). */
const RATE = '0.001';
const PERIOD_MS = 600_000;
const SYMBOL = 'AAPLUSDT';
const CAPITAL = '100000'; // the simulator's account, so the bot's cash is the account's
const SESSIONS = ['pre_market', 'regular', 'after_hours', 'overnight'];
const journalPath = join(dir, 'short.db');

const running: Running[] = [];
afterAll(async () => {
  for (const r of running.reverse()) {
    r.proc.kill('SIGTERM');
    await r.exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

interface SimMargin {
  loans: { coin: string; borrowed: string; basis: string; interest: string }[];
}
interface StatusMargin {
  asOf: string;
  positions: { symbol: string; quantity: string }[];
  loans: { coin: string; borrowed: string; basis: string; interest: string }[];
  interest: string;
  interestPaid: string;
  state: string;
}

const period = (ts: number) => Math.floor(ts / PERIOD_MS);

function journalFills(): StoredFill[] {
  const store = openStore(journalPath, { busyTimeoutMs: 2000 });
  try {
    return store.fills.list({ bot: 'shorty' });
  } finally {
    store.close();
  }
}

/**
 * The journal's account of the short, by hand (not through the daemon's code): the position, what the sells
 * beyond the position borrowed, their value (the basis) and the interest of each period boundary up to `at`.
 */
function fromJournal(fills: readonly StoredFill[], at: number) {
  let position = new Decimal(0);
  let borrowed = new Decimal(0);
  let basis = new Decimal(0);
  let since = 0;
  for (const f of fills) {
    if (f.side === 'sell') {
      const lack = Decimal.min(f.size, Decimal.max(f.size.minus(Decimal.max(position, 0)), 0));
      if (borrowed.isZero()) since = f.ts;
      borrowed = borrowed.plus(lack);
      basis = basis.plus(lack.mul(f.price));
      position = position.minus(f.size);
    } else position = position.plus(f.size);
  }
  const interest = basis.mul(RATE).mul(period(at) - period(since));
  return { position, borrowed, basis, interest, since };
}

describe('a MARGIN short through the built CLI', () => {
  it('journal, simulator and status agree on position, borrowed and interest while short and after the cover', async () => {
    const sim = startCli(
      [
        'sim',
        ...['--port', '0', '--start-time', START, '--speed', String(SPEED), '--whitelisted'],
        ...['--api-key', CREDS.apiKey, '--api-secret', CREDS.apiSecret, '--passphrase', CREDS.passphrase],
        ...['--interest-rate', RATE, '--interest-period-ms', String(PERIOD_MS)],
      ],
      {},
    );
    running.push(sim);
    const baseUrl = (await sim.waitFor(/listening on (http:\/\/\S+)/, 30_000))[1] as string;
    const admin = async <T>(path: string): Promise<T> => {
      const sep = path.includes('?') ? '&' : '?';
      const res = await fetch(`${baseUrl}${path}${sep}apiKey=${CREDS.apiKey}`);
      return ((await res.json()) as { data: T }).data;
    };
    const simNow = async () => (await admin<{ now: number }>('/sim/time')).now;

    const cfg = {
      venue: {
        kind: 'remote',
        baseUrl,
        credentials: {
          apiKey: '${TRADEBOT_API_KEY}',
          apiSecret: '${TRADEBOT_API_SECRET}',
          passphrase: '${TRADEBOT_PASSPHRASE}',
        },
        whitelisted: true,
        timeScale: SPEED,
        timeoutMs: 5000,
        margin: { interestRate: RATE, interestPeriodMs: PERIOD_MS },
      },
      store: { path: journalPath },
      logging: { level: 'info', format: 'json' },
      metrics: { enabled: true, port: 0 },
      dashboard: { enabled: true, host: '127.0.0.1', port: 0 },
      shutdownTimeoutMs: 10000,
      bots: [
        {
          name: 'shorty',
          strategy: join(import.meta.dirname, 'fixtures', 'short-then-cover.mjs'),
          params: { quantity: '2', holdCandles: 45 },
          category: 'MARGIN',
          symbols: [SYMBOL],
          interval: '1m',
          capital: CAPITAL,
          leverage: [{ category: 'MARGIN', coin: 'AAPL', leverage: '3' }],
          poll: { tickersMs: 2000, fillsMs: 2000 },
          risk: { allowedSessions: SESSIONS, maxDataAgeMs: 60000 },
        },
      ],
    };
    const file = join(dir, 'short.yaml');
    writeFileSync(file, stringify(cfg));
    const d = startCli(['run', '--config', file], ENV);
    running.push(d);
    const dashboard = await dashboardUrl(d, 60_000);
    await d.waitFor(/"message":"running"/, 60_000);
    const dashboardMargin = async () => {
      const res = await fetch(`${dashboard.replace(/\/$/, '')}/api/bots/shorty`);
      return ((await res.json()) as { margin?: Omit<StatusMargin, 'asOf' | 'positions'> }).margin;
    };

    const statusOf = async (): Promise<StatusMargin | undefined> => {
      const r = await runCli(['status', '--config', file, '--json'], ENV);
      if (r.code !== 0) throw new Error(`status exited ${String(r.code)}: ${r.stderr}`);
      const bots = JSON.parse(r.stdout) as { bot: string; margin?: StatusMargin }[];
      return bots.find((b) => b.bot === 'shorty')?.margin;
    };
    /**
     * One reading of the three, taken within one interest period and with no fill journaled meanwhile (else none:
     * read again; a cover journaled between the status read and the journal read once made them disagree).
     */
    const sample = async () => {
      const before = journalFills().length;
      const t0 = await simNow();
      const status = await statusOf();
      const venue = await admin<SimMargin>('/sim/margin');
      const web = await dashboardMargin();
      const t1 = await simNow();
      const fills = journalFills();
      if (status === undefined || period(t0) !== period(t1) || fills.length !== before) return undefined;
      if (period(Date.parse(status.asOf)) !== period(t0)) return undefined;
      return { status, venue, web, journal: fromJournal(fills, t0), fills };
    };

    // While short, after at least one period boundary: the interest is not zero.
    const short = await waitFor(
      async () => {
        const s = await sample();
        return s !== undefined &&
          s.journal.position.isNegative() &&
          s.venue.loans.length > 0 &&
          s.journal.interest.gt(0)
          ? s
          : undefined;
      },
      {
        timeoutMs: 120_000,
        what: 'a reading while short, one period after the borrowing',
        intervalMs: 500,
        detail: () => d.stderr.slice(-2000),
      },
    );
    const j = short.journal;
    expect(j.position.toFixed()).toBe('-2');
    expect(short.status.positions).toEqual([{ symbol: SYMBOL, quantity: '-2' }]);
    const expected = {
      coin: 'AAPL',
      borrowed: j.borrowed.toFixed(),
      basis: j.basis.toFixed(),
      interest: j.interest.toFixed(),
    };
    expect(short.venue.loans).toEqual([expect.objectContaining(expected)]);
    expect(short.status.loans).toEqual([expect.objectContaining(expected)]);
    expect(short.status.interest).toBe(j.interest.toFixed());
    // The dashboard's bot view shows the same (the daemon's own account, on its clock).
    expect(short.web?.loans).toEqual([expect.objectContaining(expected)]);
    expect(short.status.state).toBe('normal');

    // After the cover: no loan anywhere, and the interest the venue took from the balance is the bot's.
    const covered = await waitFor(
      async () => {
        const s = await sample();
        return s !== undefined && s.journal.position.isZero() && s.fills.length >= 2 ? s : undefined;
      },
      {
        timeoutMs: 120_000,
        what: 'the cover in the journal',
        intervalMs: 500,
        detail: () => d.stderr.slice(-2000),
      },
    );
    const cover = covered.fills.find((f) => f.side === 'buy') as StoredFill;
    const paid = new Decimal(j.basis).mul(RATE).mul(period(cover.ts) - period(j.since));
    expect(covered.venue.loans).toEqual([]);
    expect(covered.status.loans).toEqual([]);
    expect(covered.status.positions).toEqual([]);
    expect(covered.status.interestPaid).toBe(paid.toFixed());
    let cash = new Decimal(CAPITAL);
    for (const f of covered.fills) {
      const flow = f.price.mul(f.size);
      cash = f.side === 'sell' ? cash.plus(flow).minus(f.fee) : cash.minus(flow).minus(f.fee);
    }
    const balances = await admin<Record<string, { available: string }>>('/sim/balances');
    expect(balances.USDT?.available).toBe(cash.minus(paid).toFixed());

    d.proc.kill('SIGTERM');
    expect((await d.exited).code).toBe(0);
  }, 300_000);
});
