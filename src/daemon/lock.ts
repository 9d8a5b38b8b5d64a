// One daemon per journal: a lock file beside the SQLite journal holds the owner's pid. A lock left by a
// process that died (kill -9) is taken over; a lock held by a live process stops the second daemon
// before it touches anything.
import { mkdirSync, openSync, readFileSync, unlinkSync, writeSync, closeSync } from 'node:fs';
import { dirname } from 'node:path';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Takes the lock of a journal; answers the function that releases it. */
export function lockJournal(storePath: string): () => void {
  const path = `${storePath}.lock`;
  mkdirSync(dirname(path), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
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
