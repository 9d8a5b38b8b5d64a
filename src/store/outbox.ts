// The notification outbox: every message for every target, written before it is sent and marked sent only
// once its receiver acknowledged it, so a crash, a stop or a receiver's outage never loses one (at least
// once across restarts). A message keeps one idempotency key for every attempt, at every target.
import type { Database, Statement } from 'better-sqlite3';
import { textColumn, tsColumn } from './columns.js';

/** A message waiting for one target. */
export interface OutboxMessage {
  readonly id: number;
  readonly target: string;
  /** The idempotency key: the same for each attempt and each target. */
  readonly key: string;
  /** 0 first (trading state, errors, lifecycle), then 1, 2 (fills). */
  readonly priority: number;
  readonly text: string;
  readonly attempts: number;
}

/** A message to queue for its targets. */
export interface OutboxInput {
  readonly targets: readonly string[];
  readonly key: string;
  readonly priority: number;
  readonly text: string;
  /** Not sent before this time (wall-clock ms): a window in which it may still change. */
  readonly dueTs: number;
  readonly ts: number;
}

const WAITING = 'sent_ts IS NULL AND dropped_ts IS NULL';

export class OutboxRepository {
  private readonly insertStmt: Statement<[string, string, number, string, number, number], unknown>;
  private readonly doneOfKeyStmt: Statement<[string], { n: number }>;
  private readonly retextStmt: Statement<[string, string], unknown>;
  private readonly nextStmt: Statement<[string, number], OutboxRow>;
  private readonly nextDueStmt: Statement<[string], { due: number | null }>;
  private readonly sentStmt: Statement<[number, number], unknown>;
  private readonly attemptStmt: Statement<[number], unknown>;
  private readonly dropStmt: Statement<[number, number], unknown>;
  private readonly droppableStmt: Statement<[string], OutboxRow>;
  private readonly waitingStmt: Statement<[string], { n: number }>;
  private readonly dueNowStmt: Statement<[number, number], unknown>;

  constructor(private readonly db: Database) {
    const cols = 'id, target, msg_key AS key, priority, text, attempts';
    this.insertStmt = db.prepare(
      `INSERT INTO notify_outbox (target, msg_key, priority, text, due_ts, created_ts) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (target, msg_key) DO NOTHING`,
    );
    this.doneOfKeyStmt = db.prepare(
      `SELECT COUNT(*) AS n FROM notify_outbox WHERE msg_key = ? AND NOT (${WAITING})`,
    );
    this.retextStmt = db.prepare(`UPDATE notify_outbox SET text = ? WHERE msg_key = ? AND ${WAITING}`);
    this.nextStmt = db.prepare(
      `SELECT ${cols} FROM notify_outbox WHERE target = ? AND ${WAITING} AND due_ts <= ?
       ORDER BY priority, id LIMIT 1`,
    );
    this.nextDueStmt = db.prepare(
      `SELECT MIN(due_ts) AS due FROM notify_outbox WHERE target = ? AND ${WAITING}`,
    );
    this.sentStmt = db.prepare(`UPDATE notify_outbox SET sent_ts = ?, attempts = attempts + 1 WHERE id = ?`);
    this.attemptStmt = db.prepare(`UPDATE notify_outbox SET attempts = attempts + 1 WHERE id = ?`);
    this.dropStmt = db.prepare(`UPDATE notify_outbox SET dropped_ts = ? WHERE id = ?`);
    this.droppableStmt = db.prepare(
      `SELECT ${cols} FROM notify_outbox WHERE target = ? AND ${WAITING} ORDER BY priority DESC, id LIMIT 1`,
    );
    this.waitingStmt = db.prepare(`SELECT COUNT(*) AS n FROM notify_outbox WHERE target = ? AND ${WAITING}`);
    this.dueNowStmt = db.prepare(`UPDATE notify_outbox SET due_ts = ? WHERE ${WAITING} AND due_ts > ?`);
  }

  /** Queues a message for each of its targets, in one commit (a key already queued is kept as it was). */
  add(m: OutboxInput): void {
    textColumn(m.key, 'key');
    this.db.transaction(() => {
      for (const t of m.targets)
        this.insertStmt.run(t, m.key, m.priority, m.text, tsColumn(m.dueTs, 'dueTs'), tsColumn(m.ts));
    })();
  }

  /**
   * Replaces the text of a message no target has sent yet (fills of one order coalescing); answers false,
   * changing nothing, once any target has it.
   */
  retext(key: string, text: string): boolean {
    return this.db.transaction(() => {
      if ((this.doneOfKeyStmt.get(key)?.n ?? 0) > 0) return false;
      this.retextStmt.run(text, key);
      return true;
    })();
  }

  /** The first message due for `target`: highest priority, then oldest. */
  next(target: string, now: number): OutboxMessage | undefined {
    return this.nextStmt.get(target, now);
  }

  /** When the earliest waiting message of `target` falls due, if any waits. */
  nextDue(target: string): number | undefined {
    return this.nextDueStmt.get(target)?.due ?? undefined;
  }

  /** The receiver acknowledged the message. */
  markSent(id: number, ts: number): void {
    this.sentStmt.run(tsColumn(ts), id);
  }

  /** An attempt that failed. */
  markAttempt(id: number): void {
    this.attemptStmt.run(id);
  }

  /** Gives a message up (the target's backlog is full): the lowest priority, oldest first. */
  /** Gives one message up (dropped at `ts`): it is never sent again. */
  drop(id: number, ts: number): void {
    this.dropStmt.run(tsColumn(ts), id);
  }

  dropOne(target: string, ts: number): OutboxMessage | undefined {
    const m = this.droppableStmt.get(target);
    if (m !== undefined) this.dropStmt.run(tsColumn(ts), m.id);
    return m;
  }

  /** How many messages wait for `target`. */
  waiting(target: string): number {
    return this.waitingStmt.get(target)?.n ?? 0;
  }

  /**
   * Copies the messages still waiting in another journal file (the one a fresh start kept aside) into this
   * outbox, so they are sent by this run; answers how many. A file without an outbox (older) gives none.
   */
  carryOverFrom(file: string): number {
    this.db.prepare(`ATTACH DATABASE ? AS kept`).run(file);
    try {
      const has = this.db
        .prepare(`SELECT 1 FROM kept.sqlite_master WHERE type = 'table' AND name = 'notify_outbox'`)
        .get();
      if (has === undefined) return 0;
      const r = this.db
        .prepare(
          `INSERT INTO notify_outbox (target, msg_key, priority, text, due_ts, created_ts, attempts)
           SELECT target, msg_key, priority, text, due_ts, created_ts, attempts FROM kept.notify_outbox
           WHERE ${WAITING} ORDER BY id
           ON CONFLICT (target, msg_key) DO NOTHING`,
        )
        .run();
      return r.changes;
    } finally {
      this.db.prepare(`DETACH DATABASE kept`).run();
    }
  }

  /** Every waiting message due now (a stop sends what it can at once). */
  dueNow(now: number): void {
    this.dueNowStmt.run(tsColumn(now), now);
  }
}

type OutboxRow = OutboxMessage;
