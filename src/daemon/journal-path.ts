// The daemon's journal at start: the path checked before anything is written (a refusal is a sentence,
// never a hang), the lock taken, an older journal kept when a fresh one is asked for, then the store.
import {
  checkJournalPath,
  describeJournalFault,
  ensureJournalFolder,
  JournalFileError,
  keepJournalAside,
  openStore,
  type Store,
} from '../store/index.js';
import type { Clock } from '../feeds/clock.js';
import { lockJournal } from './lock.js';

export interface DeploymentJournal {
  readonly store: Store;
  /** Releases the lock; call after closing the store. */
  readonly unlock: () => void;
  /** Where the previous journal is kept, when `fresh` set one aside. */
  readonly keptAt?: string | undefined;
  /** Notifications still waiting in the kept journal, now in the new one's outbox. */
  readonly notificationsCarried?: number | undefined;
  /** The run marker of the kept journal (how the run before this fresh one ended), if it had one. */
  readonly keptRunMarker?: string | undefined;
}

/**
 * Opens the journal of a deployment. Without `fresh` an existing journal is continued, except behind
 * an embedded simulator, whose account does not survive a restart: that run is refused (nothing is
 * moved). With `fresh` an existing journal is kept beside the new one under a timestamped name.
 * Throws `JournalFileError` with the sentence to show.
 */
export function openDeploymentJournal(o: {
  readonly path: string;
  readonly fresh: boolean;
  readonly embeddedSimulator: boolean;
  readonly now: number;
  /**
   * The clock the journal stamps its records with: the trading pipeline's (the venue's time), so an order's
   * journaled time and its fills' venue times compare (fill attribution after a restart depends on it).
   */
  readonly clock?: Clock | undefined;
}): DeploymentJournal {
  const { file, exists } = checkJournalPath(o.path);
  ensureJournalFolder(file);
  let unlock: () => void;
  try {
    unlock = lockJournal(file);
  } catch (e) {
    throw describeJournalFault(e, file) ?? e;
  }
  try {
    let keptAt: string | undefined;
    if (o.fresh) keptAt = keepJournalAside(file, o.now);
    else if (exists && o.embeddedSimulator) {
      throw new JournalFileError(
        `the journal ${file} holds an earlier run on the embedded simulator, whose account starts anew on every run: ` +
          `run with --fresh to start a new journal (the old one is kept beside it under a timestamped name), or point store.path at another file`,
        true,
      );
    }
    const store = openStore(file, o.clock === undefined ? {} : { clock: o.clock });
    // The notifications the previous run could not send go out from the new journal (a fresh start loses none).
    if (keptAt === undefined) return { store, unlock };
    const { notificationsCarried, keptRunMarker } = takeOver(store, keptAt);
    return { store, unlock, keptAt, notificationsCarried, keptRunMarker };
  } catch (e) {
    unlock();
    throw e;
  }
}

/** What a fresh journal takes from the one kept aside: its waiting notifications, and how its run ended. */
function takeOver(
  store: Store,
  keptAt: string,
): { notificationsCarried: number; keptRunMarker: string | undefined } {
  try {
    const notificationsCarried = store.outbox.carryOverFrom(keptAt);
    store.db.prepare(`ATTACH DATABASE ? AS kept`).run(keptAt);
    try {
      const hasMeta = store.db
        .prepare(`SELECT 1 FROM kept.sqlite_master WHERE type = 'table' AND name = 'meta'`)
        .get();
      const row =
        hasMeta === undefined
          ? undefined
          : (store.db.prepare(`SELECT value FROM kept.meta WHERE key = ?`).get(RUN_MARKER) as
              { value: string } | undefined);
      return { notificationsCarried, keptRunMarker: row?.value };
    } finally {
      store.db.prepare(`DETACH DATABASE kept`).run();
    }
  } catch (e) {
    store.close();
    throw describeJournalFault(e, keptAt) ?? e;
  }
}

/** How the journal's previous run ended: there was none, it stopped cleanly, or it did not (killed, crashed). */
export type PreviousRun = 'first' | 'clean' | 'unclean';

const RUN_MARKER = 'daemon:run';

/**
 * Marks the journal as in use by a running daemon and answers how the previous run ended: a clean stop
 * writes its marker last (`markCleanStop`), so a run that finds the marker of a running one was killed.
 * `before` is the marker to judge by (a fresh journal's: the one kept aside).
 */
export function markRunStarted(
  store: Store,
  ts: number,
  before: string | undefined = store.meta.get(RUN_MARKER),
): PreviousRun {
  store.meta.set(RUN_MARKER, 'running', ts);
  return before === undefined ? 'first' : before === 'stopped' ? 'clean' : 'unclean';
}

/** The clean-stop marker: the daemon stopped on its own, everything journaled. */
export function markCleanStop(store: Store, ts: number): void {
  store.meta.set(RUN_MARKER, 'stopped', ts);
}
