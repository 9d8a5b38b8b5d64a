import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/store/index.js';

const script = fileURLToPath(new URL('./fixtures/journal-then-hang.ts', import.meta.url));
let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** Runs the child until it reports its journal writes, then SIGKILLs it; resolves with the exit signal. */
function runAndKill(path: string): Promise<NodeJS.Signals | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, path], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      if (out.includes('journaled\n')) child.kill('SIGKILL');
    });
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (!out.includes('journaled\n'))
        reject(new Error(`child exited (${String(code)}) before journaling: ${err}`));
      else resolve(signal);
    });
  });
}

describe('crash safety', () => {
  it('a write journaled right before SIGKILL is in the file after the kill', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tradebot-crash-'));
    const path = join(dir, 'journal.sqlite');
    expect(await runAndKill(path)).toBe('SIGKILL');

    const store = openStore(path);
    try {
      expect(store.orders.pendingOrders().map((o) => o.clientOid)).toEqual(['crash-1']);
      expect(store.fills.byExecId('crash-fill-1')?.fee.toFixed()).toBe('0.19');
    } finally {
      store.close();
    }
  });
});
