import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/feeds/clock.js';
import { dec } from '../../../src/market/decimal.js';
import type { VenueOrder } from '../../../src/execution/venue.js';
import type { OrderIntent } from '../../../src/strategy/intent.js';
import {
  LATEST_SCHEMA_VERSION,
  MIGRATIONS,
  OrderRepository,
  migrate,
  SchemaTooNewError,
  StoreError,
  openStore,
  schemaVersion,
  type FillInput,
  type Store,
} from '../../../src/store/index.js';

let dir: string;
let path: string;
let clock: VirtualClock;
const open: Store[] = [];

function openAt(p = path): Store {
  const s = openStore(p, { clock });
  open.push(s);
  return s;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tradebot-store-'));
  path = join(dir, 'journal.sqlite');
  clock = new VirtualClock(1_700_000_000_000);
});
afterEach(() => {
  for (const s of open.splice(0)) s.close();
  rmSync(dir, { recursive: true, force: true });
});

const limitIntent: OrderIntent = {
  bot: 'sma',
  symbol: 'AAPLUSDT',
  category: 'SPOT',
  side: 'buy',
  type: 'limit',
  tag: 'entry',
  reason: 'fast SMA crossed above slow SMA',
  quantity: dec('0.125'),
  price: dec('189.40'),
};
const marketBuy: OrderIntent = {
  symbol: 'AAPLUSDT',
  category: 'SPOT',
  side: 'buy',
  type: 'market',
  tag: 'entry',
  reason: 'breakout',
  quoteAmount: dec('1000.000000000000000001'),
};
const order: VenueOrder = {
  category: 'SPOT',
  symbol: 'AAPLUSDT',
  side: 'buy',
  orderType: 'limit',
  qty: '0.125',
  price: '189.40',
  clientOid: 'tb-sma-0001',
};
const fill = (execId: string, over: Partial<FillInput> = {}): FillInput => ({
  execId,
  symbol: 'AAPLUSDT',
  baseCoin: 'AAPL',
  quoteCoin: 'USDT',
  side: 'buy',
  price: '189.40',
  size: '0.125',
  fee: '0.023675',
  feeCoin: 'USDT',
  ts: 1_700_000_000_500,
  ...over,
});

describe('openStore: migrations and pragmas', () => {
  it('creates every table on an empty file at the latest schema version', () => {
    const s = openAt();
    expect(s.schemaVersion).toBe(LATEST_SCHEMA_VERSION);
    const rows = s.db
      .prepare(`SELECT version, name, applied_ts FROM schema_migrations ORDER BY version`)
      .all();
    expect(rows).toEqual(
      MIGRATIONS.map((m) => ({ version: m.version, name: m.name, applied_ts: clock.now() })),
    );
    const tables = (
      s.db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[]
    )
      .map((r) => r.name)
      .sort();
    expect(tables).toEqual(
      [
        'control_actions',
        'decided_candles',
        'denials',
        'drift_reports',
        'equity',
        'fills',
        'intents',
        'meta',
        'notify_outbox',
        'orders',
        'schema_migrations',
        'strategy_state',
        'trading_state',
      ].sort(),
    );
  });

  it('turns WAL journal mode and synchronous=FULL on', () => {
    const s = openAt();
    expect(s.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(s.db.pragma('synchronous', { simple: true })).toBe(2); // FULL
  });

  it('upgrades a file written at an older schema version and keeps its rows', () => {
    // What a tradebot that knew only schema step 1 wrote.
    const old = new BetterSqlite3(path);
    old.pragma('journal_mode = WAL');
    expect(migrate(old, path, clock.now(), MIGRATIONS.slice(0, 1))).toBe(1);
    new OrderRepository(old, clock).journal({ order });
    // A row as step 1's columns hold it (today's repository writes columns that step did not have).
    old
      .prepare(
        `INSERT INTO fills (exec_id, bot, symbol, base_coin, quote_coin, side, price, size, fee, fee_coin, ts)
         VALUES ('e1', 'b', 'AAPLUSDT', 'AAPL', 'USDT', 'buy', '189.4', '1', '0.1', 'USDT', ?)`,
      )
      .run(clock.now());
    old.close();

    clock.advance(1000);
    const s = openAt();
    expect(s.schemaVersion).toBe(LATEST_SCHEMA_VERSION);
    expect(s.orders.byClientOid(order.clientOid)?.state).toBe('pending');
    expect(s.fills.byExecId('e1')?.price.toFixed()).toBe('189.4');
    // Its liquidity was not kept then: not known, never a made-up "not estimated".
    expect(s.fills.byExecId('e1')?.feeEstimated).toBeUndefined();
    expect(s.fills.insertFill({ ...fill('e2'), liquidity: 'maker', liquidityInferred: true })).toBe(true);
    expect(s.fills.byExecId('e2')).toMatchObject({ liquidity: 'maker', feeEstimated: true });
    s.meta.set('k', 'v'); // a table of version 2 exists now
    const v2 = s.db.prepare(`SELECT applied_ts FROM schema_migrations WHERE version = 2`).get();
    expect(v2).toEqual({ applied_ts: clock.now() });
  });

  it("keeps a journal's trading-state history when PAUSED becomes a state (schema step 5), and takes PAUSED then", () => {
    const old = new BetterSqlite3(path);
    old.pragma('journal_mode = WAL');
    expect(migrate(old, path, clock.now(), MIGRATIONS.slice(0, 4))).toBe(4);
    const insert = old.prepare(`INSERT INTO trading_state (state, reason, ts) VALUES (?, ?, ?)`);
    insert.run('HALTED', 'kill switch', clock.now());
    expect(() => insert.run('PAUSED', 'paused', clock.now())).toThrow(/CHECK constraint/);
    old.close();

    const s = openAt();
    expect(s.tradingState.history().map((t) => [t.state, t.reason])).toEqual([['HALTED', 'kill switch']]);
    s.tradingState.record('PAUSED', 're-armed under a pause');
    expect(s.tradingState.current()?.state).toBe('PAUSED');
  });

  it('refuses a file with a newer schema than the code knows, and leaves it untouched', () => {
    openAt().close();
    const raw = new BetterSqlite3(path);
    raw
      .prepare(`INSERT INTO schema_migrations (version, name, applied_ts) VALUES (?, 'from the future', 0)`)
      .run(LATEST_SCHEMA_VERSION + 1);
    raw.close();
    expect(() => openStore(path, { clock })).toThrow(SchemaTooNewError);
    expect(() => openStore(path, { clock })).toThrow(
      new RegExp(
        `schema version ${LATEST_SCHEMA_VERSION + 1} but this tradebot knows only up to version ${LATEST_SCHEMA_VERSION}`,
      ),
    );
    const check = new BetterSqlite3(path);
    expect(schemaVersion(check)).toBe(LATEST_SCHEMA_VERSION + 1);
    check.close();
  });

  it('opening twice is a no-op for the schema', () => {
    openAt().close();
    const s = openAt();
    expect(s.db.prepare(`SELECT COUNT(*) AS n FROM schema_migrations`).get()).toEqual({
      n: LATEST_SCHEMA_VERSION,
    });
  });

  it('creates the parent folder of a new file', () => {
    const s = openAt(join(dir, 'a', 'b', 'deploy.sqlite'));
    expect(s.schemaVersion).toBe(LATEST_SCHEMA_VERSION);
  });
});

describe('order journal', () => {
  it('journals an order as pending with zero attempts, listed by pendingOrders()', () => {
    const s = openAt();
    const { inserted, record } = s.orders.journal({ order, bot: 'sma', intent: limitIntent });
    expect(inserted).toBe(true);
    expect(record).toMatchObject({ clientOid: 'tb-sma-0001', bot: 'sma', state: 'pending', attempts: 0 });
    expect(record.order).toEqual(order);
    expect(record.intent?.type).toBe('limit');
    expect(s.orders.pendingOrders().map((o) => o.clientOid)).toEqual(['tb-sma-0001']);
  });

  it('answers the record it journaled as byClientOid reads it back', () => {
    const s = openAt();
    const { record } = s.orders.journal({ order, bot: 'sma', intent: limitIntent });
    expect(record).toEqual(s.orders.byClientOid(order.clientOid));
    const { price: _price, ...market } = order;
    const bare = { ...market, clientOid: 'tb-bare', orderType: 'market' as const };
    expect(s.orders.journal({ order: bare }).record).toEqual(s.orders.byClientOid('tb-bare'));
  });

  it('journaling the same clientOid again is idempotent', () => {
    const s = openAt();
    s.orders.journal({ order });
    clock.advance(5);
    const again = s.orders.journal({ order });
    expect(again.inserted).toBe(false);
    expect(again.record.createdTs).toBe(clock.now() - 5);
    expect(s.orders.list()).toHaveLength(1);
  });

  it('refuses a clientOid reused for a different order', () => {
    const s = openAt();
    s.orders.journal({ order });
    expect(() => s.orders.journal({ order: { ...order, qty: '0.5' } })).toThrow(
      /already journaled for a different order/,
    );
  });

  it('runs pending -> attempts -> acked, after which nothing is left to resend', () => {
    const s = openAt();
    s.orders.journal({ order });
    expect(s.orders.markAttempt(order.clientOid)).toBe(1);
    expect(s.orders.markAttempt(order.clientOid)).toBe(2);
    clock.advance(20);
    const acked = s.orders.markAcked(order.clientOid, 'O-42');
    expect(acked).toMatchObject({ state: 'acked', orderId: 'O-42', attempts: 2, updatedTs: clock.now() });
    expect(s.orders.markAcked(order.clientOid, 'O-42').state).toBe('acked'); // idempotent
    expect(() => s.orders.markAcked(order.clientOid, 'O-43')).toThrow(/already acknowledged as orderId O-42/);
    expect(() => s.orders.markRejected(order.clientOid, '90001', 'x')).toThrow(/cannot become rejected/);
    expect(s.orders.pendingOrders()).toEqual([]);
    expect(s.orders.byOrderId('O-42')?.clientOid).toBe(order.clientOid);
  });

  it("answers an acknowledged order's record with its intent, in this process and after a restart", () => {
    const s = openAt();
    s.orders.journal({ order, bot: 'sma', intent: limitIntent, firstAttempt: true });
    const acked = s.orders.markAcked(order.clientOid, 'O-7');
    expect(acked).toMatchObject({ state: 'acked', orderId: 'O-7', bot: 'sma', attempts: 1 });
    expect(acked.intent).toEqual(limitIntent);
    // What the journal holds is what the answer said, read back from the file by another process.
    s.close();
    const again = openAt();
    expect(again.orders.byClientOid(order.clientOid)).toEqual(acked);
    expect(again.orders.markAcked(order.clientOid, 'O-7')).toEqual(acked);
  });

  it('runs pending -> rejected with the venue code and message', () => {
    const s = openAt();
    s.orders.journal({ order });
    const r = s.orders.markRejected(order.clientOid, '43012', 'Insufficient balance');
    expect(r).toMatchObject({ state: 'rejected', rejectCode: '43012', rejectMsg: 'Insufficient balance' });
    expect(s.orders.pendingOrders()).toEqual([]);
    expect(s.orders.list({ state: 'rejected' })).toHaveLength(1);
  });

  it('refuses transitions of an order that was never journaled', () => {
    const s = openAt();
    expect(() => s.orders.markAcked('nope', 'O-1')).toThrow(StoreError);
    expect(() => s.orders.markRejected('nope', '1', 'x')).toThrow(/journal it before sending/);
    expect(() => s.orders.markAttempt('nope')).toThrow(StoreError);
  });

  it('lists pending orders oldest first', () => {
    const s = openAt();
    s.orders.journal({ order: { ...order, clientOid: 'b' } });
    clock.advance(1);
    const { price: _price, ...market } = order;
    s.orders.journal({ order: { ...market, clientOid: 'a', orderType: 'market' } });
    expect(s.orders.pendingOrders().map((o) => o.clientOid)).toEqual(['b', 'a']);
  });
});

describe('fills', () => {
  it('insertFill is idempotent by execId and says whether the fill was new', () => {
    const s = openAt();
    expect(s.fills.insertFill(fill('e1'))).toBe(true);
    expect(s.fills.insertFill(fill('e1', { price: '1' }))).toBe(false);
    expect(s.fills.list()).toHaveLength(1);
    expect(s.fills.byExecId('e1')?.price.toFixed()).toBe('189.4');
    expect(s.fills.has('e1')).toBe(true);
    expect(s.fills.has('e2')).toBe(false);
  });

  it('insert answers the sequence number the journal gives the fill, and nothing for a known execId', () => {
    const s = openAt();
    const first = s.fills.insert(fill('e1'));
    const second = s.fills.insert(fill('e2'));
    expect(first).toBe(s.fills.byExecId('e1')?.seq);
    expect(second).toBe(s.fills.byExecId('e2')?.seq);
    expect(second).toBeGreaterThan(first as number);
    expect(s.fills.insert(fill('e1', { price: '1' }))).toBeUndefined();
  });

  it('stores decimals as TEXT, exactly, never as REAL', () => {
    const s = openAt();
    s.fills.insertFill(
      fill('e1', { price: '0.1000000000000000000000000001', size: dec('123456789012345.123456789') }),
    );
    const raw = s.db.prepare(`SELECT typeof(price) AS t, price, size FROM fills`).get();
    expect(raw).toEqual({
      t: 'text',
      price: '0.1000000000000000000000000001',
      size: '123456789012345.123456789',
    });
  });

  it('refuses a number or a malformed decimal, naming the field', () => {
    const s = openAt();
    expect(() => s.fills.insertFill(fill('e1', { price: 1.5 as unknown as string }))).toThrow(
      /fill\.price must be a decimal/,
    );
    expect(() => s.fills.insertFill(fill('e2', { size: '1e5' }))).toThrow(/fill\.size/);
  });

  it('lastFillTs answers the newest fill time per symbol', () => {
    const s = openAt();
    expect(s.fills.lastFillTs('AAPLUSDT')).toBeUndefined();
    s.fills.insertFill(fill('e1', { ts: 10 }));
    s.fills.insertFill(fill('e2', { ts: 30 }));
    s.fills.insertFill(fill('e3', { ts: 20 }));
    s.fills.insertFill(fill('e4', { ts: 99, symbol: 'TSLAUSDT' }));
    expect(s.fills.lastFillTs('AAPLUSDT')).toBe(30);
    expect(s.fills.list({ symbol: 'AAPLUSDT' }).map((f) => f.execId)).toEqual(['e1', 'e2', 'e3']);
  });

  it('attachOrder links a fill to its order once', () => {
    const s = openAt();
    s.fills.insertFill(fill('e1'));
    s.fills.attachOrder('e1', { orderId: 'O-1', clientOid: 'c1' });
    s.fills.attachOrder('e1', { orderId: 'O-2' });
    expect(s.fills.byExecId('e1')).toMatchObject({ orderId: 'O-1', clientOid: 'c1' });
    expect(s.fills.list({ clientOid: 'c1' })).toHaveLength(1);
  });
});

describe('intents, denials and runtime state', () => {
  it('round-trips intents and denials with exact decimals', () => {
    const s = openAt();
    s.intents.record(limitIntent);
    s.intents.record(marketBuy);
    s.denials.record({ code: 'MAX_POSITION', message: 'would exceed maxPositionQty 1', intent: limitIntent });
    const intents = s.intents.list();
    expect(intents.map((i) => i.tag)).toEqual(['entry', 'entry']);
    expect(intents[0]?.bot).toBe('sma');
    expect(intents[1]?.bot).toBeUndefined();
    const mb = intents[1]?.intent;
    expect(mb?.type === 'market' && mb.side === 'buy' ? mb.quoteAmount.toFixed() : '').toBe(
      '1000.000000000000000001',
    );
    const raw = s.db.prepare(`SELECT intent FROM intents WHERE id = 1`).get() as { intent: string };
    expect(JSON.parse(raw.intent)).toMatchObject({ quantity: '0.125', price: '189.4' });
    expect(s.intents.list({ bot: 'sma' })).toHaveLength(1);
    expect(s.intents.list({ limit: 1 })[0]?.id).toBe(2);
    const d = s.denials.list()[0];
    expect(d).toMatchObject({ bot: 'sma', code: 'MAX_POSITION', symbol: 'AAPLUSDT', ts: clock.now() });
  });

  it('journals trading-state transitions and answers the current state', () => {
    const s = openAt();
    expect(s.tradingState.current()).toBeUndefined();
    s.tradingState.record('ACTIVE', 'start');
    clock.advance(1);
    s.tradingState.record('HALTED', 'manual kill switch');
    expect(s.tradingState.current()).toMatchObject({
      state: 'HALTED',
      reason: 'manual kill switch',
      ts: clock.now(),
    });
    clock.advance(1);
    s.tradingState.record('PAUSED', 're-armed, still paused by the operator');
    expect(s.tradingState.history().map((t) => t.state)).toEqual(['ACTIVE', 'HALTED', 'PAUSED']);
    expect(() => s.tradingState.record('STOPPED' as never, 'x')).toThrow(/ACTIVE, PAUSED, REDUCING, HALTED/);
  });

  it('keeps an equity series, one point per ts', () => {
    const s = openAt();
    s.equity.append(1, '1000');
    s.equity.append(2, '1000.5');
    s.equity.append(2, '1000.25');
    expect(s.equity.series().map((p) => [p.ts, p.equity.toFixed()])).toEqual([
      [1, '1000'],
      [2, '1000.25'],
    ]);
    expect(s.equity.last()?.equity.toFixed()).toBe('1000.25');
  });

  it('gets and sets strategy state and meta values', () => {
    const s = openAt();
    expect(s.strategyState.get('sma')).toBeUndefined();
    s.strategyState.set('sma', { lastSignal: 'up', qty: dec('0.5') });
    expect(s.strategyState.get('sma')).toEqual({ lastSignal: 'up', qty: '0.5' });
    expect(() => s.strategyState.set('sma', undefined)).toThrow(/not JSON-serialisable/);
    s.meta.set('candles:AAPLUSDT:1m', '1700000000000');
    expect(s.meta.get('candles:AAPLUSDT:1m')).toBe('1700000000000');
    s.meta.delete('candles:AAPLUSDT:1m');
    expect(s.meta.get('candles:AAPLUSDT:1m')).toBeUndefined();
  });

  it('transaction() commits all writes or none', () => {
    const s = openAt();
    expect(() =>
      s.transaction(() => {
        s.fills.insertFill(fill('e1'));
        s.orders.journal({ order });
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(s.fills.list()).toEqual([]);
    expect(s.orders.list()).toEqual([]);
    s.transaction(() => {
      s.fills.insertFill(fill('e1'));
      s.orders.journal({ order });
    });
    expect(s.fills.list()).toHaveLength(1);
    expect(() => s.transaction(() => Promise.resolve(1))).toThrow(/must be synchronous/);
  });

  it('a deferred write commits with the next transaction, and waits again when that one rolls back', () => {
    const s = openAt();
    const other = new BetterSqlite3(path, { readonly: true });
    const committed = (key: string) =>
      (other.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)
        ?.value;
    try {
      s.deferWrite('mark', () => s.meta.set('mark', '1'));
      s.deferWrite('mark', () => s.meta.set('mark', '2')); // replaces the first, not made yet
      expect(committed('mark')).toBeUndefined();
      expect(() =>
        s.transaction(() => {
          s.orders.journal({ order });
          throw new Error('boom');
        }),
      ).toThrow('boom');
      expect(committed('mark')).toBeUndefined();
      s.transaction(() => s.orders.journal({ order }));
      expect(committed('mark')).toBe('2');
      expect(s.orders.list()).toHaveLength(1);
      s.deferWrite('mark', () => s.meta.set('mark', '3'));
      s.flushDeferred();
      expect(committed('mark')).toBe('3');
      s.deferWrite('mark', () => s.meta.set('mark', '4'));
      s.close();
      expect(committed('mark')).toBe('4');
    } finally {
      other.close();
    }
  });

  it('checkpoint() copies the WAL into the file and starts it over', () => {
    const s = openAt();
    for (let i = 0; i < 20; i++) s.meta.set(`k${i}`, String(i));
    s.checkpoint();
    // Frames in the WAL: what is left is the one write that started it over (syncing its header).
    const [wal] = s.db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[];
    expect(wal?.log).toBeGreaterThan(0);
    expect(wal?.log).toBeLessThanOrEqual(2);
    expect(s.meta.get('k19')).toBe('19');
  });

  it('checkpoint(minGapMs) leaves the WAL alone when the last checkpoint was closer than that', () => {
    const s = openAt();
    let n = 0;
    // Frames in the WAL not yet copied into the file, after 20 writes and a checkpoint asked with `gap`.
    const uncopiedAfter = (gap: number): number => {
      for (let i = 0; i < 20; i++) s.meta.set(`k${i}`, String(n++));
      s.checkpoint(gap);
      const [wal] = s.db.pragma('wal_checkpoint(NOOP)') as { log: number; checkpointed: number }[];
      return (wal?.log ?? 0) - (wal?.checkpointed ?? 0);
    };
    expect(uncopiedAfter(0)).toBeLessThanOrEqual(2);
    // A minute's gap, asked at once: nothing copied, the 20 writes still only in the WAL.
    expect(uncopiedAfter(60_000)).toBeGreaterThanOrEqual(20);
    expect(uncopiedAfter(0)).toBeLessThanOrEqual(2);
  });
});

describe('reopen', () => {
  it('keeps everything after close and reopen', () => {
    const s = openAt();
    s.intents.record(limitIntent);
    s.denials.record({ code: 'STALE_DATA', message: 'no ticker for 30 s', intent: limitIntent });
    s.orders.journal({ order, intent: limitIntent });
    s.orders.journal({ order: { ...order, clientOid: 'tb-2' } });
    s.orders.markAcked('tb-2', 'O-2');
    s.fills.insertFill(fill('e1', { orderId: 'O-2', clientOid: 'tb-2' }));
    s.tradingState.record('REDUCING', 'loss 80% of dailyLossLimit');
    s.equity.append(5, '999.1');
    s.strategyState.set('sma', { n: 3 });
    s.meta.set('cursor', '42');
    s.close();
    s.close(); // idempotent

    const r = openAt();
    expect(r.intents.list()).toHaveLength(1);
    expect(r.denials.list()[0]?.code).toBe('STALE_DATA');
    expect(r.orders.pendingOrders().map((o) => o.clientOid)).toEqual([order.clientOid]);
    expect(r.orders.byClientOid('tb-2')?.orderId).toBe('O-2');
    expect(r.fills.byExecId('e1')).toMatchObject({ orderId: 'O-2', clientOid: 'tb-2', feeCoin: 'USDT' });
    expect(r.tradingState.current()?.state).toBe('REDUCING');
    expect(r.equity.last()?.equity.toFixed()).toBe('999.1');
    expect(r.strategyState.get('sma')).toEqual({ n: 3 });
    expect(r.meta.get('cursor')).toBe('42');
  });
});
