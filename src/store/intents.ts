// The intent and denial journals: every order intent a strategy emitted, and every refusal of the risk
// gate as data (DESIGN principle 3), each with the intent as JSON (decimals as strings).
import type { Database, Statement } from 'better-sqlite3';
import type { Clock } from '../feeds/clock.js';
import type { OrderIntent } from '../strategy/intent.js';
import { StoreError, textColumn, tsColumn } from './columns.js';
import { decodeIntent, encodeIntent } from './intent-codec.js';

/** A journaled intent. */
export interface IntentRecord {
  readonly id: number;
  readonly bot?: string;
  readonly symbol: string;
  readonly tag: string;
  readonly reason: string;
  readonly intent: OrderIntent;
  readonly ts: number;
}

/** A journaled denial. */
export interface DenialRecord {
  readonly id: number;
  readonly bot?: string;
  readonly symbol: string;
  readonly code: string;
  readonly message: string;
  readonly intent: OrderIntent;
  readonly ts: number;
}

/** What a denial journal entry needs; `bot` defaults to the intent's bot. */
export interface DenialInput {
  readonly bot?: string | undefined;
  readonly code: string;
  readonly message: string;
  readonly intent: OrderIntent;
}

/** Query filter for the journals: newest rows last. */
export interface JournalFilter {
  readonly bot?: string | undefined;
  readonly sinceTs?: number | undefined;
  /** Keeps the newest `limit` rows. */
  readonly limit?: number | undefined;
}

interface IntentRow {
  id: number;
  bot: string | null;
  symbol: string;
  tag: string;
  reason: string;
  intent: string;
  ts: number;
}
interface DenialRow {
  id: number;
  bot: string | null;
  symbol: string;
  code: string;
  message: string;
  intent: string;
  ts: number;
}

function listSql(table: string): string {
  // Newest `limit` rows, returned oldest first. NULL parameters disable a filter.
  return `SELECT * FROM (
      SELECT * FROM ${table}
      WHERE (@bot IS NULL OR bot = @bot) AND ts >= @since
      ORDER BY id DESC LIMIT @limit
    ) ORDER BY id`;
}

function filterParams(f: JournalFilter): { bot: string | null; since: number; limit: number } {
  const limit = f.limit ?? -1;
  if (!Number.isInteger(limit) || (limit < 0 && limit !== -1)) {
    throw new StoreError(`limit must be a non-negative integer, got ${String(f.limit)}`);
  }
  return { bot: f.bot ?? null, since: f.sinceTs ?? 0, limit };
}

/** Every intent a strategy emitted, before the risk gate. */
export class IntentRepository {
  private readonly insertStmt: Statement<[Omit<IntentRow, 'id'>], unknown>;
  private readonly listStmt: Statement<[{ bot: string | null; since: number; limit: number }], IntentRow>;

  constructor(
    db: Database,
    private readonly clock: Clock,
  ) {
    this.insertStmt = db.prepare(
      `INSERT INTO intents (bot, symbol, tag, reason, intent, ts) VALUES (@bot, @symbol, @tag, @reason, @intent, @ts)`,
    );
    this.listStmt = db.prepare(listSql('intents'));
  }

  /** Journals an intent and returns its row id. `ts` defaults to the store's clock. */
  record(intent: OrderIntent, ts: number = this.clock.now()): number {
    const info = this.insertStmt.run({
      bot: intent.bot ?? null,
      symbol: textColumn(intent.symbol, 'intent.symbol'),
      tag: intent.tag,
      reason: intent.reason,
      intent: encodeIntent(intent),
      ts: tsColumn(ts),
    });
    return Number(info.lastInsertRowid);
  }

  /** Journaled intents, oldest first. */
  list(filter: JournalFilter = {}): IntentRecord[] {
    return this.listStmt.all(filterParams(filter)).map((r) => ({
      id: r.id,
      ...(r.bot === null ? {} : { bot: r.bot }),
      symbol: r.symbol,
      tag: r.tag,
      reason: r.reason,
      intent: decodeIntent(r.intent, `intent #${r.id}`),
      ts: r.ts,
    }));
  }
}

/** Every refusal of the risk gate, as data. */
export class DenialRepository {
  private readonly insertStmt: Statement<[Omit<DenialRow, 'id'>], unknown>;
  private readonly listStmt: Statement<[{ bot: string | null; since: number; limit: number }], DenialRow>;

  constructor(
    db: Database,
    private readonly clock: Clock,
  ) {
    this.insertStmt = db.prepare(
      `INSERT INTO denials (bot, symbol, code, message, intent, ts) VALUES (@bot, @symbol, @code, @message, @intent, @ts)`,
    );
    this.listStmt = db.prepare(listSql('denials'));
  }

  /** Journals a denial and returns its row id. `ts` defaults to the store's clock. */
  record(denial: DenialInput, ts: number = this.clock.now()): number {
    const info = this.insertStmt.run({
      bot: denial.bot ?? denial.intent.bot ?? null,
      symbol: textColumn(denial.intent.symbol, 'intent.symbol'),
      code: textColumn(denial.code, 'code'),
      message: denial.message,
      intent: encodeIntent(denial.intent),
      ts: tsColumn(ts),
    });
    return Number(info.lastInsertRowid);
  }

  /** Journaled denials, oldest first. */
  list(filter: JournalFilter = {}): DenialRecord[] {
    return this.listStmt.all(filterParams(filter)).map((r) => ({
      id: r.id,
      ...(r.bot === null ? {} : { bot: r.bot }),
      symbol: r.symbol,
      code: r.code,
      message: r.message,
      intent: decodeIntent(r.intent, `denial #${r.id}`),
      ts: r.ts,
    }));
  }
}
