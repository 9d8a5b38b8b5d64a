// Runtime state that a restart must find again: trading-state transitions, the equity series, each
// bot's strategy state (JSON) and a small key/value meta table (e.g. the candle cursor of a feed).
import type { Database, Statement } from 'better-sqlite3';
import type { Clock } from '../feeds/clock.js';
import type { Decimal, DecimalLike } from '../market/decimal.js';
import type { TradingState } from '../market/trading-state.js';
import { StoreError, decimalColumn, readDecimal, textColumn, tsColumn } from './columns.js';

/** One journaled transition. */
export interface TradingStateRecord {
  readonly seq: number;
  readonly state: TradingState;
  readonly reason: string;
  readonly ts: number;
}

const TRADING_STATES: readonly TradingState[] = ['ACTIVE', 'REDUCING', 'HALTED'];

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

/** Each bot's persistent strategy state, as JSON. */
export class StrategyStateRepository {
  private readonly getStmt: Statement<[string], { state: string }>;
  private readonly setStmt: Statement<[string, string, number], unknown>;
  private readonly deleteStmt: Statement<[string], unknown>;

  constructor(
    db: Database,
    private readonly clock: Clock,
  ) {
    this.getStmt = db.prepare(`SELECT state FROM strategy_state WHERE bot = ?`);
    this.setStmt = db.prepare(
      `INSERT INTO strategy_state (bot, state, updated_ts) VALUES (?, ?, ?)
       ON CONFLICT (bot) DO UPDATE SET state = excluded.state, updated_ts = excluded.updated_ts`,
    );
    this.deleteStmt = db.prepare(`DELETE FROM strategy_state WHERE bot = ?`);
  }

  /** The bot's state as last saved (parsed JSON; validate it in the strategy), or undefined. */
  get(bot: string): unknown {
    const r = this.getStmt.get(bot);
    return r === undefined ? undefined : (JSON.parse(r.state) as unknown);
  }

  /** Saves the bot's state; it must be JSON-serialisable (Decimals become strings). */
  set(bot: string, state: unknown, ts: number = this.clock.now()): void {
    const json = JSON.stringify(state);
    if (json === undefined) {
      throw new StoreError(`strategy state of bot ${bot} is not JSON-serialisable (got ${typeof state})`);
    }
    this.setStmt.run(textColumn(bot, 'bot'), json, tsColumn(ts));
  }

  /** Forgets the bot's state. */
  delete(bot: string): void {
    this.deleteStmt.run(bot);
  }
}

/** A small key/value table for cursors and markers (e.g. `candles:BTCUSDT:1m` -> last openTime). */
export class MetaRepository {
  private readonly getStmt: Statement<[string], { value: string }>;
  private readonly setStmt: Statement<[string, string, number], unknown>;
  private readonly deleteStmt: Statement<[string], unknown>;

  constructor(
    db: Database,
    private readonly clock: Clock,
  ) {
    this.getStmt = db.prepare(`SELECT value FROM meta WHERE key = ?`);
    this.setStmt = db.prepare(
      `INSERT INTO meta (key, value, updated_ts) VALUES (?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_ts = excluded.updated_ts`,
    );
    this.deleteStmt = db.prepare(`DELETE FROM meta WHERE key = ?`);
  }

  get(key: string): string | undefined {
    return this.getStmt.get(key)?.value;
  }

  set(key: string, value: string, ts: number = this.clock.now()): void {
    if (typeof value !== 'string') throw new StoreError(`meta ${key} must be a string, got ${typeof value}`);
    this.setStmt.run(textColumn(key, 'key'), value, tsColumn(ts));
  }

  delete(key: string): void {
    this.deleteStmt.run(key);
  }
}
