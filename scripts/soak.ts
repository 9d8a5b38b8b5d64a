// The kill -9 soak (`npm run soak -- --restarts 50`): a standalone simulator (in this process, on loopback,
// with latency) behind a loopback proxy that holds every order request, and the built daemon against the
// proxy as a remote venue, with a strategy that trades every candle. The proxy answers an order request
// after a delay the soak draws, and tells the soak the request is on the wire (sent, unanswered): three kills
// in five land exactly then, and the held request is then lost, reaches the venue after the kill, or was
// placed with its answer lost. The other kills come a random delay after a new order row appears in the
// journal or after an acknowledged order (during fill sync). Each kill is SIGKILL, then a restart. At the end
// a clean run reconciles, and the script prints the kills that landed with an order request on the wire (at
// least one in five), duplicates, orphans (venue orders not journaled) and lost fills (venue fills not
// journaled), all of which must be 0. Exit 0 when all hold, 1 otherwise, 2 on bad flags.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { stringify } from 'yaml';
import { startSimulator } from '../src/sim/index.js';
import { startFaultProxy, type HeldRequest } from '../test/integration/execution/fixtures/fault-proxy.js';

const USAGE = `usage: npm run soak -- [--restarts N] [--seed N] [--speed N] [--minutes N] [--keep]
  --restarts N  kill -9 restarts (1-10000, default 50)
  --seed N      seed of the kill moments and the simulator (integer, default 1)
  --speed N     simulated seconds per real second (10-120, default 30; a 1m candle every 60/N s)
  --minutes N   time budget in minutes (1-600, default 10): no restart starts after it, and the soak fails
  --keep        keep the temp folder with the journal, config and logs`;

function fail(msg: string): never {
  process.stderr.write(`soak: ${msg}\n${USAGE}\n`);
  process.exit(2);
}

function intFlag(v: string | undefined, name: string, min: number, max: number, dflt: number): number {
  if (v === undefined) return dflt;
  if (!/^-?\d+$/.test(v)) fail(`--${name} must be a whole number, got ${JSON.stringify(v)}`);
  const n = Number(v);
  if (n < min || n > max) fail(`--${name} must be from ${min} to ${max}, got ${n}`);
  return n;
}

let flags: ReturnType<typeof parse>;
function parse() {
  return parseArgs({
    options: {
      restarts: { type: 'string' },
      seed: { type: 'string' },
      speed: { type: 'string' },
      minutes: { type: 'string' },
      keep: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
}
try {
  flags = parse();
} catch (err) {
  fail(err instanceof Error ? err.message : String(err));
}
if (flags.values.help === true) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const RESTARTS = intFlag(flags.values.restarts, 'restarts', 1, 10_000, 50);
const SEED = intFlag(flags.values.seed, 'seed', -(2 ** 31), 2 ** 31 - 1, 1);
const SPEED = intFlag(flags.values.speed, 'speed', 10, 120, 30);
const MINUTES = intFlag(flags.values.minutes, 'minutes', 1, 600, 10);
const CANDLE_REAL_MS = 60_000 / SPEED;
/** The path of order placements (spec: place-reality-order), the requests the proxy holds. */
const ORDER_PATH = '/api/v3/trade/place-reality-order';
/**
 * Where each kill lands, in turn: three of five with an order request on the wire (what becomes of the
 * request then), the others a random delay after a new order row or an acknowledged order.
 */
const PLANS = [
  'on the wire, then lost',
  'order row',
  'on the wire, reaching the venue after the kill',
  'order placed',
  'on the wire, placed with its answer lost',
] as const;
type Plan = (typeof PLANS)[number];

const root = join(import.meta.dirname, '..');
const cli = join(root, 'dist', 'src', 'cli', 'main.js');
if (!existsSync(cli)) fail(`the built CLI ${cli} is missing: run \`npm run build\` first`);

const CREDS = { apiKey: 'soak-key', apiSecret: 'soak-secret', passphrase: 'soak-pass' };
const BOT = 'soak';

/** xorshift32 in [0, 1), reproducible from its seed. */
function xorshift(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 2 ** 32;
  };
}
/** The kill moments, and (a stream of its own, drawn as requests come) the venue's answer delays. */
const rand = xorshift(SEED);
const answerRand = xorshift(SEED ^ 0x9e3779b9);

const dir = mkdtempSync(join(tmpdir(), 'tradebot-soak-'));
const dbPath = join(dir, 'soak.db');

interface JournalView {
  readonly orders: { clientOid: string; state: string; attempts: number }[];
  readonly execIds: Set<string>;
}
function journal(): JournalView {
  if (!existsSync(dbPath)) return { orders: [], execIds: new Set() };
  const db = new BetterSqlite3(dbPath, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    const hasOrders = db.prepare(`SELECT name FROM sqlite_master WHERE type='table' AND name='orders'`).get();
    if (hasOrders === undefined) return { orders: [], execIds: new Set() };
    const orders = db
      .prepare('SELECT client_oid AS clientOid, state, attempts FROM orders')
      .all() as JournalView['orders'];
    const execIds = new Set(db.prepare('SELECT exec_id FROM fills').pluck().all() as string[]);
    return { orders, execIds };
  } finally {
    db.close();
  }
}

function config(baseUrl: string): string {
  const cfg = {
    venue: {
      kind: 'remote',
      baseUrl,
      credentials: { apiKey: '${SOAK_KEY}', apiSecret: '${SOAK_SECRET}', passphrase: '${SOAK_PASS}' },
      whitelisted: true,
      timeScale: SPEED,
      timeoutMs: 2000,
    },
    store: { path: dbPath },
    logging: { level: 'info', format: 'json' },
    metrics: { enabled: false },
    bots: [
      {
        name: BOT,
        strategy: './scripts/soak-strategy.ts',
        params: { quoteAmount: '200' },
        symbols: ['AAPLUSDT'],
        interval: '1m',
        capital: '50000',
        poll: { tickersMs: 2000, fillsMs: 2000 },
        risk: {
          allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'],
          maxDataAgeMs: 60000,
          whitelisted: true,
        },
      },
    ],
  };
  const f = join(dir, 'soak.yaml');
  writeFileSync(f, stringify(cfg));
  return f;
}

interface Daemon {
  readonly proc: ChildProcess;
  log: string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}
/** Every daemon run's output, in order: written to the folder (run-N.log), and searched when fills are lost. */
const daemons: Daemon[] = [];
function startDaemon(cfg: string): Daemon {
  const proc = spawn(process.execPath, [cli, 'run', '--config', cfg], {
    cwd: root,
    env: {
      ...process.env,
      SOAK_KEY: CREDS.apiKey,
      SOAK_SECRET: CREDS.apiSecret,
      SOAK_PASS: CREDS.passphrase,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const d: Daemon = {
    proc,
    log: '',
    exited: new Promise((resolve) => proc.on('close', (code, signal) => resolve({ code, signal }))),
  };
  proc.stdout?.on('data', (b: Buffer) => (d.log += b.toString()));
  proc.stderr?.on('data', (b: Buffer) => (d.log += b.toString()));
  daemons.push(d);
  return d;
}

/** Polls `cond` every 10 ms until it answers a value; undefined after `capMs` or when the daemon exits. */
async function until<T>(d: Daemon, cond: () => T | undefined, capMs: number): Promise<T | undefined> {
  const start = Date.now();
  let dead = false;
  void d.exited.then(() => (dead = true));
  for (;;) {
    const v = cond();
    if (v !== undefined) return v;
    if (dead || Date.now() - start > capMs) return undefined;
    await new Promise((r) => setTimeout(r, 10));
  }
}

const tail = (s: string) => s.split('\n').slice(-15).join('\n');

async function main(): Promise<number> {
  const sim = await startSimulator({
    seed: SEED,
    speed: SPEED,
    startTime: Date.UTC(2026, 10, 23, 14, 35), // Monday 09:35 ET
    accounts: [{ ...CREDS, whitelisted: true, balances: { USDT: '50000' } }],
    // Every request waits 40-400 ms: fills and tickers are slow too, and a fill sync takes a while.
    faults: { latencyMs: [40, 400] },
  });
  const proxy = await startFaultProxy(sim.baseUrl);
  // Order requests the proxy holds and has not answered: on the wire, as the daemon that sent them sees it.
  const onWire = new Set<HeldRequest>();
  const settle = (h: HeldRequest, fate: 'answer' | 'drop'): Promise<void> => {
    if (fate === 'drop') h.drop();
    return (fate === 'answer' ? h.release() : Promise.resolve())
      .catch(() => h.drop())
      .finally(() => onWire.delete(h));
  };
  let waiter: ((h: HeldRequest) => void) | undefined;
  proxy.hold(ORDER_PATH, (h) => {
    onWire.add(h);
    const take = waiter;
    waiter = undefined;
    if (take !== undefined) return take(h);
    // Not the one a kill waits for: the venue answers after 40-400 ms, a slow venue's delay.
    setTimeout(() => void settle(h, 'answer'), 40 + Math.floor(answerRand() * 361));
  });
  /** The next order request the proxy holds, kept for the caller; undefined after `capMs` or the daemon's exit. */
  const nextHeld = (d: Daemon, capMs: number) =>
    new Promise<HeldRequest | undefined>((resolve) => {
      const give = (h: HeldRequest | undefined) => {
        clearTimeout(timer);
        if (waiter === give) waiter = undefined;
        resolve(h);
      };
      const timer = setTimeout(() => give(undefined), capMs);
      void d.exited.then(() => give(undefined));
      waiter = give;
    });

  const cfg = config(proxy.baseUrl);
  const venueOrders = () => sim.engine.orders(CREDS.apiKey);
  const phases = new Map<string, number>();
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const firstOrderMs: number[] = [];
  let slowStarts = 0;
  let failures = 0;
  let kills = 0;
  let killsOnWire = 0;
  const deadline = Date.now() + MINUTES * 60_000;
  process.stdout.write(
    `soak: ${RESTARTS} kill -9 restarts of the daemon against ${sim.baseUrl} through the order-holding proxy ${proxy.baseUrl} (seed ${SEED}, speed ${SPEED}: a 1m candle every ${CANDLE_REAL_MS} ms)\n`,
  );
  try {
    for (let i = 1; i <= RESTARTS + 1; i++) {
      const outOfTime = i <= RESTARTS && Date.now() > deadline;
      if (outOfTime) {
        say(`the ${MINUTES}-minute budget (--minutes) ran out after ${i - 1} restarts: the final run now`);
        failures++;
      }
      const last = i === RESTARTS + 1 || outOfTime;
      const plan: Plan = PLANS[(i - 1) % PLANS.length] ?? 'order row';
      const onTheWire = !last && plan.startsWith('on the wire');
      const before = venueOrders().length;
      const journaledBefore = journal().orders.length;
      const d = startDaemon(cfg);
      const running = await until(
        d,
        () => (d.log.includes('"message":"running"') ? Date.now() : undefined),
        60_000,
      );
      if (running === undefined) {
        process.stdout.write(`run ${i}: the daemon did not reach "running"\n${tail(d.log)}\n`);
        d.proc.kill('SIGKILL');
        failures++;
        break;
      }
      // Asked for before the order is journaled, so its request cannot slip past.
      const held = onTheWire ? nextHeld(d, 10 * CANDLE_REAL_MS + 10_000) : undefined;
      // A new order row in the journal: the daemon has an order between journal and acknowledgement.
      const newRow = await until(
        d,
        () => (journal().orders.length > journaledBefore ? Date.now() : undefined),
        10 * CANDLE_REAL_MS + 10_000,
      );
      if (newRow === undefined) {
        process.stdout.write(`run ${i}: no order within 10 candles of "running"\n${tail(d.log)}\n`);
        d.proc.kill('SIGKILL');
        failures++;
        break;
      }
      firstOrderMs.push(newRow - running);
      if (newRow - running > CANDLE_REAL_MS) slowStarts++;
      if (last) {
        // The final run: not killed. Let it reconcile and trade a little, then stop it cleanly.
        await until(d, () => (venueOrders().length > before + 2 ? true : undefined), 10 * CANDLE_REAL_MS);
        d.proc.kill('SIGTERM');
        const { code } = await d.exited;
        say(`final run: ${venueOrders().length - before} orders placed, clean stop exit ${code}`);
        if (code !== 0) failures++;
        break;
      }
      let moment: string;
      let target: HeldRequest | undefined;
      if (held !== undefined) {
        // The kill lands while the proxy holds the order request: sent, unanswered.
        target = await held;
        if (target === undefined) {
          process.stdout.write(`run ${i}: no order request reached the proxy\n${tail(d.log)}\n`);
          d.proc.kill('SIGKILL');
          failures++;
          break;
        }
        if (plan === 'on the wire, placed with its answer lost') await target.forward();
        moment = `${target.atVenue ? 'the venue took' : 'the proxy holds'} its order request`;
      } else {
        // A random 0-500 ms after the new order row, or 0-400 ms after the next acknowledged order's
        // fill sync starts (the "order placed" moment; the order row's when none comes within 5 s).
        let trigger = 'order row';
        if (plan === 'order placed') {
          const placed = (d.log.match(/"message":"order placed"/g) ?? []).length;
          const acked = await until(
            d,
            () => ((d.log.match(/"message":"order placed"/g) ?? []).length > placed ? true : undefined),
            5_000,
          );
          if (acked) trigger = 'order placed';
        }
        const delay = Math.floor(rand() * (trigger === 'order row' ? 500 : 400));
        await new Promise((r) => setTimeout(r, delay));
        moment = `${delay} ms after ${trigger}`;
      }
      // What the proxy holds of this daemon's order requests at the kill: requests on the wire.
      const wire = [...onWire].filter((h) => !h.clientGone).length;
      d.proc.kill('SIGKILL');
      const exit = await d.exited;
      kills++;
      if (wire > 0) killsOnWire++;
      const j = journal();
      const atVenue = new Set(venueOrders().map((o) => o.clientOid));
      const pending = j.orders.filter((o) => o.state === 'pending');
      const unsynced = sim.engine.fills(CREDS.apiKey).filter((f) => !j.execIds.has(f.execId)).length;
      const phase =
        target !== undefined
          ? plan
          : wire > 0
            ? 'on the wire, answered after the kill'
            : pending.some((o) => !atVenue.has(o.clientOid))
              ? 'between journal and send'
              : pending.length > 0
                ? 'between answer and its journaling'
                : unsynced > 0
                  ? 'during fill sync'
                  : 'between orders';
      phases.set(phase, (phases.get(phase) ?? 0) + 1);
      // The held request's fate, once its sender is dead and before the restart.
      if (target !== undefined)
        await settle(target, plan === 'on the wire, reaching the venue after the kill' ? 'answer' : 'drop');
      say(
        `restart ${String(i).padStart(3)}: ${venueOrders().length - before} orders placed, first ${newRow - running} ms after "running"; killed (${exit.signal ?? exit.code}) ${moment}, ${wire} order request(s) on the wire: ${phase}`,
      );
    }
  } finally {
    await proxy.stop();
    await sim.stop();
  }

  const j = journal();
  const orders = sim.engine.orders(CREDS.apiKey);
  const byOid = new Map<string, number>();
  for (const o of orders) byOid.set(o.clientOid, (byOid.get(o.clientOid) ?? 0) + 1);
  const duplicates = [...byOid.values()].filter((n) => n > 1).reduce((a, n) => a + n - 1, 0);
  const journaled = new Set(j.orders.map((o) => o.clientOid));
  const orphans = orders.filter((o) => !journaled.has(o.clientOid)).length;
  const fills = sim.engine.fills(CREDS.apiKey);
  const lostFills = fills.filter((f) => !j.execIds.has(f.execId)).length;
  const pendingLeft = j.orders.filter((o) => o.state === 'pending').length;
  const sorted = [...firstOrderMs].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  // The acceptance: at least one kill in five lands with an order request on the wire (10 of 50).
  const wireNeeded = Math.ceil(kills / 5);
  const out = [
    '',
    `kill moments: ${[...phases].map(([k, v]) => `${k} ${v}`).join(', ')}`,
    `kills with an order request on the wire: ${killsOnWire} of ${kills} (at least ${wireNeeded} needed)`,
    `venue orders ${orders.length}, journaled orders ${j.orders.length}, venue fills ${fills.length}, journaled fills ${j.execIds.size}`,
    `duplicates ${duplicates}, orphans ${orphans}, lost fills ${lostFills}, pending left ${pendingLeft}`,
    `first order after "running": median ${median} ms, max ${sorted.at(-1) ?? 0} ms; ${firstOrderMs.length - slowStarts}/${firstOrderMs.length} runs within one candle (${CANDLE_REAL_MS} ms)`,
  ];
  for (const [i, d] of daemons.entries()) writeFileSync(join(dir, `run-${i + 1}.log`), d.log);
  if (lostFills > 0) {
    // What the daemons said of the fills they did not book (the attribution's reason), and the fills.
    const notBooked = daemons.flatMap((d) =>
      d.log
        .split('\n')
        .filter(
          (l) =>
            l.includes('fill not booked') ||
            l.includes('fill booked to the deployment') ||
            l.includes('fills disagree with the account') ||
            l.includes('fills may be missing'),
        ),
    );
    out.push(
      'lost fills (venue): ' +
        fills
          .filter((f) => !j.execIds.has(f.execId))
          .map(
            (f) =>
              `${f.execId} (order ${f.clientOid}) ${f.side} ${f.size.toFixed()} @ ${f.price.toFixed()} ts ${f.ts}`,
          )
          .join('; '),
      `the daemons said (${notBooked.length} lines):`,
      ...notBooked.slice(-10),
    );
  }
  process.stdout.write(`${out.join('\n')}\n`);
  const ok =
    failures === 0 &&
    killsOnWire >= wireNeeded &&
    duplicates === 0 &&
    orphans === 0 &&
    lostFills === 0 &&
    pendingLeft === 0;
  process.stdout.write(ok ? 'soak: OK\n' : 'soak: FAILED\n');
  if (flags.values.keep === true) process.stdout.write(`kept ${dir}\n`);
  else rmSync(dir, { recursive: true, force: true });
  return ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`soak: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
