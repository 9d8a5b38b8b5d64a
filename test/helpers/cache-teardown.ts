// Removes the run's cache folder (vitest.config.ts: TEST_CACHE_HOME, the main process's) when the run ends.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const dir = join(tmpdir(), `tradebot-test-cache-${process.pid}`);
  return () => rmSync(dir, { recursive: true, force: true });
}
