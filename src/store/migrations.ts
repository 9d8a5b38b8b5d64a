// Versioned schema of the journal file: an ordered list of SQL steps, each applied in its own
// transaction together with its row in schema_migrations, so a crash mid-upgrade leaves a valid version.
import type { Database } from 'better-sqlite3';

/** One schema step. Versions are consecutive integers starting at 1; never edit a released step. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: readonly string[];
}

/**
 * Every schema step the code knows, oldest first. Money is TEXT (decimal strings, never REAL),
 * timestamps are INTEGER Unix ms, JSON is TEXT.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'order journal: intents, denials, orders, fills',
    sql: [
      `CREATE TABLE intents (
        id INTEGER PRIMARY KEY,
        bot TEXT,
        symbol TEXT NOT NULL,
        tag TEXT NOT NULL,
        reason TEXT NOT NULL,
        intent TEXT NOT NULL,
        ts INTEGER NOT NULL
      )`,
      `CREATE INDEX intents_bot_ts ON intents (bot, ts)`,
      `CREATE TABLE denials (
        id INTEGER PRIMARY KEY,
        bot TEXT,
        symbol TEXT NOT NULL,
        code TEXT NOT NULL,
        message TEXT NOT NULL,
        intent TEXT NOT NULL,
        ts INTEGER NOT NULL
      )`,
      `CREATE INDEX denials_bot_ts ON denials (bot, ts)`,
      `CREATE TABLE orders (
        client_oid TEXT PRIMARY KEY,
        bot TEXT,
        category TEXT NOT NULL,
        symbol TEXT NOT NULL,
        side TEXT NOT NULL CHECK (side IN ('buy', 'sell')),
        order_type TEXT NOT NULL CHECK (order_type IN ('limit', 'market')),
        qty TEXT NOT NULL,
        price TEXT,
        intent TEXT,
        state TEXT NOT NULL CHECK (state IN ('pending', 'acked', 'rejected')),
        order_id TEXT,
        reject_code TEXT,
        reject_msg TEXT,
        attempts INTEGER NOT NULL DEFAULT 0,
        created_ts INTEGER NOT NULL,
        updated_ts INTEGER NOT NULL
      ) WITHOUT ROWID`,
      `CREATE INDEX orders_pending ON orders (state, created_ts) WHERE state = 'pending'`,
      `CREATE INDEX orders_order_id ON orders (order_id)`,
      `CREATE TABLE fills (
        seq INTEGER PRIMARY KEY,
        exec_id TEXT NOT NULL UNIQUE,
        bot TEXT,
        symbol TEXT NOT NULL,
        base_coin TEXT NOT NULL,
        quote_coin TEXT NOT NULL,
        side TEXT NOT NULL CHECK (side IN ('buy', 'sell')),
        price TEXT NOT NULL,
        size TEXT NOT NULL,
        fee TEXT NOT NULL,
        fee_coin TEXT NOT NULL,
        ts INTEGER NOT NULL,
        order_id TEXT,
        client_oid TEXT
      )`,
      `CREATE INDEX fills_symbol_ts ON fills (symbol, ts)`,
    ],
  },
  {
    version: 2,
    name: 'runtime state: trading state, equity, strategy state, meta',
    sql: [
      `CREATE TABLE trading_state (
        seq INTEGER PRIMARY KEY,
        state TEXT NOT NULL CHECK (state IN ('ACTIVE', 'REDUCING', 'HALTED')),
        reason TEXT NOT NULL,
        ts INTEGER NOT NULL
      )`,
      `CREATE TABLE equity (
        ts INTEGER PRIMARY KEY,
        equity TEXT NOT NULL
      )`,
      `CREATE TABLE strategy_state (
        bot TEXT PRIMARY KEY,
        state TEXT NOT NULL,
        updated_ts INTEGER NOT NULL
      )`,
      `CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL,
        updated_ts INTEGER NOT NULL
      )`,
    ],
  },
  {
    version: 3,
    name: 'control actions: who paused, flattened, halted or re-armed a bot, and why',
    sql: [
      `CREATE TABLE control_actions (
        seq INTEGER PRIMARY KEY,
        bot TEXT NOT NULL,
        action TEXT NOT NULL,
        symbol TEXT,
        who TEXT NOT NULL,
        reason TEXT NOT NULL,
        ts INTEGER NOT NULL
      )`,
      `CREATE INDEX control_actions_bot ON control_actions (bot, seq)`,
    ],
  },
  {
    version: 4,
    name: 'notification outbox: each message per target until its receiver acknowledged it',
    sql: [
      `CREATE TABLE notify_outbox (
        id INTEGER PRIMARY KEY,
        target TEXT NOT NULL,
        msg_key TEXT NOT NULL,
        priority INTEGER NOT NULL,
        text TEXT NOT NULL,
        due_ts INTEGER NOT NULL,
        created_ts INTEGER NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        sent_ts INTEGER,
        dropped_ts INTEGER,
        UNIQUE (target, msg_key)
      )`,
      `CREATE INDEX notify_outbox_waiting ON notify_outbox (target, priority, id)
        WHERE sent_ts IS NULL AND dropped_ts IS NULL`,
    ],
  },
  {
    version: 5,
    name: "trading state: the operator's pause is a state (PAUSED)",
    // SQLite cannot change a CHECK constraint: the table is rebuilt with its rows, in the migration's transaction.
    sql: [
      `CREATE TABLE trading_state_v5 (
        seq INTEGER PRIMARY KEY,
        state TEXT NOT NULL CHECK (state IN ('ACTIVE', 'PAUSED', 'REDUCING', 'HALTED')),
        reason TEXT NOT NULL,
        ts INTEGER NOT NULL
      )`,
      `INSERT INTO trading_state_v5 (seq, state, reason, ts) SELECT seq, state, reason, ts FROM trading_state`,
      `DROP TABLE trading_state`,
      `ALTER TABLE trading_state_v5 RENAME TO trading_state`,
    ],
  },
  {
    version: 6,
    name: 'drift: the candles each bot decided on (as it saw them, and when), and the daily drift reports',
    sql: [
      // One row per time a bot's strategy saw a candle of its interval: a restart's warm-up sees some again.
      `CREATE TABLE decided_candles (
        id INTEGER PRIMARY KEY,
        bot TEXT NOT NULL,
        symbol TEXT NOT NULL,
        interval TEXT NOT NULL,
        open_time INTEGER NOT NULL,
        open TEXT NOT NULL,
        high TEXT NOT NULL,
        low TEXT NOT NULL,
        close TEXT NOT NULL,
        volume TEXT NOT NULL,
        decided_ts INTEGER NOT NULL,
        phase TEXT NOT NULL CHECK (phase IN ('warm_up', 'replay', 'live'))
      )`,
      `CREATE INDEX decided_candles_bot_ts ON decided_candles (bot, decided_ts)`,
      `CREATE TABLE drift_reports (
        id INTEGER PRIMARY KEY,
        bot TEXT NOT NULL,
        span_from INTEGER NOT NULL,
        span_to INTEGER NOT NULL,
        differences INTEGER NOT NULL,
        unexplained INTEGER NOT NULL,
        report TEXT NOT NULL,
        ts INTEGER NOT NULL
      )`,
      `CREATE INDEX drift_reports_bot ON drift_reports (bot, id)`,
    ],
  },
  {
    version: 7,
    name: "fills: the liquidity each fee was charged at, and whether it was inferred (the venue's fills do not say)",
    sql: [
      // NULL in rows journaled before this step: the liquidity was not kept then.
      `ALTER TABLE fills ADD COLUMN liquidity TEXT CHECK (liquidity IN ('maker', 'taker'))`,
      `ALTER TABLE fills ADD COLUMN liquidity_inferred INTEGER CHECK (liquidity_inferred IN (0, 1))`,
    ],
  },
  {
    version: 8,
    name: "fills: a margin liquidation's fill is marked (the venue's forced close, no order of the bot's)",
    // NULL for every other fill, and for the rows journaled before this step.
    sql: [`ALTER TABLE fills ADD COLUMN liquidation INTEGER CHECK (liquidation = 1)`],
  },
];

/** The schema version this code writes. */
export const LATEST_SCHEMA_VERSION: number = MIGRATIONS.length;

/** Thrown when a store file was written by a newer tradebot than this one. */
export class SchemaTooNewError extends Error {
  constructor(
    readonly path: string,
    readonly fileVersion: number,
    readonly knownVersion: number,
  ) {
    super(
      `store ${path} has schema version ${fileVersion} but this tradebot knows only up to version ${knownVersion}: ` +
        `upgrade tradebot, or point store.path at another file (the file was left untouched)`,
    );
    this.name = 'SchemaTooNewError';
  }
}

/** The version recorded in the file (0 for a new, empty file). */
export function schemaVersion(db: Database): number {
  const table = db
    .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`)
    .get();
  if (table === undefined) return 0;
  const row = db.prepare(`SELECT MAX(version) AS v FROM schema_migrations`).get() as { v: number | null };
  return row.v ?? 0;
}

/**
 * Brings the file up to the last step of `migrations` (default: all of them) and returns the version.
 * Refuses, without writing anything, a file newer than the list. `now` stamps each applied step.
 */
export function migrate(
  db: Database,
  path: string,
  now: number,
  migrations: readonly Migration[] = MIGRATIONS,
): number {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migration list is broken: step ${i} has version ${m.version}`);
  });
  const known = migrations.length;
  const current = schemaVersion(db);
  if (current > known) throw new SchemaTooNewError(path, current, known);
  if (current === known) return current;
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_ts INTEGER NOT NULL
  )`);
  const record = db.prepare(`INSERT INTO schema_migrations (version, name, applied_ts) VALUES (?, ?, ?)`);
  for (const m of migrations.slice(current)) {
    // IMMEDIATE takes the write lock first, so two processes opening the same old file cannot both upgrade it.
    // The version is read again inside the lock: another process may have applied the step meanwhile.
    db.transaction(() => {
      if (schemaVersion(db) >= m.version) return;
      for (const step of m.sql) db.exec(step);
      record.run(m.version, m.name, now);
    }).immediate();
  }
  return known;
}
