import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/helpers/slow-first-sequencer.js';

// Pure unit files: no daemon, no simulator process, no browser; each imports what it tests and nothing reads or
// changes process-wide state (cwd, env, exit). They share threads without isolation: a fresh fork and a fresh
// module graph per file cost more than most of these files' tests.
const UNIT = ['test/unit/**/*.test.ts', 'strategies/**/*.test.ts'];

/**
 * The run's own cache folder (XDG_CACHE_HOME: the candle cache and the type-check verdicts): the suite never
 * reads or writes the developer's ~/.cache, every run starts as cold as CI's clean machine, and the tests of one
 * run share it as a user's runs do. test/helpers/cache-teardown.ts removes it (the path is the main process's).
 */
export const TEST_CACHE_HOME = join(tmpdir(), `tradebot-test-cache-${process.pid}`);

export default defineConfig({
  // The strategies import the package by its name, as a user's do: in tests, that is the sources.
  resolve: { alias: { tradebot: fileURLToPath(new URL('./src/index.ts', import.meta.url)) } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Four test files at once on two cores: most e2e files wait on a daemon, a simulator or a browser, not the CPU.
    // With three the suite used about 1.5 of the 2 cores (8 m 45 s of vitest, loaded by one helper); with four,
    // 7 m 58 s in the same hour, cold cache, every test green. One worker (vitest's default on 2 cores) took the
    // suite past 15 minutes.
    maxWorkers: 4,
    // The slowest files first, so the two workers end together (test/helpers/slow-first-sequencer.ts).
    sequence: { sequencer: SlowFirstSequencer },
    // Every simulator a test starts (in process or in a spawned daemon) must be pinned to a start time, so
    // the suite passes on any date: see REQUIRE_PINNED_START in src/sim/engine.ts.
    env: { TRADEBOT_REQUIRE_PINNED_START: '1', XDG_CACHE_HOME: TEST_CACHE_HOME },
    globalSetup: ['test/helpers/cache-teardown.ts'],
    projects: [
      { extends: true, test: { name: 'unit', include: UNIT, pool: 'threads', isolate: false } },
      {
        extends: true,
        test: { name: 'wire', include: ['test/**/*.test.ts'], exclude: ['test/unit/**'], pool: 'forks' },
      },
    ],
  },
});
