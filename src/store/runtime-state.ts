// Runtime state that a restart must find again: trading-state transitions, the equity series, each
// bot's strategy state (JSON) and a small key/value meta table (e.g. the candle cursor of a feed).
import type { Database, Statement } from 'better-sqlite3';
import type { Clock } from '../feeds/clock.js';
import type { Decimal, DecimalLike } from '../market/decimal.js';
import { TRADING_STATES, type TradingState } from '../market/trading-state.js';
import { StoreError, decimalColumn, readDecimal, textColumn, tsColumn } from './columns.js';

/** One journaled transition. */
export interface TradingStateRecord {
  readonly seq: number;
  readonly state: TradingState;
  readonly reason: string;
  readonly ts: number;
}

/** Trading-state transitions; the current state is the last one. */
export class TradingStateRepository {
  private readonly insertStmt: Statement<[string, string, number], unknown>;
  private readonly currentStmt: Statement<[], TradingStateRecord>;
  private readonly historyStmt: Statement<[number], TradingStateRecord>;

  constructor(
    db: Database,
    private readonly clock: Clock,
  ) {
    this.insertStmt = db.prepare(`INSERT INTO trading_state (state, reason, ts) VALUES (?, ?, ?)`);
    this.currentStmt = db.prepare(
      `SELECT seq, state, reason, ts FROM trading_state ORDER BY seq DESC LIMIT 1`,
    );
    this.historyStmt = db.prepare(
      `SELECT seq, state, reason, ts FROM trading_state WHERE ts >= ? ORDER BY seq`,
    );
  }

  /** Journals a transition to `state` with its reason. */
  record(state: TradingState, reason: string, ts: number = this.clock.now()): void {
    if (!TRADING_STATES.includes(state)) {
      throw new StoreError(
        `trading state must be one of ${TRADING_STATES.join(', ')}, got ${JSON.stringify(state)}`,
      );
    }
    this.insertStmt.run(state, reason, tsColumn(ts));
  }

  /** The last journaled transition, or undefined when none (a new deployment starts ACTIVE). */
  current(): TradingStateRecord | undefined {
    return this.currentStmt.get();
  }

  /** Transitions since `sinceTs`, oldest first. */
  history(sinceTs = 0): TradingStateRecord[] {
    return this.historyStmt.all(sinceTs);
  }
}

/** One point of the equity series. */
export interface EquityPoint {
  readonly ts: number;
  readonly equity: Decimal;
}

/** The equity series (quote coin), one point per timestamp: a second write at the same ts replaces it. */
export class EquityRepository {
  private readonly upsertStmt: Statement<[number, string], unknown>;
  private readonly rangeStmt: Statement<[number, number], { ts: number; equity: string }>;
  private readonly lastStmt: Statement<[], { ts: number; equity: string }>;

  constructor(db: Database) {
    this.upsertStmt = db.prepare(
      `INSERT INTO equity (ts, equity) VALUES (?, ?) ON CONFLICT (ts) DO UPDATE SET equity = excluded.equity`,
    );
    this.rangeStmt = db.prepare(`SELECT ts, equity FROM equity WHERE ts >= ? AND ts <= ? ORDER BY ts`);
    this.lastStmt = db.prepare(`SELECT ts, equity FROM equity ORDER BY ts DESC LIMIT 1`);
  }

  /** Records the equity at `ts`. */
  append(ts: number, equity: DecimalLike): void {
    this.upsertStmt.run(tsColumn(ts), decimalColumn(equity, 'equity'));
  }

  /** Points with fromTs <= ts <= toTs, oldest first. */
  series(fromTs = 0, toTs: number = Number.MAX_SAFE_INTEGER): EquityPoint[] {
    return this.rangeStmt.all(fromTs, toTs).map((r) => ({ ts: r.ts, equity: readDecimal(r.equity) }));
  }

  /** The newest point, if any. */
  last(): EquityPoint | undefined {
    const r = this.lastStmt.get();
    return r === undefined ? undefined : { ts: r.ts, equity: readDecimal(r.equity) };
  }
}

/**
 * A table of text values by text key, each with the time it was written: the store's key/value tables
 * (strategy state, meta) are each one.
 */
class TextTable {
  private readonly getStmt: Statement<[string], { value: string }>;
  private readonly setStmt: Statement<[string, string, number], unknown>;
  private readonly deleteStmt: Statement<[string], unknown>;

  constructor(
    db: Database,
    table: string,
    private readonly keyColumn: string,
    valueColumn: string,
    private readonly clock: Clock,
  ) {
    this.getStmt = db.prepare(`SELECT ${valueColumn} AS value FROM ${table} WHERE ${keyColumn} = ?`);
    this.setStmt = db.prepare(
      `INSERT INTO ${table} (${keyColumn}, ${valueColumn}, updated_ts) VALUES (?, ?, ?)
       ON CONFLICT (${keyColumn}) DO UPDATE SET ${valueColumn} = excluded.${valueColumn}, updated_ts = excluded.updated_ts`,
    );
    this.deleteStmt = db.prepare(`DELETE FROM ${table} WHERE ${keyColumn} = ?`);
  }

  get(key: string): string | undefined {
    return this.getStmt.get(key)?.value;
  }

  set(key: string, value: string, ts: number = this.clock.now()): void {
    this.setStmt.run(textColumn(key, this.keyColumn), value, tsColumn(ts));
  }

  delete(key: string): void {
    this.deleteStmt.run(key);
  }
}

/** Each bot's persistent strategy state, as JSON. */
export class StrategyStateRepository {
  private readonly table: TextTable;

  constructor(db: Database, clock: Clock) {
    this.table = new TextTable(db, 'strategy_state', 'bot', 'state', clock);
  }

  /** The bot's state as last saved (parsed JSON; validate it in the strategy), or undefined. */
  get(bot: string): unknown {
    const json = this.table.get(bot);
    return json === undefined ? undefined : (JSON.parse(json) as unknown);
  }

  /** Saves the bot's state; it must be JSON-serialisable (Decimals become strings). */
  set(bot: string, state: unknown, ts?: number): void {
    const json = JSON.stringify(state);
    if (json === undefined) {
      throw new StoreError(`strategy state of bot ${bot} is not JSON-serialisable (got ${typeof state})`);
    }
    this.table.set(bot, json, ts);
  }

  /** Forgets the bot's state. */
  delete(bot: string): void {
    this.table.delete(bot);
  }
}

/** A small key/value table for cursors and markers (e.g. `candles:BTCUSDT:1m` -> last openTime). */
export class MetaRepository {
  private readonly table: TextTable;

  constructor(db: Database, clock: Clock) {
    this.table = new TextTable(db, 'meta', 'key', 'value', clock);
  }

  get(key: string): string | undefined {
    return this.table.get(key);
  }

  set(key: string, value: string, ts?: number): void {
    if (typeof value !== 'string') throw new StoreError(`meta ${key} must be a string, got ${typeof value}`);
    this.table.set(key, value, ts);
  }

  delete(key: string): void {
    this.table.delete(key);
  }
}
