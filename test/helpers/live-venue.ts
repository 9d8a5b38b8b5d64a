// A live bot's world for integration tests: the simulator on a free loopback port with one account, a venue
// runtime on it and a journal on a temp file; `close()` takes them down in order, also when a test fails.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import type { Credentials } from '../../src/client/index.js';
import {
  createLiveBot,
  createVenueRuntime,
  type BotSpec,
  type VenueRuntime,
  type VenueRuntimeOptions,
} from '../../src/execution/runtime.js';
import type { LiveBot } from '../../src/execution/live-bot.js';
import type { TraderListener } from '../../src/execution/trader.js';
import type { Clock } from '../../src/feeds/clock.js';
import {
  startSimulator,
  type SimAccountOptions,
  type Simulator,
  type SimulatorOptions,
} from '../../src/sim/index.js';
import { openStore, type Store } from '../../src/store/index.js';
import type { StrategyLogger } from '../../src/strategy/contract.js';
import { silentLogger } from '../../src/strategy/testing.js';

export interface LiveVenueOptions {
  /** The keys of the simulator's one account, which the runtime signs with. */
  readonly credentials: Credentials;
  /** The rest of that account: whitelist access, balances, fees. */
  readonly account?: Omit<SimAccountOptions, keyof Credentials>;
  /** The simulator's market and rules (seed, startTime, speed, replay ...); its speed is the runtime's. */
  readonly sim?: Omit<SimulatorOptions, 'accounts' | 'port' | 'host'>;
  /** The runtime's feeds and client (cadences, staleAfterMs, whitelisted ...). */
  readonly runtime?: Omit<VenueRuntimeOptions, 'baseUrl' | 'credentials' | 'clock' | 'speed'>;
}

/** A bot spec without what most of these tests share: one SPOT symbol, AAPLUSDT on 1m, 10000 USDT, fee 0.001. */
export type LiveBotSpec = Pick<BotSpec, 'name' | 'strategy' | 'risk'> & Partial<BotSpec>;

export interface LiveVenue {
  readonly sim: Simulator;
  /** The simulator's clock, which the runtime and the journal run on. */
  readonly clock: Clock;
  /** The current runtime and journal (new ones after `restart()`). */
  readonly runtime: VenueRuntime;
  readonly store: Store;
  /** The journal's file (another connection may read it, as after a crash). */
  readonly journalPath: string;
  /** `createLiveBot` on this runtime and journal, silent unless given a logger. */
  createLiveBot(
    spec: LiveBotSpec,
    o?: { logger?: StrategyLogger; onEvent?: TraderListener },
  ): ReturnType<typeof createLiveBot>;
  /** A daemon restart: stops the bots, closes the runtime and the journal, opens new ones on the same file. */
  restart(): Promise<void>;
  /** Stops the bots, closes the runtime and the journal, stops the simulator, removes the temp folder. */
  close(): Promise<void>;
}

/** Starts the simulator and opens a runtime and a journal on it. */
export async function startLiveVenue(o: LiveVenueOptions): Promise<LiveVenue> {
  const sim = await startSimulator({ ...o.sim, accounts: [{ ...o.credentials, ...o.account }] });
  const clock: Clock = { now: () => sim.engine.now() };
  const dir = mkdtempSync(join(tmpdir(), 'tradebot-live-venue-'));
  const journalPath = join(dir, 'journal.db');
  const open = () => ({
    runtime: createVenueRuntime({
      ...o.runtime,
      baseUrl: sim.baseUrl,
      credentials: o.credentials,
      clock,
      speed: o.sim?.speed,
    }),
    store: openStore(journalPath, { clock }),
  });
  let bots: LiveBot[] = [];
  let closed = false;
  const shut = async (now: { runtime: VenueRuntime; store: Store }) => {
    for (const b of bots) await b.stop();
    bots = [];
    now.runtime.close();
    now.store.close();
  };
  const venue = {
    sim,
    clock,
    journalPath,
    ...open(),
    async createLiveBot(spec: LiveBotSpec, bo: { logger?: StrategyLogger; onEvent?: TraderListener } = {}) {
      const made = await createLiveBot({
        runtime: venue.runtime,
        store: venue.store,
        logger: bo.logger ?? silentLogger,
        onEvent: bo.onEvent,
        spec: {
          params: {},
          category: 'SPOT',
          symbols: ['AAPLUSDT'],
          interval: '1m',
          quoteCoin: 'USDT',
          capital: '10000',
          feeRate: '0.001',
          ...spec,
        },
      });
      bots.push(made.bot);
      return made;
    },
    async restart() {
      await shut(venue);
      Object.assign(venue, open());
    },
    async close() {
      if (closed) return;
      closed = true;
      await shut(venue);
      await sim.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  onTestFinished(() => venue.close());
  return venue;
}
