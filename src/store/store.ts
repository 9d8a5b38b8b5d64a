// Opens the one SQLite file of a deployment: WAL journal, synchronous=FULL, migrations applied, and the
// typed repositories over it. Every repository write commits before it returns (crash safety, kill -9).
import BetterSqlite3 from 'better-sqlite3';
import type { Database } from 'better-sqlite3';
import { liveClock, type Clock } from '../feeds/clock.js';
import { StoreError } from './columns.js';
import { ControlRepository } from './control.js';
import { DecidedCandleRepository, DriftReportRepository } from './drift.js';
import { FillRepository } from './fills.js';
import { GroupCommit, type GroupCommitStats } from './group-commit.js';
import { DenialRepository, IntentRepository } from './intents.js';
import { checkJournalPath, describeJournalFault, ensureJournalFolder } from './journal-file.js';
import { migrate } from './migrations.js';
import { OrderRepository } from './orders.js';
import { OutboxRepository } from './outbox.js';
import {
  EquityRepository,
  MetaRepository,
  StrategyStateRepository,
  TradingStateRepository,
} from './runtime-state.js';

/** Options of `openStore`. */
export interface StoreOptions {
  /** Stamps writes that are not given a ts, and the migrations. Default: the live clock. */
  readonly clock?: Clock | undefined;
  /**
   * `FULL` (default) fsyncs the WAL at every commit: a committed order survives a power cut, not only a
   * process kill. `NORMAL` survives kill -9 but may lose the last commits on power loss: only for
   * throwaway files (backtests, benches).
   */
  readonly synchronous?: 'FULL' | 'NORMAL' | undefined;
  /** Milliseconds to wait for a lock held by another connection (e.g. a CLI reading the file). Default 5000. */
  readonly busyTimeoutMs?: number | undefined;
}

/** What `PRAGMA wal_checkpoint` answers: WAL frames in all, and how many are copied into the file. */
interface WalCheckpoint {
  readonly busy: number;
  readonly log: number;
  readonly checkpointed: number;
}

/** The journal of one deployment. */
export interface Store {
  /** Absolute path of the file (or `:memory:`). */
  readonly path: string;
  /** Schema version of the file after opening. */
  readonly schemaVersion: number;
  readonly intents: IntentRepository;
  readonly denials: DenialRepository;
  readonly orders: OrderRepository;
  readonly fills: FillRepository;
  readonly tradingState: TradingStateRepository;
  readonly equity: EquityRepository;
  readonly strategyState: StrategyStateRepository;
  readonly meta: MetaRepository;
  /** Operator actions (pause, flatten, halt, ...) with who and why. */
  readonly control: ControlRepository;
  /** Notifications waiting for their receivers (see OutboxRepository). */
  readonly outbox: OutboxRepository;
  /** The candles each bot decided on, as it saw them (the drift monitor's side of the journal). */
  readonly decided: DecidedCandleRepository;
  /** The drift monitor's reports. */
  readonly drift: DriftReportRepository;
  /**
   * Runs `fn` in one transaction: all of its writes commit together or none do. `fn` must be synchronous
   * (an awaited write would escape the transaction). Nested calls become savepoints.
   */
  transaction<T>(fn: () => T): T;
  /**
   * Runs `fn` (synchronous writes) in a group commit shared by every bot of this journal (see
   * `GroupCommit`): at once with one bot, else in one transaction at the end of the turn for all the writes
   * asked for in it. The answer (or the promise's) comes once the writes are committed.
   */
  groupCommit<T>(fn: () => T): T | Promise<T>;
  /** A bot shares the group commits from now on; answers its leave. */
  joinGroupCommit(): () => void;
  /** The group commits' counts so far. */
  readonly groupCommits: GroupCommitStats;
  /**
   * Makes `write` (synchronous writes to this store) part of the next `transaction`, or of `flushDeferred`,
   * whichever comes first; a later deferral under the same key replaces one not made yet. A write that
   * must be durable no later than what follows it, but need not cost a commit of its own (the live bot's
   * candle mark: it commits with the order the candle leads to, one fsync before the send instead of two).
   */
  deferWrite(key: string, write: () => void): void;
  /**
   * Commits the deferred writes now, in one transaction; nothing when none wait. The commit is FULL like any
   * other: one made at NORMAL (no fsync of its own) left its pages for the next FULL commit, an order's, to
   * sync before its send (wire to wire p50 0.15-0.25 ms slower, A/B alternated).
   */
  flushDeferred(): void;
  /**
   * Copies the WAL's commits into the file now (a passive checkpoint: it never waits for other
   * connections) and starts the WAL over. SQLite otherwise does the one inside whichever commit takes the
   * WAL past 1000 pages and the other (a sync of the WAL's header) in the commit after, either of which
   * may be the commit that precedes an order's send; the live bot calls this when its orders are through.
   * Nothing for `:memory:` or once closed, nor when this store's last checkpoint was less than `minGapMs`
   * real milliseconds ago (many bots share one journal: each asks after each candle, and a checkpoint costs
   * two fsyncs on the event loop however few pages it copies; the WAL keeps what waits, well below the 1000
   * pages of SQLite's own checkpoint at the rates a daemon writes).
   */
  checkpoint(minGapMs?: number): void;
  /** The raw connection, for read-only reporting queries. */
  readonly db: Database;
  /** Commits the deferred writes and closes the file (checkpointing the WAL). Idempotent. */
  close(): void;
}

/**
 * Opens (creating it and its folder when missing) the store file at `path`, upgrades an older schema,
 * and refuses a newer one with `SchemaTooNewError`. A path that exists and is not a tradebot journal, a
 * damaged journal, or a path that cannot be written is refused with a `JournalFileError` sentence
 * before anything is written; a fault of the disk while opening (full, read-only) becomes one too.
 *
 * @example
 * const store = openStore('var/demo.sqlite', { clock });
 * store.orders.journal({ order, bot: 'sma' }); // committed before the order is sent
 */
export function openStore(path: string, options: StoreOptions = {}): Store {
  const clock = options.clock ?? liveClock;
  const memory = path === ':memory:';
  const file = memory ? path : checkJournalPath(path).file;
  if (!memory) ensureJournalFolder(file);
  let db: Database;
  try {
    db = new BetterSqlite3(file);
  } catch (e) {
    throw describeJournalFault(e, file) ?? e;
  }
  try {
    configure(db, file, memory, options);
    const schemaVersion = migrate(db, file, clock.now());
    return storeOver(db, { file, memory, schemaVersion, clock });
  } catch (e) {
    db.close();
    throw memory ? e : (describeJournalFault(e, file) ?? e);
  }
}

/** The connection's settings: the wait for a lock, the WAL journal (a file's), the fsyncs, foreign keys. */
function configure(db: Database, file: string, memory: boolean, options: StoreOptions): void {
  db.pragma(`busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))}`);
  if (!memory) {
    const mode = db.pragma('journal_mode = WAL', { simple: true });
    if (mode !== 'wal')
      throw new StoreError(`store ${file}: could not enable WAL journal mode (got ${String(mode)})`);
  }
  db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
  db.pragma('foreign_keys = ON');
}

/** Transactions of one connection, and the writes deferred to the next of them (see `Store.deferWrite`). */
interface DeferringTransactions {
  /** Runs `fn` in a transaction (a savepoint inside another); the outermost one takes the deferred writes. */
  commit(fn: () => unknown): unknown;
  defer(key: string, write: () => void): void;
  /** Commits the deferred writes now, in one transaction; nothing when none wait. */
  flush(): void;
}

function deferringTransactions(db: Database): DeferringTransactions {
  const deferred = new Map<string, () => void>();
  // One transaction function for every call (better-sqlite3 builds four wrappers per db.transaction()).
  const inTransaction = db.transaction((fn: () => unknown, outermost: boolean): unknown => {
    // The outermost transaction takes the deferred writes; were it rolled back, they wait again.
    const writes = outermost && deferred.size > 0 ? [...deferred] : undefined;
    if (writes !== undefined) deferred.clear();
    try {
      if (writes !== undefined) for (const [, write] of writes) write();
      const out = fn();
      if (out instanceof Promise) {
        throw new StoreError('store.transaction(fn): fn must be synchronous, it returned a Promise');
      }
      return out;
    } catch (e) {
      if (writes !== undefined) for (const [k, w] of writes) if (!deferred.has(k)) deferred.set(k, w);
      throw e;
    }
  });
  const commit = (fn: () => unknown): unknown => inTransaction(fn, !db.inTransaction);
  return {
    commit,
    defer: (key, write) => void deferred.set(key, write),
    flush: () => {
      if (deferred.size > 0) commit(() => undefined);
    },
  };
}

/** The repositories and transactions over an open, migrated connection. */
function storeOver(
  db: Database,
  o: { file: string; memory: boolean; schemaVersion: number; clock: Clock },
): Store {
  const { clock } = o;
  let closed = false;
  let lastCheckpoint = -Infinity;
  const tx = deferringTransactions(db);
  const group = new GroupCommit(tx.commit);
  const meta = new MetaRepository(db, clock);
  return {
    path: o.file,
    schemaVersion: o.schemaVersion,
    db,
    intents: new IntentRepository(db, clock),
    denials: new DenialRepository(db, clock),
    orders: new OrderRepository(db, clock),
    fills: new FillRepository(db),
    tradingState: new TradingStateRepository(db, clock),
    equity: new EquityRepository(db),
    strategyState: new StrategyStateRepository(db, clock),
    meta,
    control: new ControlRepository(db),
    outbox: new OutboxRepository(db),
    decided: new DecidedCandleRepository(db),
    drift: new DriftReportRepository(db),
    transaction<T>(fn: () => T): T {
      return tx.commit(fn) as T;
    },
    groupCommit<T>(fn: () => T): T | Promise<T> {
      return group.run(fn);
    },
    joinGroupCommit: () => group.join(),
    get groupCommits(): GroupCommitStats {
      return group.stats;
    },
    deferWrite(key: string, write: () => void): void {
      tx.defer(key, write);
    },
    flushDeferred(): void {
      // Closing flushed them: a flush asked for before the close has nothing left to do.
      if (!closed) tx.flush();
    },
    checkpoint(minGapMs = 0): void {
      if (closed || o.memory) return;
      const at = performance.now();
      if (at - lastCheckpoint < minGapMs) return;
      lastCheckpoint = at;
      const [r] = db.pragma('wal_checkpoint(PASSIVE)') as WalCheckpoint[];
      // All of it copied: the next commit starts the WAL over, and that commit syncs the WAL's header
      // (under NORMAL as under FULL). Made here, it is not the next order's commit that pays for it.
      if (r !== undefined && r.busy === 0 && r.log > 0 && r.log === r.checkpointed)
        meta.set('journal:checkpointed', String(clock.now()));
    },
    close(): void {
      if (closed) return;
      group.flush(); // settles every waiting write (committed, or failed with the commit): never throws
      closed = true;
      try {
        tx.flush();
      } finally {
        db.close();
      }
    },
  };
}
