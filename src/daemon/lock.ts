// One daemon per journal: a lock file beside the SQLite journal holds the owner's pid. A lock left by a
// process that died (kill -9) is taken over; a lock held by a live process stops the second daemon
// before it touches anything.
import { openSync, readFileSync, unlinkSync, writeSync, closeSync } from 'node:fs';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Takes the lock of a journal whose folder exists (see `ensureJournalFolder`); answers the function that releases it. */
export function lockJournal(storePath: string): () => void {
  const path = `${storePath}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      try {
        writeSync(fd, String(process.pid));
      } catch (e) {
        // A full disk: leave no empty lock behind.
        closeSync(fd);
        unlinkSync(path);
        throw e;
      }
      closeSync(fd);
      return () => {
        try {
          if (readFileSync(path, 'utf8') === String(process.pid)) unlinkSync(path);
        } catch {
          // already gone
        }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const pid = Number(readFileSync(path, 'utf8'));
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
        throw new Error(
          `another tradebot (pid ${pid}) is running with the journal ${storePath}: stop it, or give this deployment its own store.path`,
        );
      }
      unlinkSync(path); // left by a process that died
    }
  }
  throw new Error(`cannot take the lock ${path}`);
}
