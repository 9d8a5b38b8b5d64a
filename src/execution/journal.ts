// The journal port of the trading pipeline: what the Trader and the Executor write before they act. The
// live bot journals to SQLite (`storeJournal`); a backtest keeps the same records in memory
// (`MemoryJournal`), through the same interface, so what is sent and what a fill does is one code path.
import type { VenueOrder } from '../api/index.js';
import type { Store } from '../store/index.js';
import type { Decimal } from '../market/decimal.js';
import type { ControlInput } from '../store/control.js';
import type { FillInput } from '../store/fills.js';
import type { JournalResult, NewOrder, OrderRecord } from '../store/orders.js';
import type { OrderIntent } from '../strategy/intent.js';

/** The order journal the Executor writes (SQLite's OrderRepository is one). */
export interface OrderJournal {
  journal(entry: NewOrder, ts?: number): JournalResult;
  markAttempt(clientOid: string, ts?: number): number;
  markAcked(clientOid: string, orderId: string, ts?: number): OrderRecord;
  markRejected(clientOid: string, code: string, msg: string, ts?: number): OrderRecord;
  byClientOid(clientOid: string): OrderRecord | undefined;
  byOrderId(orderId: string): OrderRecord | undefined;
}

/** A fill as the pipeline journals it: amounts already Decimal. */
export type JournalFill = FillInput & {
  readonly price: Decimal;
  readonly size: Decimal;
  readonly fee: Decimal;
};

export interface TraderJournal {
  readonly orders: OrderJournal;
  /**
   * Runs `fn`'s writes as one commit (one fsync under synchronous=FULL): an approved intent, its order
   * and the order's first attempt are journaled together before the order is sent. `fn` is synchronous.
   */
  atomically<T>(fn: () => T): T;
  /**
   * Like `atomically`, for the writes that precede an order's send: the journal may commit them together
   * with other bots' (a group commit, one fsync for the orders of one candle boundary). The answer comes
   * once they are committed, a promise when they wait for the end of the turn; it rejects when they failed.
   * Without it, `atomically`.
   */
  beforeSend?<T>(fn: () => T): T | Promise<T>;
  /** The bot stopped: it no longer shares the group commits (a lone bot left commits at once again). */
  leave?(): void;
  recordIntent(intent: OrderIntent, ts: number): void;
  recordDenial(d: { bot: string; code: string; message: string; intent: OrderIntent }, ts: number): void;
  hasFill(execId: string): boolean;
  /** Journals a fill; answers its sequence number, or undefined when its execId was journaled already. */
  addFill(fill: JournalFill): number | undefined;
  /**
   * The journal's fills of a symbol at or after `ts`, every bot's and the deployment's (the fill router's
   * conservation check); undefined when the journal does not keep them (a backtest's).
   */
  fillsSince?(symbol: string, ts: number): readonly { execId: string; side: string; size: Decimal }[];
  /** Journals an operator's action on the bot (a backtest has none). */
  recordControl?(c: ControlInput, ts: number): void;
  /**
   * The order will take no more fills (refused, filled in full, or a market order whose fills were
   * read): a journal that holds its records in memory may let it go. SQLite keeps everything.
   */
  settled?(clientOid: string): void;
}

/** The SQLite journal of a live bot. */
export function storeJournal(store: Store): TraderJournal {
  // Each bot's pipeline is one writer of the journal's group commits: with several, the orders decided in
  // one turn share a commit.
  const leave = store.joinGroupCommit();
  return {
    leave,
    orders: store.orders,
    atomically: (fn) => store.transaction(fn),
    beforeSend: (fn) => store.groupCommit(fn),
    recordIntent: (intent, ts) => void store.intents.record(intent, ts),
    recordDenial: (d, ts) => void store.denials.record(d, ts),
    hasFill: (execId) => store.fills.has(execId),
    addFill: (f) => store.fills.insert(f),
    fillsSince: (symbol, ts) => store.fills.sizesSince(symbol, ts),
    recordControl: (c, ts) => void store.control.record(c, ts),
  };
}

/**
 * The journal of a backtest: orders and fills in memory (the same records and rules as SQLite: a
 * clientOid is journaled once, a fill once per execId); intents and denials are not kept, since the
 * backtest's result collects them from the pipeline's events.
 *
 * Its memory does not grow with the run: an order's record is let go once it is settled (it takes no
 * more fills), and only the latest `RECENT_FILLS` execIds are remembered. The in-process venue hands
 * each fill over once, as it happens, so a fill older than that can never come back; the rule that
 * matters (a fill is booked once) holds for every fill the venue can still hand over.
 */
export class MemoryJournal implements TraderJournal {
  // Records are mutated in place: a backtest journals thousands of orders and should not copy each
  // one three times (journal, attempt, acknowledgement).
  private readonly byOid = new Map<string, Mutable<OrderRecord>>();
  private readonly byId = new Map<string, OrderRecord>();
  private readonly execIds = new Set<string>();
  /** The remembered execIds in the order they came, a ring of RECENT_FILLS. */
  private readonly execRing: string[] = [];
  private ringAt = 0;
  private seq = 0;

  atomically<T>(fn: () => T): T {
    return fn();
  }

  readonly orders: OrderJournal = {
    journal: (entry: NewOrder, ts = 0): JournalResult => {
      const o: VenueOrder = entry.order;
      const had = this.byOid.get(o.clientOid);
      if (had !== undefined) return { inserted: false, record: had };
      const bot = entry.bot ?? entry.intent?.bot;
      const record: Mutable<OrderRecord> = {
        clientOid: o.clientOid,
        order: o,
        state: 'pending',
        attempts: entry.firstAttempt === true ? 1 : 0,
        createdTs: ts,
        updatedTs: ts,
      };
      if (bot !== undefined) record.bot = bot;
      if (entry.intent !== undefined) record.intent = entry.intent;
      this.byOid.set(o.clientOid, record);
      return { inserted: true, record };
    },
    markAttempt: (clientOid, ts) => {
      const r = this.need(clientOid);
      r.attempts++;
      if (ts !== undefined) r.updatedTs = ts;
      return r.attempts;
    },
    markAcked: (clientOid, orderId, ts) => {
      const r = this.need(clientOid);
      r.state = 'acked';
      r.orderId = orderId;
      if (ts !== undefined) r.updatedTs = ts;
      this.byId.set(orderId, r);
      return r;
    },
    markRejected: (clientOid, code, msg, ts) => {
      const r = this.need(clientOid);
      r.state = 'rejected';
      r.rejectCode = code;
      r.rejectMsg = msg;
      if (ts !== undefined) r.updatedTs = ts;
      return r;
    },
    byClientOid: (clientOid) => this.byOid.get(clientOid),
    byOrderId: (orderId) => this.byId.get(orderId),
  };

  recordIntent(): void {}
  recordDenial(): void {}

  hasFill(execId: string): boolean {
    return this.execIds.has(execId);
  }

  addFill(f: JournalFill): number | undefined {
    if (this.execIds.has(f.execId)) return undefined;
    this.execIds.add(f.execId);
    if (this.execRing.length < RECENT_FILLS) this.execRing.push(f.execId);
    else {
      this.execIds.delete(this.execRing[this.ringAt] as string);
      this.execRing[this.ringAt] = f.execId;
      this.ringAt = (this.ringAt + 1) % RECENT_FILLS;
    }
    return ++this.seq;
  }

  settled(clientOid: string): void {
    const r = this.byOid.get(clientOid);
    if (r === undefined) return;
    this.byOid.delete(clientOid);
    if (r.orderId !== undefined) this.byId.delete(r.orderId);
  }

  /** Orders journaled and not settled yet (what the journal holds). */
  get held(): number {
    return this.byOid.size;
  }

  private need(clientOid: string): Mutable<OrderRecord> {
    const r = this.byOid.get(clientOid);
    if (r === undefined) throw new Error(`no order journaled under clientOid ${clientOid}`);
    return r;
  }
}

/** How many of the latest fills' execIds a MemoryJournal remembers (the wire's page is 100). */
export const RECENT_FILLS = 4096;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
