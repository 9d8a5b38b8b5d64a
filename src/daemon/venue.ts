// Where a deployment's bots trade: the embedded simulator started, or a remote venue's clock followed, and
// then the client and the feeds connected to it.
import type { BotConfig, Deployment } from '../config/index.js';
import { createVenueRuntime, followVenueClock, type VenueRuntime } from '../execution/runtime.js';
import type { PaperJournal } from '../execution/paper-journal.js';
import { PaperVenue } from '../execution/paper-venue.js';
import type { Clock } from '../feeds/clock.js';
import { Decimal } from '../market/decimal.js';
import type { MarginModel } from '../market/margin.js';
import { marginModelOf, startSimulator, type Simulator } from '../sim/index.js';
import type { Logger } from './logger.js';
import type { DaemonMetrics } from './metrics.js';

/** Where the bots trade: the venue's address, the account, and the venue's clock and speed. */
export interface VenueConnection {
  readonly baseUrl: string;
  /** None for a paper run: no private endpoint is ever called. */
  readonly credentials: { apiKey: string; apiSecret: string; passphrase: string } | undefined;
  /** A paper run's account (a new one's starting balances, and its fee rate). */
  readonly paper?:
    { readonly balances: Readonly<Record<string, string>>; readonly feeRate: string } | undefined;
  readonly speed: number;
  readonly feeRate: string;
  readonly whitelisted: boolean;
  /** The venue's own clock (the simulator's, or a remote one's at `timeScale`); undefined: the wall clock. */
  readonly clock: Clock | undefined;
  /** The embedded simulator, stopped last at shutdown. */
  readonly sim: Simulator | undefined;
  /** The margin model MARGIN bots account their loans with (the simulator's; undefined: its default). */
  readonly marginModel?: MarginModel | undefined;
}

/** Starts the embedded simulator, or syncs to a remote venue's clock when it runs at another speed. */
export async function startVenue(
  v: Deployment['venue'],
  logger: Logger,
  /** Told when a followed venue clock re-synced after a jump. */
  onResync?: () => void,
): Promise<VenueConnection> {
  if (v.kind === 'simulator') {
    const sim = await startSimulator({
      port: v.port,
      seed: v.seed,
      speed: v.speed,
      extraPairs: v.extraPairs,
      ...(v.startTime !== undefined ? { startTime: Date.parse(v.startTime) } : {}),
      ...(v.faults !== undefined ? { faults: v.faults } : {}),
      ...(v.margin !== undefined ? { margin: marginModelOf(v.margin) } : {}),
      accounts: [{ ...v.account, balances: v.account.balances }],
    });
    const engine = sim.engine;
    logger.info('embedded simulator started', {
      url: sim.baseUrl,
      seed: v.seed,
      speed: v.speed,
      simTime: new Date(engine.now()).toISOString(),
    });
    return {
      baseUrl: sim.baseUrl,
      credentials: v.account,
      speed: v.speed,
      feeRate: v.account.feeRate,
      whitelisted: v.account.whitelisted,
      clock: { now: () => engine.now() },
      sim,
      marginModel: v.margin === undefined ? undefined : marginModelOf(v.margin),
    };
  }
  if (v.kind === 'paper') {
    // Orders and the public trades that fill them are dated on the venue's clock: it is followed always.
    const speed = v.timeScale ?? 1;
    const clock = await followVenueClock(v.baseUrl, speed, { timeoutMs: v.timeoutMs, logger, onResync });
    logger.info("paper run: the venue's public data, orders filled locally", {
      venue: v.baseUrl,
      venueTime: new Date(clock.now()).toISOString(),
      speed,
    });
    return {
      baseUrl: v.baseUrl,
      credentials: undefined,
      paper: v.account,
      speed,
      feeRate: v.account.feeRate,
      whitelisted: false,
      clock,
      sim: undefined,
    };
  }
  let speed = 1;
  let clock: Clock | undefined;
  if (v.timeScale !== undefined) {
    const vc = await followVenueClock(v.baseUrl, v.timeScale, { timeoutMs: v.timeoutMs, logger, onResync });
    clock = vc;
    speed = v.timeScale;
    logger.info('running on the venue time', { speed, venueTime: new Date(vc.now()).toISOString() });
  }
  return {
    baseUrl: v.baseUrl,
    credentials: v.credentials,
    speed,
    feeRate: v.feeRate,
    whitelisted: v.whitelisted,
    clock,
    sim: undefined,
    marginModel: v.margin === undefined ? undefined : marginModelOf(v.margin),
  };
}

/**
 * The client and the feeds of the venue, polled at the fastest cadence any bot asks for; each poll counted,
 * a successful one reported to `onPollOk` (readiness), a failed one logged.
 */
export function connectVenue(o: {
  readonly cfg: Deployment;
  readonly venue: VenueConnection;
  readonly logger: Logger;
  readonly metrics: DaemonMetrics;
  readonly onPollOk: () => void;
  /** Where a paper run keeps its account (the deployment's journal). */
  readonly journal: PaperJournal;
}): VenueRuntime {
  const { cfg, venue, logger, metrics } = o;
  const paper = venue.paper;
  const v = cfg.venue;
  const poll = (k: keyof BotConfig['poll']) => Math.min(...cfg.bots.map((b) => b.poll[k]));
  const rt = createVenueRuntime({
    baseUrl: venue.baseUrl,
    credentials: venue.credentials,
    clock: venue.clock,
    speed: venue.speed,
    whitelisted: venue.whitelisted,
    ...(v.kind === 'remote'
      ? { channelApiCode: v.channelApiCode, locale: v.locale, timeoutMs: v.timeoutMs }
      : {}),
    ...(v.kind === 'paper' ? { locale: v.locale, timeoutMs: v.timeoutMs } : {}),
    venueOf:
      paper === undefined
        ? undefined
        : (client, clock) =>
            new PaperVenue({
              client,
              clock,
              journal: o.journal,
              balances: Object.fromEntries(
                Object.entries(paper.balances).map(([c, a]) => [c, new Decimal(a)]),
              ),
              feeRate: new Decimal(paper.feeRate),
            }),
    cadences: {
      tickersMs: poll('tickersMs'),
      instrumentsMs: poll('instrumentsMs'),
      suspensionMs: poll('suspensionMs'),
      calendarMs: poll('calendarMs'),
    },
    staleAfterMs: Math.max(...cfg.bots.map((b) => b.risk.maxDataAgeMs)),
    logger,
    onPoll: (feed) => {
      metrics.polls.inc({ feed });
      o.onPollOk();
    },
    onPollError: (feed, err) => {
      metrics.pollErrors.inc({ feed });
      logger.warn('poll failed, will retry', {
        feed,
        error: err instanceof Error ? err.message : String(err),
      });
    },
  });
  rt.client.limiter?.onThrottled((group) => metrics.rateLimited.inc({ group }));
  return rt;
}
