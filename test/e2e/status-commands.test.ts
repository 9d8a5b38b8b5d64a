// `tradebot status`, `positions` and `trades` against a journal written by a demo run: the rows they
// print are the journal's own (counted and summed here with SQL, independently of the commands' code).
import BetterSqlite3 from 'better-sqlite3';
import { Decimal } from '../../src/market/decimal.js';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { runCli, startCli } from '../helpers/cli.js';
import { demoConfig } from '../helpers/demo-config.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-status-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const cfgFile = join(dir, 'demo.yaml');
const journal = join(dir, 'demo.db');

interface FillRow {
  bot: string;
  symbol: string;
  base_coin: string;
  side: 'buy' | 'sell';
  price: string;
  size: string;
  fee: string;
  ts: number;
  client_oid: string;
}
let fills: FillRow[] = [];
let orders: Record<string, number> = {};
let denials: { bot: string; code: string; message: string; ts: number }[] = [];
/** The daemon's `fill` log lines (JSON format). */
let loggedFills: {
  bot: string;
  side: string;
  price: string;
  size: string;
  liquidity: string;
  feeEstimated: boolean;
}[] = [];

beforeAll(async () => {
  const demo = demoConfig(journal);
  demo.logging.format = 'json';
  // aapl-ma's entries of 2000 USDT are denied MAX_NOTIONAL_ORDER and retried with 1000: denials to count. (A bot
  // backfills only its warm-up, whose signals are not sent: the start replays nothing the gate would refuse.)
  const aapl = demo.bots.find((b) => b.name === 'aapl-ma');
  if (aapl?.risk) aapl.risk.maxOrderNotional = '1000';
  writeFileSync(cfgFile, stringify(demo));
  const d = startCli(['run', '--config', cfgFile]);
  // Two fills of aapl-ma or tsla-rsi (a buy, then usually more), one of them aapl-ma's, then a clean stop.
  await d.waitFor(/"message":"fill"[\s\S]*"message":"fill"/, 90_000);
  await d.waitFor(/"message":"fill"[^\n]*"bot":"aapl-ma"|"bot":"aapl-ma"[^\n]*"message":"fill"/, 90_000);
  d.proc.kill('SIGTERM');
  expect((await d.exited).code).toBe(0);
  loggedFills = (d.stdout + '\n' + d.stderr)
    .split('\n')
    .filter((l) => l.includes('"message":"fill"'))
    .map((l) => JSON.parse(l) as (typeof loggedFills)[number]);
  const db = new BetterSqlite3(journal, { readonly: true });
  fills = db.prepare('SELECT * FROM fills ORDER BY seq').all() as FillRow[];
  orders = Object.fromEntries(
    (
      db.prepare('SELECT bot, COUNT(*) AS n FROM orders GROUP BY bot').all() as { bot: string; n: number }[]
    ).map((r) => [r.bot, r.n]),
  );
  denials = db.prepare('SELECT bot, code, message, ts FROM denials ORDER BY id').all() as typeof denials;
  db.close();
}, 200_000);

const sum = (xs: readonly string[]) => xs.reduce((a, x) => a.plus(x), new Decimal(0));
const fillsOf = (bot: string) => fills.filter((f) => f.bot === bot);
/** The signed size of a bot's position in a symbol, from its fills. */
const held = (bot: string, symbol: string) =>
  sum(
    fillsOf(bot)
      .filter((f) => f.symbol === symbol)
      .map((f) => (f.side === 'buy' ? f.size : `-${f.size}`)),
  );

describe('tradebot status / positions / trades on a demo journal', () => {
  it('status: one row per bot of the deployment with its orders, fills and fees (units on money), and JSON', async () => {
    const r = await runCli(['status', '--config', cfgFile]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    // The daemon has stopped: the states are the journal's, and the first line says so.
    expect(lines[0]).toMatch(
      /^not running \(no daemon runs on this journal\): states from the journal as of /,
    );
    expect(lines[1]).toMatch(/^BOT\s+STATE\s+INTENTS\s+DENIED\s+ORDERS\s+FILLS\s+REALISED PNL/);
    for (const bot of ['aapl-ma', 'tsla-rsi', 'nvda-session']) {
      const row = lines.find((l) => l.startsWith(`${bot} `));
      expect(row, `a row for ${bot}`).toBeDefined();
      const fees = sum(fillsOf(bot).map((f) => f.fee))
        .toDecimalPlaces(2, Decimal.ROUND_HALF_EVEN)
        .toFixed(2);
      expect(row).toMatch(
        new RegExp(`ACTIVE\\s+\\d+\\s+\\d+\\s+${orders[bot] ?? 0}\\s+${fillsOf(bot).length}\\s`),
      );
      expect(row).toContain(`${fees} USDT`);
    }
    // The columns are aligned: each row's fill count ends where the FILLS header ends.
    const end = (lines[1] ?? '').indexOf('FILLS') + 'FILLS'.length;
    for (const row of lines.slice(2, 5)) expect(row.slice(0, end)).toMatch(/\d$/);
    const json = await runCli(['status', '--journal', journal, '--json']);
    expect(json.code, json.stderr).toBe(0);
    const bots = JSON.parse(json.stdout) as {
      bot: string;
      fills: number;
      fees: string;
      equity: string | null;
      denialsByCode: { code: string; count: number; lastMessage: string }[];
    }[];
    // What DENIED counts: each code of each bot, how often, and its latest sentence (aapl-ma's oversized
    // entries, above).
    expect(
      denials.filter((x) => x.bot === 'aapl-ma' && x.code === 'MAX_NOTIONAL_ORDER').length,
    ).toBeGreaterThan(0);
    const byCode = new Map<string, { bot: string; code: string; n: number; last: (typeof denials)[0] }>();
    for (const d of denials) {
      const k = `${d.bot} ${d.code}`;
      byCode.set(k, { bot: d.bot, code: d.code, n: (byCode.get(k)?.n ?? 0) + 1, last: d });
    }
    for (const { bot, code, n, last } of byCode.values())
      expect(r.stdout).toMatch(
        new RegExp(
          `^  ${bot}: ${code} x${n}, latest \\d{4}-\\d\\d-\\d\\d [\\d:]+ ES?T: ${last.message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`,
          'm',
        ),
      );
    for (const b of bots) {
      expect(b.fills).toBe(fillsOf(b.bot).length);
      const mine = [...byCode.values()].filter((x) => x.bot === b.bot);
      expect(b.denialsByCode.map((d) => [d.code, d.count, d.lastMessage]).sort()).toEqual(
        mine.map((x) => [x.code, x.n, x.last.message]).sort(),
      );
      expect(b.fees).toBe(sum(fillsOf(b.bot).map((f) => f.fee)).toFixed());
      // Without the deployment file there is no capital, so no equity.
      expect(b.equity).toBeNull();
    }
  });

  it('status: a paused bot reads PAUSED (HALTED+PAUSED when also halted), not ACTIVE', async () => {
    const copy = join(dir, 'paused.db');
    copyFileSync(journal, copy);
    const db = new BetterSqlite3(copy);
    const set = db.prepare('INSERT OR REPLACE INTO meta (key, value, updated_ts) VALUES (?, ?, 0)');
    // As the bot journals them: pause (or flatten) sets paused:<bot>, a halt the trading state.
    set.run('paused:aapl-ma', 'true');
    set.run('paused:tsla-rsi', 'true');
    set.run('trading-state:tsla-rsi', 'HALTED');
    set.run('paused:nvda-session', 'false');
    db.close();
    // The deployment names every bot (a journal alone knows only those that did something).
    const cfgCopy = join(dir, 'paused.yaml');
    const cfg = parse(readFileSync(cfgFile, 'utf8')) as { store: { path: string } };
    cfg.store.path = copy;
    writeFileSync(cfgCopy, stringify(cfg));
    const r = await runCli(['status', '--config', cfgCopy]);
    expect(r.code, r.stderr).toBe(0);
    const stateOf = (bot: string) =>
      r.stdout
        .split('\n')
        .find((l) => l.startsWith(`${bot} `))
        ?.split(/\s+/)[1];
    expect(stateOf('aapl-ma')).toBe('PAUSED');
    expect(stateOf('tsla-rsi')).toBe('HALTED+PAUSED');
    expect(stateOf('nvda-session')).toBe('ACTIVE');
    const json = JSON.parse((await runCli(['status', '--journal', copy, '--json'])).stdout) as {
      bot: string;
      state: string;
    }[];
    expect(json.find((b) => b.bot === 'aapl-ma')?.state).toBe('PAUSED');
  });

  it('positions: each open position with its size in the base coin, as the fills add up', async () => {
    const r = await runCli(['positions', '--config', cfgFile, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as { bot: string; symbol: string; size: string; avgPrice: string }[];
    const expected = [...new Set(fills.map((f) => `${f.bot} ${f.symbol}`))]
      .map((k) => k.split(' ') as [string, string])
      .filter(([bot, symbol]) => !held(bot, symbol).isZero());
    expect(rows.map((p) => `${p.bot} ${p.symbol}`).sort()).toEqual(expected.map((k) => k.join(' ')).sort());
    for (const p of rows) expect(p.size).toBe(held(p.bot, p.symbol).toFixed());
    const text = await runCli(['positions', '--config', cfgFile]);
    const first = rows[0];
    if (first !== undefined) {
      const base = fills.find((f) => f.symbol === first.symbol)?.base_coin ?? '';
      expect(text.stdout).toMatch(new RegExp(`${first.bot}\\s+${first.symbol}\\s+${first.size} ${base}\\s`));
    }
  });

  it('status and positions show dust apart: a remainder below the venue minimum is no open position', async () => {
    // A copy of the journal where one bot's fill leaves it 0.005 of a symbol it traded (the venue's minOrderQty
    // is 0.01): a sell of what it held above that, or a buy of what it lacked.
    const open = fills[0];
    expect(open, 'the demo run made a fill').toBeDefined();
    if (open === undefined) return;
    const delta = held(open.bot, open.symbol).minus('0.005');
    const copy = join(dir, 'dust.db');
    copyFileSync(journal, copy);
    const db = new BetterSqlite3(copy);
    if (!delta.isZero())
      db.prepare(
        `INSERT INTO fills (exec_id, bot, symbol, base_coin, quote_coin, side, price, size, fee, fee_coin, ts)
         VALUES ('dust-test', ?, ?, ?, 'USDT', ?, ?, ?, '0', 'USDT', ?)`,
      ).run(
        open.bot,
        open.symbol,
        open.base_coin,
        delta.gt(0) ? 'sell' : 'buy',
        open.price,
        delta.abs().toFixed(),
        (fills.at(-1)?.ts ?? open.ts) + 1,
      );
    db.close();
    const st = await runCli(['status', '--journal', copy, '--json']);
    expect(st.code, st.stderr).toBe(0);
    const bots = JSON.parse(st.stdout) as { bot: string; dust?: { symbol: string; quantity: string }[] }[];
    expect(bots.find((b) => b.bot === open.bot)?.dust).toEqual([
      { symbol: open.symbol, baseCoin: open.base_coin, quantity: '0.005' },
    ]);
    const text = await runCli(['status', '--journal', copy]);
    expect(text.stdout).toContain(`${open.bot}: 0.005 ${open.base_coin} (${open.symbol})`);
    const pos = await runCli(['positions', '--journal', copy, '--json']);
    const rows = JSON.parse(pos.stdout) as { bot: string; symbol: string }[];
    expect(rows.filter((r) => r.bot === open.bot && r.symbol === open.symbol)).toEqual([]);
  });

  it('trades: the fills of one bot, oldest first, with units; --since counts back from the journal', async () => {
    const bot = fills[0]?.bot ?? 'aapl-ma';
    const r = await runCli(['trades', '--config', cfgFile, '--bot', bot]);
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.trim().split('\n').slice(1);
    expect(rows).toHaveLength(fillsOf(bot).length);
    // A symbol's prices (and sizes) share the decimals of its longest one: the points line up.
    const dp = (xs: readonly string[]) => Math.max(...xs.map((x) => new Decimal(x).decimalPlaces()));
    fillsOf(bot).forEach((f, i) => {
      const same = fillsOf(bot).filter((g) => g.symbol === f.symbol);
      const size = new Decimal(f.size).toFixed(dp(same.map((g) => g.size)));
      const price = new Decimal(f.price).toFixed(dp(same.map((g) => g.price)));
      expect(rows[i]).toContain(`${size} ${f.base_coin}`);
      expect(rows[i]).toContain(`${price} USDT`);
      expect(rows[i]).toContain(f.client_oid);
      expect(rows[i]).toMatch(/^2026-11-23 \d\d:\d\d:\d\d EST /);
    });
    const json = await runCli(['trades', '--journal', journal, '--json', '--since', '2026-11-23T14:00:00Z']);
    const trades = JSON.parse(json.stdout) as {
      bot: string;
      side: string;
      price: string;
      size: string;
      estimated: boolean;
      liquidity: string | null;
      feeEstimated: boolean | null;
    }[];
    expect(trades.length).toBe(fills.length);
    // --json says what the log said of each fill: the liquidity its fee was charged at, and that the fee is
    // an estimate (the venue's fills do not say maker or taker); `estimated` is about the fill itself.
    expect(loggedFills.length).toBe(fills.length);
    for (const l of loggedFills) {
      const t = trades.find(
        (x) => x.bot === l.bot && x.side === l.side && x.price === l.price && x.size === l.size,
      );
      expect(t, JSON.stringify(l)).toBeDefined();
      expect({ liquidity: t?.liquidity, feeEstimated: t?.feeEstimated, estimated: t?.estimated }).toEqual({
        liquidity: l.liquidity,
        feeEstimated: l.feeEstimated,
        estimated: false,
      });
    }
    const none = await runCli(['trades', '--journal', journal, '--json', '--since', '2026-11-24']);
    expect(JSON.parse(none.stdout)).toEqual([]);
    // A duration counts back from the newest intent or fill, not from the wall clock.
    const recent = await runCli(['trades', '--journal', journal, '--json', '--since', '2d']);
    expect((JSON.parse(recent.stdout) as unknown[]).length).toBe(fills.length);
  });

  it('reads a live deployment file without its secrets: unset variables, a default URL, a missing secret file', async () => {
    // config/live.example.yaml as an operator copies it, read in a shell that has none of its secrets.
    const live = parse(readFileSync('config/live.example.yaml', 'utf8')) as { store: { path: string } };
    live.store.path = journal;
    const file = join(dir, 'live.yaml');
    writeFileSync(file, stringify(live));
    const env = { TRADEBOT_BASE_URL: '', TRADEBOT_API_KEY: '', TRADEBOT_API_SECRET: '' };
    const r = await runCli(['status', '--config', file], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // The file's bots, then the journal's.
    expect(r.stdout).toMatch(/^aapl-trend +ACTIVE/m);
    expect(r.stdout).toMatch(/^aapl-ma +\w+ +\d+/m);
    // The daemon itself still refuses to start without them, naming each.
    const run = await runCli(['validate', file], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/environment variable TRADEBOT_API_KEY is not set/);
    expect(run.stderr).toMatch(/cannot read the secret file .*passphrase\.txt/);
  });

  it('bad flags exit 2 with a sentence', async () => {
    const cases: [string[], RegExp][] = [
      [['status'], /pass --config <deployment.yaml> .* or --journal/],
      [['status', '--config', cfgFile, '--journal', journal], /not both/],
      [['trades', '--journal', journal, '--since', 'yesterday'], /--since must be a duration such as 30m/],
      [['trades', '--journal', journal, '--bot', 'nobody'], /no bot named nobody.*aapl-ma/],
      [['positions', '--journal', join(dir, 'missing.db')], /no journal at .*missing\.db/],
      [['trades', '--journal', journal, '--limit', '0'], /--limit: must be a whole number/],
    ];
    for (const [args, re] of cases) {
      const r = await runCli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(re);
    }
  });
});
