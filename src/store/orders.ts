// The order journal: an approved order is written here (state `pending`) BEFORE it is sent, keyed by its
// deterministic clientOid, so a restart resends exactly what may not have reached the venue, never more.
import type { Database, Statement } from 'better-sqlite3';
import type { VenueOrder } from '../api/index.js';
import type { Clock } from '../feeds/clock.js';
import type { OrderIntent } from '../strategy/intent.js';
import { StoreError, decimalColumn, textColumn, tsColumn } from './columns.js';
import { decodeIntent, encodeIntent } from './intent-codec.js';

/** `pending`: journaled, no acknowledgement yet; `acked`: the venue holds it; `rejected`: the venue refused it. */
export type OrderState = 'pending' | 'acked' | 'rejected';

/** A journaled order. */
export interface OrderRecord {
  readonly clientOid: string;
  readonly bot?: string;
  /** The wire order exactly as journaled: what a resend must send again. */
  readonly order: VenueOrder;
  readonly intent?: OrderIntent;
  readonly state: OrderState;
  readonly orderId?: string;
  readonly rejectCode?: string;
  readonly rejectMsg?: string;
  /** How many times it was sent (see `markAttempt`). */
  readonly attempts: number;
  readonly createdTs: number;
  readonly updatedTs: number;
}

/** What the executor journals before sending. */
export interface NewOrder {
  readonly order: VenueOrder;
  readonly bot?: string | undefined;
  /** The approved intent it came from, for the audit trail. */
  readonly intent?: OrderIntent | undefined;
  /**
   * The first send follows at once: a new record is written with one attempt counted (what `markAttempt`
   * would add, in the same statement: one write less in the commit that precedes the send).
   */
  readonly firstAttempt?: boolean | undefined;
}

/** Answer of `journal`: `inserted` is false when the clientOid was already journaled (same order). */
export interface JournalResult {
  readonly inserted: boolean;
  readonly record: OrderRecord;
}

/** Filter of `list`, newest rows last. */
export interface OrderFilter {
  readonly bot?: string | undefined;
  readonly symbol?: string | undefined;
  readonly state?: OrderState | undefined;
}

interface OrderRow {
  client_oid: string;
  bot: string | null;
  category: string;
  symbol: string;
  side: string;
  order_type: string;
  qty: string;
  price: string | null;
  intent: string | null;
  state: OrderState;
  order_id: string | null;
  reject_code: string | null;
  reject_msg: string | null;
  attempts: number;
  created_ts: number;
  updated_ts: number;
}

function toRecord(r: OrderRow, intent?: OrderIntent): OrderRecord {
  const order: VenueOrder = {
    category: r.category as VenueOrder['category'],
    symbol: r.symbol,
    side: r.side as VenueOrder['side'],
    orderType: r.order_type as VenueOrder['orderType'],
    qty: r.qty,
    ...(r.price === null ? {} : { price: r.price }),
    clientOid: r.client_oid,
  };
  return {
    clientOid: r.client_oid,
    ...(r.bot === null ? {} : { bot: r.bot }),
    order,
    ...(r.intent === null
      ? {}
      : { intent: intent ?? decodeIntent(r.intent, `intent of order ${r.client_oid}`) }),
    state: r.state,
    ...(r.order_id === null ? {} : { orderId: r.order_id }),
    ...(r.reject_code === null ? {} : { rejectCode: r.reject_code }),
    ...(r.reject_msg === null ? {} : { rejectMsg: r.reject_msg }),
    attempts: r.attempts,
    createdTs: r.created_ts,
    updatedTs: r.updated_ts,
  };
}

/** The record of an order just journaled (as `toRecord` would read it back). */
function newRecord(entry: NewOrder, row: { bot: string | null; attempts: number; ts: number }): OrderRecord {
  const o = entry.order;
  // The wire order as toRecord builds it: without a price key when there is none.
  const order: VenueOrder = {
    category: o.category,
    symbol: o.symbol,
    side: o.side,
    orderType: o.orderType,
    qty: o.qty,
    ...(o.price === undefined ? {} : { price: o.price }),
    clientOid: o.clientOid,
  };
  return {
    clientOid: o.clientOid,
    ...(row.bot === null ? {} : { bot: row.bot }),
    order,
    ...(entry.intent === undefined ? {} : { intent: entry.intent }),
    state: 'pending',
    attempts: row.attempts,
    createdTs: row.ts,
    updatedTs: row.ts,
  };
}

/** The wire fields that identify an order: a clientOid reused with different ones is a bug, never a resend. */
function sameWireOrder(a: VenueOrder, b: VenueOrder): boolean {
  return (
    a.category === b.category &&
    a.symbol === b.symbol &&
    a.side === b.side &&
    a.orderType === b.orderType &&
    a.qty === b.qty &&
    a.price === b.price
  );
}

/** Orders keyed by clientOid, with their lifecycle pending -> acked | rejected. */
export class OrderRepository {
  private readonly insertStmt: Statement<[Record<string, string | number | null>], unknown>;
  private readonly byOidStmt: Statement<[string], OrderRow>;
  private readonly byOrderIdStmt: Statement<[string], OrderRow>;
  private readonly pendingStmt: Statement<[], OrderRow>;
  private readonly listStmt: Statement<
    [{ bot: string | null; symbol: string | null; state: string | null }],
    OrderRow
  >;
  private readonly attemptStmt: Statement<[{ oid: string; ts: number }], { attempts: number }>;
  private readonly ackStmt: Statement<[{ oid: string; orderId: string; ts: number }], unknown>;
  private readonly rejectStmt: Statement<[{ oid: string; code: string; msg: string; ts: number }], unknown>;

  /**
   * The intents of the orders this process journaled and the venue has not answered yet, as objects: the
   * answer's record takes its intent from here instead of decoding the stored JSON through its schema on the
   * order path. Bounded by the orders in flight (an answer takes its intent out).
   */
  private readonly inFlight = new Map<string, OrderIntent>();

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {
    this.insertStmt = db.prepare(
      `INSERT INTO orders (client_oid, bot, category, symbol, side, order_type, qty, price, intent, state,
         attempts, created_ts, updated_ts)
       VALUES (@clientOid, @bot, @category, @symbol, @side, @orderType, @qty, @price, @intent, 'pending', @attempts,
         @ts, @ts)
       ON CONFLICT (client_oid) DO NOTHING`,
    );
    this.byOidStmt = db.prepare(`SELECT * FROM orders WHERE client_oid = ?`);
    this.byOrderIdStmt = db.prepare(`SELECT * FROM orders WHERE order_id = ? LIMIT 1`);
    this.pendingStmt = db.prepare(
      `SELECT * FROM orders WHERE state = 'pending' ORDER BY created_ts, client_oid`,
    );
    this.listStmt = db.prepare(
      `SELECT * FROM orders WHERE (@bot IS NULL OR bot = @bot) AND (@symbol IS NULL OR symbol = @symbol)
         AND (@state IS NULL OR state = @state) ORDER BY created_ts, client_oid`,
    );
    this.attemptStmt = db.prepare(
      `UPDATE orders SET attempts = attempts + 1, updated_ts = @ts WHERE client_oid = @oid RETURNING attempts`,
    );
    this.ackStmt = db.prepare(
      `UPDATE orders SET state = 'acked', order_id = @orderId, updated_ts = @ts WHERE client_oid = @oid`,
    );
    this.rejectStmt = db.prepare(
      `UPDATE orders SET state = 'rejected', reject_code = @code, reject_msg = @msg, updated_ts = @ts
       WHERE client_oid = @oid`,
    );
  }

  /**
   * Journals an order as `pending` before it is sent (committed when this returns). Journaling the same
   * clientOid again with the same wire fields is a no-op answering the existing record; with different
   * fields it throws, since a reused clientOid would make the venue drop the second order silently.
   */
  journal(entry: NewOrder, ts: number = this.clock.now()): JournalResult {
    const o = entry.order;
    const row = {
      clientOid: textColumn(o.clientOid, 'order.clientOid'),
      bot: entry.bot ?? entry.intent?.bot ?? null,
      category: textColumn(o.category, 'order.category'),
      symbol: textColumn(o.symbol, 'order.symbol'),
      side: o.side,
      orderType: o.orderType,
      // The wire strings are kept verbatim (a resend must be byte-identical), after checking they are decimals.
      qty: (decimalColumn(o.qty, 'order.qty'), o.qty),
      price: o.price === undefined ? null : (decimalColumn(o.price, 'order.price'), o.price),
      intent: entry.intent === undefined ? null : encodeIntent(entry.intent),
      attempts: entry.firstAttempt === true ? 1 : 0,
      ts: tsColumn(ts),
    };
    // One statement, atomic on its own (no transaction of its own: inside the pipeline's commit it would
    // be a savepoint more). A new order's record is what was just written: reading it back (and parsing
    // its intent's JSON) would cost every order, between the strategy and the send.
    if (this.insertStmt.run(row).changes === 1) {
      if (entry.intent !== undefined) this.inFlight.set(o.clientOid, entry.intent);
      return { inserted: true, record: newRecord(entry, row) };
    }
    const record = this.require(o.clientOid);
    if (!sameWireOrder(record.order, o)) {
      throw new StoreError(
        `clientOid ${o.clientOid} is already journaled for a different order ` +
          `(${describe(record.order)} vs ${describe(o)}): client order ids must be unique per order`,
      );
    }
    return { inserted: false, record };
  }

  /** Counts one more send of the order (call it right before each send); returns the new count. */
  markAttempt(clientOid: string, ts: number = this.clock.now()): number {
    const r = this.attemptStmt.get({ oid: clientOid, ts: tsColumn(ts) });
    if (r === undefined) throw unknownOrder(clientOid);
    return r.attempts;
  }

  /**
   * Records the venue's acknowledgement. Idempotent for the same orderId. A `rejected` order may still be
   * acknowledged (the venue is the truth: it holds the order); an order acked under another orderId throws.
   */
  markAcked(clientOid: string, orderId: string, ts: number = this.clock.now()): OrderRecord {
    textColumn(orderId, 'orderId');
    const at = tsColumn(ts);
    return this.db
      .transaction((): OrderRecord => {
        const cur = this.requireRow(clientOid);
        const intent = this.inFlight.get(clientOid);
        if (cur.state === 'acked') {
          if (cur.order_id === orderId) return toRecord(cur, intent);
          throw new StoreError(
            `order ${clientOid} is already acknowledged as orderId ${cur.order_id ?? '?'}, not ${orderId}`,
          );
        }
        this.ackStmt.run({ oid: clientOid, orderId, ts: at });
        this.inFlight.delete(clientOid);
        // The row as the update left it, without reading it back.
        return toRecord({ ...cur, state: 'acked', order_id: orderId, updated_ts: at }, intent);
      })
      .immediate();
  }

  /**
   * Records the venue's refusal (code and message as the venue sent them). Idempotent on a rejected order;
   * throws on an acknowledged one, which the venue already holds.
   */
  markRejected(clientOid: string, code: string, msg: string, ts: number = this.clock.now()): OrderRecord {
    return this.db
      .transaction((): OrderRecord => {
        const cur = this.require(clientOid);
        if (cur.state === 'acked') {
          throw new StoreError(
            `order ${clientOid} is acknowledged (orderId ${cur.orderId ?? '?'}) and cannot become rejected (${code})`,
          );
        }
        this.rejectStmt.run({ oid: clientOid, code: String(code), msg: String(msg), ts: tsColumn(ts) });
        this.inFlight.delete(clientOid);
        return this.require(clientOid);
      })
      .immediate();
  }

  /** The order journaled under this clientOid, if any. */
  byClientOid(clientOid: string): OrderRecord | undefined {
    const r = this.byOidStmt.get(clientOid);
    return r === undefined ? undefined : toRecord(r);
  }

  /** The order the venue acknowledged under this orderId, if any. */
  byOrderId(orderId: string): OrderRecord | undefined {
    const r = this.byOrderIdStmt.get(orderId);
    return r === undefined ? undefined : toRecord(r);
  }

  /** What a restart must resend (same clientOid): journaled orders without an answer, oldest first. */
  pendingOrders(): OrderRecord[] {
    return this.pendingStmt.all().map((r) => toRecord(r));
  }

  /** Journaled orders, oldest first. */
  list(filter: OrderFilter = {}): OrderRecord[] {
    return this.listStmt
      .all({ bot: filter.bot ?? null, symbol: filter.symbol ?? null, state: filter.state ?? null })
      .map((r) => toRecord(r));
  }

  private require(clientOid: string): OrderRecord {
    return toRecord(this.requireRow(clientOid), this.inFlight.get(clientOid));
  }

  private requireRow(clientOid: string): OrderRow {
    const r = this.byOidStmt.get(clientOid);
    if (r === undefined) throw unknownOrder(clientOid);
    return r;
  }
}

function unknownOrder(clientOid: string): StoreError {
  return new StoreError(`no order journaled under clientOid ${clientOid}: journal it before sending`);
}

function describe(o: VenueOrder): string {
  return `${o.category} ${o.symbol} ${o.side} ${o.orderType} qty ${o.qty}${o.price === undefined ? '' : ` @ ${o.price}`}`;
}
