// A tiny tmpfs for journal-fault tests: a real full disk or a real read-only file system. Mounting needs
// root (or CAP_SYS_ADMIN); where the machine does not allow it, `mountTmpfs` answers undefined and the
// caller falls back to another way of failing the write.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Tmpfs {
  readonly dir: string;
  /** Unmounts and removes the mount point. */
  unmount(): void;
}

/** Mounts a tmpfs of `sizeKb` at a new temporary folder, or answers undefined when mounting is not allowed. */
export function mountTmpfs(sizeKb: number, opts: { readOnly?: boolean } = {}): Tmpfs | undefined {
  // Lets a machine that can mount run the fallbacks too.
  if (process.env.TRADEBOT_TEST_NO_TMPFS === '1') return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'tradebot-tmpfs-'));
  try {
    execFileSync(
      'mount',
      ['-t', 'tmpfs', '-o', `size=${sizeKb}k${opts.readOnly ? ',ro' : ''}`, 'tmpfs', dir],
      {
        stdio: 'ignore',
      },
    );
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  return {
    dir,
    unmount() {
      execFileSync('umount', [dir], { stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Fills the file system holding `dir` until a write fails with ENOSPC; answers the filler's path. */
export function fillDisk(dir: string): string {
  const filler = join(dir, 'filler');
  // dd stops at the first ENOSPC; its non-zero exit is the point.
  try {
    execFileSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=4096'], { stdio: 'ignore' });
  } catch {
    // expected: "No space left on device"
  }
  return filler;
}
