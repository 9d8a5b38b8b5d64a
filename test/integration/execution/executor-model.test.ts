// A model-based test of the trading pipeline under faults: fast-check generates sequences of intents and
// faults against the real simulator on loopback (behind a fault proxy) and a SQLite journal on a temp file:
// a drop, a 5xx or a timeout before the venue saw the order, the same after the venue accepted it (the answer
// lost), 429 bursts, failing fill syncs, a process kill between journal and send, after send, and during
// fill sync (simulated in-process: the Trader is abandoned mid-step and the journal file reopened by a new
// Trader + reconcile, as a restarted daemon does), restarts and replays of the interrupted intent.
// After every sequence: exactly one venue order per journaled (approved) intent, no venue order or fill
// missing from the journal, and the portfolio rebuilt from the journal equal to the venue's account to the
// last decimal. A failure prints fast-check's shrunk counterexample. TRADEBOT_MODEL_RUNS sets the number of
// sequences (default 20) for a long soak.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RestClient } from '../../../src/client/index.js';
import { storeJournal, type TraderJournal } from '../../../src/execution/journal.js';
import { reconcile } from '../../../src/execution/reconcile.js';
import { RestVenue } from '../../../src/execution/rest-venue.js';
import { MarketState, Trader } from '../../../src/execution/trader.js';
import type { Venue } from '../../../src/execution/venue.js';
import { VirtualClock } from '../../../src/feeds/clock.js';
import { Decimal } from '../../../src/market/decimal.js';
import { parseInstrument } from '../../../src/market/instrument-rules.js';
import { usSessionAt } from '../../../src/market/sessions.js';
import { Portfolio } from '../../../src/portfolio/portfolio.js';
import { RiskGate, RiskLimitsSchema, TradingStateMachine } from '../../../src/risk/index.js';
import { startSimulator, type Simulator } from '../../../src/sim/index.js';
import { openStore, type Store } from '../../../src/store/index.js';
import { buyMarket, limit, sellMarket } from '../../../src/strategy/index.js';
import type { OrderIntent } from '../../../src/strategy/intent.js';
import { NET_FAULTS, startFaultProxy, type FaultProxy, type NetFault } from './fixtures/fault-proxy.js';

const RUNS = Number(process.env.TRADEBOT_MODEL_RUNS ?? '20');
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error('TRADEBOT_MODEL_RUNS must be a whole number >= 1');

const SEED_ENV = process.env.TRADEBOT_MODEL_SEED ?? '20261123';
const SEED = SEED_ENV === 'random' ? undefined : Number(SEED_ENV);
if (SEED !== undefined && !Number.isInteger(SEED))
  throw new Error('TRADEBOT_MODEL_SEED must be an integer or "random"');

const CREDS = { apiKey: 'model-key', apiSecret: 'model-secret', passphrase: 'model-pass' };
const START = Date.UTC(2026, 10, 23, 15); // Monday 10:00 ET, regular session
const SYMBOL = 'AAPLUSDT';
const BOT = 'model';
const CAPITAL = '10000';
// Maker and taker rates differ, so a fill booked at the wrong liquidity shows in the cash.
const MAKER = '0.0005';
const TAKER = '0.001';
const PLACE_PATH = '/api/v3/trade/place-reality-order';
const FILLS_PATH = '/api/v3/account/reality-fills';
const CLIENT_TIMEOUT_MS = 250;

type Kill = 'before-send' | 'after-send' | 'during-sync';
type OrderKind = 'buy' | 'sell' | 'limit-buy' | 'limit-sell';

type Cmd =
  | {
      readonly t: 'order';
      readonly kind: OrderKind;
      /** 1..100: quote amount / 10, percent of the position, or base quantity x 20. */
      readonly size: number;
      /** Limit price offset from the touch, in basis points (positive crosses the book). */
      readonly offsetBps: number;
      readonly faults: readonly NetFault[];
      readonly syncFaults: readonly NetFault[];
      readonly kill: Kill | undefined;
      /** After a kill: whether the restarted bot replays the interrupted intent (same signal time). */
      readonly replay: boolean;
      /** After a kill: how long the bot stays down (simulated ms; resting orders may fill meanwhile). */
      readonly downMs: number;
    }
  | { readonly t: 'advance'; readonly ms: number }
  | { readonly t: 'restart' };

const netFault = fc.constantFrom(...NET_FAULTS);
const orderCmd: fc.Arbitrary<Cmd> = fc.record({
  t: fc.constant('order' as const),
  kind: fc.constantFrom<OrderKind>('buy', 'sell', 'limit-buy', 'limit-sell'),
  size: fc.integer({ min: 1, max: 100 }),
  offsetBps: fc.integer({ min: -40, max: 20 }),
  faults: fc.array(netFault, { maxLength: 7 }),
  syncFaults: fc.array(netFault, { maxLength: 2 }),
  kill: fc.option(fc.constantFrom<Kill>('before-send', 'after-send', 'during-sync'), {
    nil: undefined,
    freq: 3,
  }),
  replay: fc.boolean(),
  downMs: fc.integer({ min: 0, max: 120_000 }),
});
const cmdArb: fc.Arbitrary<Cmd> = fc.oneof(
  { arbitrary: orderCmd, weight: 6 },
  {
    arbitrary: fc.record({ t: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 120_000 }) }),
    weight: 2,
  },
  { arbitrary: fc.constant<Cmd>({ t: 'restart' }), weight: 1 },
);

const o = (c: Partial<Extract<Cmd, { t: 'order' }>>): Cmd => ({
  t: 'order',
  kind: 'buy',
  size: 1,
  offsetBps: 0,
  faults: [],
  syncFaults: [],
  kill: undefined,
  replay: false,
  downMs: 0,
  ...c,
});
/**
 * Found by this test: a limit sell that crossed on arrival, its answer lost (sent until the executor gave up,
 * the last send reaching the venue), its fill booked by the next order's sync while the order was still
 * pending: the fill was taken as maker, the venue had charged taker.
 */
const FOUND_1: Cmd[] = [
  o({ kind: 'buy', size: 4, kill: 'before-send' }),
  o({
    kind: 'limit-sell',
    size: 6,
    faults: ['drop-before', 'drop-before', 'drop-before', 'drop-before', 'drop-before', '5xx-after'],
  }),
  o({ kind: 'buy', size: 1 }),
];

/** A never-settling promise: where an abandoned (killed) pipeline stops for good. */
const frozen = <T>(): Promise<T> => new Promise<T>(() => undefined);

class Killed extends Error {}

/** What the sequences exercised, summed over the runs (printed, and checked to be more than nothing). */
const stats = { acked: 0, rejected: 0, resentAttempts: 0, denied: 0, fills: 0, killed: 0, failed: 0 };

/** One "process": a store on the journal file, a client through the proxy, a Trader on them. */
interface Live {
  readonly store: Store;
  readonly client: RestClient;
  readonly trader: Trader;
  /** Arms a kill for the next order's send or fill sync. */
  arm(kill: Kill | undefined): void;
  /** Resolves when the armed kill struck. */
  readonly killed: Promise<void>;
}

async function runSequence(cmds: readonly Cmd[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tradebot-model-'));
  const db = join(dir, 'journal.db');
  const clock = new VirtualClock(START);
  let sim: Simulator | undefined;
  let proxy: FaultProxy | undefined;
  const lives: Live[] = [];
  try {
    sim = await startSimulator({
      seed: 17,
      clock,
      rateLimits: false,
      accounts: [
        {
          ...CREDS,
          whitelisted: true,
          balances: { USDT: CAPITAL },
          makerFeeRate: MAKER,
          takerFeeRate: TAKER,
        },
      ],
    });
    proxy = await startFaultProxy(sim.baseUrl);
    const direct = new RestClient({ baseUrl: sim.baseUrl, clock, rateLimit: false });
    const [wire] = await direct.instruments({ category: 'SPOT', symbol: SYMBOL });
    if (wire === undefined) throw new Error(`${SYMBOL} is not an instrument of the simulator`);
    const rules = parseInstrument(wire);
    const limits = RiskLimitsSchema.parse({
      whitelisted: true,
      maxOrdersPerSecond: 30,
      allowedSessions: ['regular'],
      maxDataAgeMs: 600_000,
    });
    const p = proxy;

    const open = async (): Promise<Live> => {
      const store = openStore(db, { clock });
      const client = new RestClient({
        baseUrl: p.baseUrl,
        credentials: CREDS,
        clock,
        rateLimit: false,
        whitelisted: true,
        timeoutMs: CLIENT_TIMEOUT_MS,
        retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 },
      });
      const rest = new RestVenue(client);
      let armed: Kill | undefined;
      let strike: () => void = () => undefined;
      const killed = new Promise<void>((r) => (strike = r));
      const kill = () => {
        armed = undefined;
        strike();
      };
      const venue: Venue = {
        async placeOrder(order) {
          if (armed === 'before-send') {
            kill();
            return frozen();
          }
          const ack = await rest.placeOrder(order);
          if (armed === 'after-send') {
            kill();
            return frozen();
          }
          return ack;
        },
        fills: (s, l) => rest.fills(s, l),
      };
      const inner = storeJournal(store);
      // A kill during fill sync strikes after the first fill of the sync was journaled.
      let booked = 0;
      const journal: TraderJournal = {
        ...inner,
        orders: inner.orders,
        addFill(f) {
          const seq = inner.addFill(f);
          if (armed === 'during-sync' && ++booked >= 1) {
            kill();
            throw new Killed('killed during fill sync');
          }
          return seq;
        },
      };
      const portfolio = Portfolio.fromFills(store.fills.list({ bot: BOT }), {
        quoteCoin: 'USDT',
        cash: { USDT: CAPITAL },
      });
      const market = new MarketState();
      market.setRules(SYMBOL, rules);
      const trader = new Trader({
        bot: BOT,
        pairs: [{ symbol: SYMBOL, baseCoin: rules.baseCoin, quoteCoin: rules.quoteCoin }],
        venue,
        journal,
        clock,
        gate: new RiskGate(limits),
        tradingState: new TradingStateMachine(limits),
        portfolio,
        market,
        fees: { maker: new Decimal(MAKER), taker: new Decimal(TAKER) },
        maxAttempts: 3,
        sleep: () => new Promise((r) => setTimeout(r, 1)),
      });
      const live: Live = {
        store,
        client,
        trader,
        killed,
        arm: (k) => {
          armed = k;
          booked = 0;
        },
      };
      lives.push(live);
      await reconcile({ store, trader, bot: BOT });
      return live;
    };

    /** Abandons a process (its pending promises never settle) and starts another on the same journal. */
    const restart = async (old: Live): Promise<Live> => {
      old.client.close();
      old.store.close();
      p.clear();
      return open();
    };

    const refreshMarket = async (t: Trader) => {
      const [tk] = await direct.tickers({ category: 'SPOT', symbol: SYMBOL });
      if (tk === undefined) throw new Error(`no ticker of ${SYMBOL}`);
      const q = t.market.quote(SYMBOL);
      q.last = tk.lastPrice;
      q.bid = tk.bid1Price;
      q.ask = tk.ask1Price;
      q.ts = clock.now();
      t.market.setSession(usSessionAt(clock.now()));
      t.mark(SYMBOL, new Decimal(tk.lastPrice), clock.now());
    };

    const intentOf = (c: Extract<Cmd, { t: 'order' }>, t: Trader): OrderIntent => {
      const q = t.market.quote(SYMBOL);
      const held = t.portfolio.position(SYMBOL).quantity;
      const part = held.gt(0) ? held.mul(c.size).div(100) : new Decimal(c.size).div(20);
      const touch = new Decimal(c.kind === 'limit-buy' ? (q.ask ?? q.last) : (q.bid ?? q.last));
      const bps = new Decimal(c.offsetBps).div(10_000);
      const price = (
        c.kind === 'limit-buy' ? touch.mul(bps.plus(1)) : touch.mul(new Decimal(1).minus(bps))
      ).toDecimalPlaces(rules.pricePrecision, Decimal.ROUND_DOWN);
      const tag = `m-${c.kind}`;
      switch (c.kind) {
        case 'buy':
          return { ...buyMarket(SYMBOL, new Decimal(c.size).mul(10), tag, 'model'), bot: BOT };
        case 'sell':
          return { ...sellMarket(SYMBOL, part, tag, 'model'), bot: BOT };
        case 'limit-buy':
          return { ...limit(SYMBOL, 'buy', new Decimal(c.size).div(20), price, tag, 'model'), bot: BOT };
        case 'limit-sell':
          return { ...limit(SYMBOL, 'sell', part, price, tag, 'model'), bot: BOT };
      }
    };

    let live = await open();
    for (const c of cmds) {
      if (c.t === 'advance') {
        clock.advance(c.ms);
        continue;
      }
      if (c.t === 'restart') {
        live = await restart(live);
        continue;
      }
      // Each intent on its own signal time, as each candle of a live bot.
      clock.advance(1_000);
      await refreshMarket(live.trader);
      const intent = intentOf(c, live.trader);
      const signalTime = clock.now();
      p.inject(PLACE_PATH, c.faults);
      p.inject(FILLS_PATH, c.syncFaults);
      live.arm(c.kill);
      const done = live.trader.submit(intent, signalTime).then(
        () => 'done' as const,
        (err: unknown) => {
          if (err instanceof Killed) return 'killed' as const;
          // A failed intent (a fill sync that ran out of attempts) fails the bot: the daemon restarts it.
          return 'failed' as const;
        },
      );
      const outcome = await Promise.race([done, live.killed.then(() => 'killed' as const)]);
      p.clear();
      if (outcome === 'done') continue;
      stats[outcome]++;
      clock.advance(c.downMs);
      live = await restart(live);
      if (outcome === 'killed' && c.replay) {
        await refreshMarket(live.trader);
        await live.trader.submit(intent, signalTime).catch(() => undefined);
      }
    }
    // A last clean restart: reconciliation resolves whatever was left pending, then the fills are read.
    live = await restart(live);
    await live.trader.syncFills();
    checkInvariants(sim, live);
    const orders = live.store.orders.list();
    stats.acked += orders.filter((o) => o.state === 'acked').length;
    stats.rejected += orders.filter((o) => o.state === 'rejected').length;
    stats.resentAttempts += orders.filter((o) => o.attempts > 1).length;
    stats.denied += live.store.denials.list().length;
    stats.fills += live.store.fills.list().length;
    direct.close();
  } finally {
    for (const l of lives) {
      l.client.close();
      l.store.close();
    }
    await proxy?.stop();
    await sim?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function checkInvariants(sim: Simulator, live: Live): void {
  const { store, trader } = live;
  const journaled = store.orders.list();
  const atVenue = sim.engine.orders(CREDS.apiKey);
  const problems: string[] = [];
  const venueByOid = new Map<string, number>();
  for (const o of atVenue) venueByOid.set(o.clientOid, (venueByOid.get(o.clientOid) ?? 0) + 1);
  const journalOids = new Set(journaled.map((o) => o.clientOid));
  for (const o of journaled) {
    const n = venueByOid.get(o.clientOid) ?? 0;
    if (o.state === 'pending') problems.push(`order ${o.clientOid} still pending after reconciliation`);
    if (o.state === 'acked' && n !== 1)
      problems.push(`acked order ${o.clientOid} is ${n} orders at the venue`);
    if (o.state === 'rejected' && n !== 0)
      problems.push(`rejected order ${o.clientOid} is ${n} orders at the venue`);
  }
  for (const o of atVenue)
    if (!journalOids.has(o.clientOid))
      problems.push(`orphan: venue order ${o.orderId} (${o.clientOid}) not journaled`);
  const venueFills = sim.engine.fills(CREDS.apiKey);
  const journalFills = store.fills.list({ bot: BOT });
  const journalExec = new Set(journalFills.map((f) => f.execId));
  for (const f of venueFills) if (!journalExec.has(f.execId)) problems.push(`lost fill ${f.execId}`);
  if (journalFills.length !== venueFills.length)
    problems.push(`${journalFills.length} fills journaled, ${venueFills.length} at the venue`);

  const rebuilt = Portfolio.fromFills(journalFills, { quoteCoin: 'USDT', cash: { USDT: CAPITAL } });
  const bal = sim.engine.balancesDecimal(CREDS.apiKey);
  const total = (coin: string) => {
    const b = bal[coin];
    return b ? b.available.plus(b.frozen).toFixed() : '0';
  };
  const base = SYMBOL.replace(/USDT$/, '');
  const pairs: [string, string, string][] = [
    ['USDT cash', rebuilt.cash('USDT').toFixed(), total('USDT')],
    [`${base} cash`, rebuilt.cash(base).toFixed(), total(base)],
    [`${SYMBOL} position`, rebuilt.position(SYMBOL).quantity.toFixed(), total(base)],
    ['live USDT cash', trader.portfolio.cash('USDT').toFixed(), total('USDT')],
  ];
  for (const [what, ours, venue] of pairs)
    if (ours !== venue) problems.push(`${what}: journal ${ours}, venue ${venue}`);
  if (problems.length > 0) throw new Error(`invariants broken:\n  ${problems.join('\n  ')}`);
}

describe('the trading pipeline under generated faults (model-based)', () => {
  it(
    `keeps one venue order per approved intent, every order and fill journaled, the portfolio equal to the account (${RUNS} sequences)`,
    async () => {
      let orders = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(cmdArb, { minLength: 1, maxLength: 8 }), async (cmds) => {
          orders += cmds.filter((c) => c.t === 'order').length;
          await runSequence(cmds);
        }),
        // A fixed seed in npm test (reproducible in CI); TRADEBOT_MODEL_SEED=random explores new sequences.
        { numRuns: RUNS, examples: [[FOUND_1]], ...(SEED === undefined ? {} : { seed: SEED }) },
      );
      console.info(`model runs: ${RUNS} sequences, ${orders} order commands`, stats);
      expect(orders).toBeGreaterThan(0);
      expect(stats.acked).toBeGreaterThan(0);
      expect(stats.fills).toBeGreaterThan(0);
      expect(stats.resentAttempts).toBeGreaterThan(0);
    },
    Math.max(120_000, RUNS * 10_000),
  );
});
