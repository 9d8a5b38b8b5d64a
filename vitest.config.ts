import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The strategies import the package by its name, as a user's do: in tests, that is the sources.
  resolve: { alias: { tradebot: fileURLToPath(new URL('./src/index.ts', import.meta.url)) } },
  test: {
    include: ['test/**/*.test.ts', 'strategies/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two test files at once on two cores: most e2e tests wait on a daemon, a simulator or a browser, not the
    // CPU. One worker (vitest's default on 2 cores) took the suite past 15 minutes.
    maxWorkers: 2,
    // Every simulator a test starts (in process or in a spawned daemon) must be pinned to a start time, so
    // the suite passes on any date: see REQUIRE_PINNED_START in src/sim/engine.ts.
    env: { TRADEBOT_REQUIRE_PINNED_START: '1' },
  },
});
