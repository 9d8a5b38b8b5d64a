// The daemon: one YAML deployment of bots, from start to a clean exit. Start: validate the config, open
// the journal, start the venue (embedded simulator or remote), reconcile, start feeds and bots, cron
// jobs and the health/metrics server. SIGINT/SIGTERM: no new intents, orders in flight finished, the
// journal flushed, exit 0 within a bounded time. A failing bot is restarted with backoff, alone.
import cron, { type ScheduledTask } from 'node-cron';
import type { Writable } from 'node:stream';
import { ApiError } from '../api/index.js';
import {
  ConfigError,
  loadDeployment,
  strategyLookupFor,
  type BotConfig,
  type Deployment,
} from '../config/index.js';
import { createLiveBot, createVenueRuntime, type VenueRuntime } from '../execution/runtime.js';
import type { LiveBot } from '../execution/live-bot.js';
import { liveClock, type Clock } from '../feeds/clock.js';
import { VenueClock } from '../feeds/venue-clock.js';
import { startSimulator, type Simulator } from '../sim/index.js';
import { parseExitRules, parseProtections } from '../strategy/exits.js';
import { describeJournalFault, JournalFileError, type Store } from '../store/index.js';
import { loadStrategy } from '../strategy/loader.js';
import { StrategyParamsError, parseStrategyParams } from '../strategy/params.js';
import { startHttp } from './http.js';
import { openDeploymentJournal } from './journal-path.js';
import { createLogger, registerSecrets, type Logger } from './logger.js';
import { DaemonMetrics } from './metrics.js';
import { pipelineEvents } from './pipeline-events.js';
import { StatusLine } from './status.js';

export interface DaemonOptions {
  readonly env?: NodeJS.ProcessEnv | undefined;
  /** Where problems and the status line go (default stderr). */
  readonly stderr?: Writable | undefined;
  /** Resolves when the daemon should stop (default: SIGINT or SIGTERM). */
  readonly stopSignal?: Promise<string> | undefined;
  /** Start a new journal, keeping an existing one beside it under a timestamped name (`run --fresh`). */
  readonly fresh?: boolean | undefined;
  /**
   * Servers started once the bots run and closed first at shutdown (the CLI passes the web dashboard:
   * daemon and web are one layer, so the daemon knows it only through this port).
   */
  readonly services?: readonly DaemonService[] | undefined;
  /** Called once everything runs, with the ports in use. */
  readonly onReady?: ((info: { metricsPort?: number | undefined; venueUrl: string }) => void) | undefined;
}

/** What a service started beside the bots is given. */
export interface DaemonServiceContext {
  readonly config: Deployment;
  /** Each bot's configuration and its running instance (none while it restarts). */
  readonly bots: () => readonly { readonly config: BotConfig; readonly bot: LiveBot | undefined }[];
  readonly store: Store;
  readonly logger: Logger;
  readonly venue: { readonly kind: string; readonly speed: number };
}

/** A server the daemon starts after its bots and stops before them (e.g. the dashboard). */
export type DaemonService = (ctx: DaemonServiceContext) => Promise<{ close(): Promise<void> } | undefined>;

interface BotSlot {
  readonly cfg: BotConfig;
  bot?: LiveBot | undefined;
  restarts: number;
  stopping: boolean;
}

const signalPromise = (): Promise<string> =>
  new Promise((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });

const JOURNAL_FAILED = 'journal failed';
const sqliteCode = (e: unknown): boolean =>
  /^SQLITE_/.test(String((e as { code?: unknown } | null)?.code ?? ''));

/** Runs a deployment until stopped; answers the process exit code. */
export async function runDaemon(file: string, o: DaemonOptions = {}): Promise<number> {
  const stderr = o.stderr ?? process.stderr;
  const stop = o.stopSignal ?? signalPromise();
  let cfg: Deployment;
  try {
    const loaded = await loadDeployment(file, o.env ?? process.env);
    registerSecrets(loaded.secrets);
    cfg = loaded.config;
  } catch (e) {
    if (e instanceof ConfigError) {
      stderr.write(
        `tradebot: the configuration has ${e.problems.length} problem(s); the daemon did not start:\n${e.message}\n`,
      );
      return 2;
    }
    throw e;
  }
  const logger = createLogger({ level: cfg.logging.level, format: cfg.logging.format, stream: stderr });
  const metrics = new DaemonMetrics();
  let sim: Simulator | undefined;
  let store: Store | undefined;
  let unlock: (() => void) | undefined;
  let runtime: VenueRuntime | undefined;
  let http: { port: number; close(): Promise<void> } | undefined;
  const services: { close(): Promise<void> }[] = [];
  const slots: BotSlot[] = [];
  const jobs: ScheduledTask[] = [];
  let status: StatusLine | undefined;
  let lastPollOk = 0;
  let clock: Clock = liveClock;
  let failJournal: () => void = () => undefined;
  const journalFailed = new Promise<string>((r) => (failJournal = () => r(JOURNAL_FAILED)));

  const shutdown = async (why: string): Promise<number> => {
    logger.info('stopping', { reason: why });
    for (const j of jobs) void j.stop();
    status?.stop();
    const drain = Promise.all(
      slots.map(async (s) => {
        s.stopping = true;
        await s.bot?.stop();
      }),
    );
    const timedOut = await Promise.race([
      drain.then(() => false),
      new Promise<boolean>((r) => setTimeout(() => r(true), cfg.shutdownTimeoutMs).unref()),
    ]);
    for (const s of services) await s.close();
    runtime?.close();
    await http?.close();
    store?.close();
    unlock?.();
    await sim?.stop();
    if (timedOut) {
      logger.error(
        'orders were still in flight at the shutdown deadline; they stay pending in the journal and are resent on the next start',
        {
          timeoutMs: cfg.shutdownTimeoutMs,
        },
      );
      return 1;
    }
    logger.info('stopped', { journal: cfg.store.path });
    return 0;
  };

  try {
    const v = cfg.venue;
    const journal = openDeploymentJournal({
      path: cfg.store.path,
      fresh: o.fresh === true,
      embeddedSimulator: v.kind === 'simulator',
      now: clock.now(),
      // The venue's clock is known only once the venue is up: the journal reads whichever is current, so
      // every record is stamped on the clock the pipeline trades on (not the wall clock of an accelerated run).
      clock: { now: () => clock.now() },
    });
    store = journal.store;
    unlock = journal.unlock;
    if (journal.keptAt !== undefined)
      logger.info('started a fresh journal; the previous one is kept', {
        journal: journal.store.path,
        previous: journal.keptAt,
      });
    let baseUrl: string;
    let credentials: { apiKey: string; apiSecret: string; passphrase: string };
    let speed = 1;
    let feeRate: string;
    let whitelisted: boolean;
    if (v.kind === 'simulator') {
      sim = await startSimulator({
        port: v.port,
        seed: v.seed,
        speed: v.speed,
        ...(v.startTime !== undefined ? { startTime: Date.parse(v.startTime) } : {}),
        ...(v.faults !== undefined ? { faults: v.faults } : {}),
        accounts: [{ ...v.account, balances: v.account.balances }],
      });
      const engine = sim.engine;
      clock = { now: () => engine.now() };
      baseUrl = sim.baseUrl;
      credentials = v.account;
      speed = v.speed;
      feeRate = v.account.feeRate;
      whitelisted = v.account.whitelisted;
      logger.info('embedded simulator started', {
        url: baseUrl,
        seed: v.seed,
        speed: v.speed,
        simTime: new Date(engine.now()).toISOString(),
      });
    } else {
      baseUrl = v.baseUrl;
      credentials = v.credentials;
      feeRate = v.feeRate;
      whitelisted = v.whitelisted;
      if (v.timeScale !== undefined) {
        const vc = new VenueClock(v.baseUrl, v.timeScale);
        await vc.sync();
        clock = vc;
        speed = v.timeScale;
        logger.info('running on the venue time', { speed, venueTime: new Date(vc.now()).toISOString() });
      }
    }
    const poll = (k: keyof BotConfig['poll']) => Math.min(...cfg.bots.map((b) => b.poll[k]));
    runtime = createVenueRuntime({
      baseUrl,
      credentials,
      clock: v.kind === 'simulator' || v.timeScale !== undefined ? clock : undefined,
      speed,
      whitelisted,
      ...(v.kind === 'remote'
        ? { channelApiCode: v.channelApiCode, locale: v.locale, timeoutMs: v.timeoutMs }
        : {}),
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
        lastPollOk = liveClock.now();
      },
      onPollError: (feed, err) => {
        metrics.pollErrors.inc({ feed });
        logger.warn('poll failed, will retry', {
          feed,
          error: err instanceof Error ? err.message : String(err),
        });
      },
    });
    const rt = runtime;
    const st = store;
    rt.client.limiter?.onThrottled((group) => metrics.rateLimited.inc({ group }));

    // Fills are read from reality-fills, which needs whitelist access (spec §5): without it the bots
    // could place orders but never book them, so the daemon refuses to start unless told to estimate.
    const firstSymbol = cfg.bots[0]?.symbols[0];
    if (cfg.fills === 'venue' && firstSymbol !== undefined) {
      try {
        await rt.client.realityFills({ symbol: firstSymbol, limit: 1 });
      } catch (e) {
        if (!(e instanceof ApiError && e.code === '90068')) throw e;
        const why =
          'the account has no whitelist access, so its fills (reality-fills) cannot be read and no order could be booked. ' +
          'Apply for whitelist access through a business representative of the venue, or set `fills: estimated` in the configuration ' +
          '(market orders booked from the acknowledgement at the touch and marked estimated, limit orders refused).';
        logger.error('start refused: no whitelist access', { code: e.code, fix: why });
        stderr.write(`tradebot: ${file}: start refused: ${why}\n`);
        await shutdown('start refused');
        return 1;
      }
    } else if (cfg.fills === 'estimated') {
      logger.warn('fills are estimated', {
        why: 'fills: estimated: market orders are booked from the acknowledgement at the touch; limit orders are refused (LIMIT_WITHOUT_FILLS)',
      });
    }

    if (cfg.metrics.enabled) {
      http = await startHttp({
        host: cfg.metrics.host,
        port: cfg.metrics.port,
        metrics,
        readiness: () => {
          const bots = slots.map((s) => s.bot?.status());
          const running = bots.every((b) => b?.running === true);
          const halted = bots.length > 0 && bots.every((b) => b?.tradingState === 'HALTED');
          const venue = liveClock.now() - lastPollOk < 60_000;
          return { ready: running && !halted && venue, detail: { bots, venueReachable: venue } };
        },
      });
      logger.info('health and metrics listening', {
        url: `http://${cfg.metrics.host}:${http.port}`,
        paths: '/healthz /readyz /metrics',
      });
    }

    // Leverage at start (futures and margin accounts); a refusal is logged, not fatal.
    const applyLeverage = async (b: BotConfig) => {
      for (const params of b.leverage) {
        try {
          await rt.client.setLeverage(params as never);
          logger.info('leverage set', { bot: b.name, ...params });
        } catch (e) {
          logger.error('set-leverage refused', {
            bot: b.name,
            error: e instanceof Error ? e.message : String(e),
          });
        }
      }
    };

    const startBot = async (slot: BotSlot): Promise<void> => {
      const b = slot.cfg;
      const strategy = await loadStrategy(b.strategy, strategyLookupFor(file, cfg.strategiesDir));
      parseStrategyParams(strategy, b.params);
      const { bot, reconciled } = await createLiveBot({
        runtime: rt,
        store: st,
        logger: logger.child({ bot: b.name }),
        spec: {
          name: b.name,
          strategy,
          params: b.params,
          category: b.category,
          symbols: b.symbols,
          interval: b.interval,
          risk: b.risk,
          quoteCoin: b.quoteCoin,
          capital: b.capital,
          feeRate,
          fillPollMs: b.poll.fillsMs / speed,
          maxSignalAgeMs: b.maxSignalAgeMs,
          fills: cfg.fills,
          exits: b.exits === undefined ? undefined : parseExitRules(b.exits, `bots.${b.name}.exits`),
          protections:
            b.protections === undefined
              ? undefined
              : parseProtections(b.protections, `bots.${b.name}.protections`),
        },
        onEvent: pipelineEvents(logger, metrics),
      });
      if (reconciled.resent.length > 0 || reconciled.newFills > 0) {
        logger.info('reconciled with the venue', {
          bot: b.name,
          resent: reconciled.resent.length,
          newFills: reconciled.newFills,
        });
      }
      metrics.setState(b.name, bot.status().tradingState);
      bot.onFailure((err) => void restart(slot, err));
      slot.bot = bot;
      bot.start();
      logger.info('bot started', {
        bot: b.name,
        strategy: b.strategy,
        symbols: b.symbols.join(','),
        interval: b.interval,
      });
    };

    const restart = async (slot: BotSlot, err: unknown): Promise<void> => {
      if (slot.stopping) return;
      // A journal that cannot be written stops every bot: trading on would send orders it cannot record.
      // Only SQLite's own errors count: an EACCES of a socket is not the journal's.
      const fault = sqliteCode(err) ? describeJournalFault(err, cfg.store.path) : undefined;
      if (fault !== undefined) {
        logger.error('the journal failed; stopping', { bot: slot.cfg.name, error: fault.message });
        failJournal();
        return;
      }
      slot.restarts++;
      metrics.botRestarts.inc({ bot: slot.cfg.name });
      const delay = Math.min(60_000, 1000 * 2 ** Math.min(slot.restarts - 1, 6));
      logger.error('bot failed; restarting it, the others keep trading', {
        bot: slot.cfg.name,
        error: err instanceof Error ? err.message : String(err),
        inMs: delay,
      });
      await slot.bot?.stop().catch(() => undefined);
      await new Promise((r) => setTimeout(r, delay).unref());
      if (slot.stopping) return;
      try {
        await startBot(slot);
      } catch (e) {
        void restart(slot, e);
      }
    };

    for (const b of cfg.bots) {
      const slot: BotSlot = { cfg: b, restarts: 0, stopping: false };
      slots.push(slot);
      await applyLeverage(b);
      try {
        await startBot(slot);
      } catch (e) {
        if (e instanceof StrategyParamsError) {
          stderr.write(`tradebot: ${file}: bots[${cfg.bots.indexOf(b)}].params: ${e.message}\n`);
          await shutdown('bad strategy parameters');
          return 2;
        }
        throw e;
      }
      for (const s of b.schedules) {
        jobs.push(
          cron.schedule(
            s.cron,
            async () => {
              logger.info('scheduled task', { bot: b.name, task: s.task });
              if (s.task === 'flatten') await slot.bot?.flatten('scheduled flatten before the close');
              else if (s.task === 'set-leverage') await applyLeverage(b);
              else logger.info('daily report', { ...slot.bot?.status() });
            },
            { timezone: s.timezone },
          ),
        );
      }
    }
    if (cfg.status.enabled && (stderr as { isTTY?: boolean }).isTTY === true) {
      status = new StatusLine(stderr, () => slots.map((s) => s.bot?.status()), clock);
      status.start();
    }
    for (const start of o.services ?? []) {
      const service = await start({
        config: cfg,
        bots: () => slots.map((slot) => ({ config: slot.cfg, bot: slot.bot })),
        store: st,
        logger,
        venue: { kind: v.kind, speed },
      });
      if (service !== undefined) services.push(service);
    }
    o.onReady?.({ metricsPort: http?.port, venueUrl: baseUrl });
    logger.info('running', { bots: cfg.bots.length, journal: cfg.store.path });
  } catch (e) {
    // The journal step already turned its faults into sentences; other errors keep their own message.
    const fault = e instanceof JournalFileError ? e : undefined;
    logger.error('start failed', {
      error: fault?.message ?? (e instanceof Error ? e.message : String(e)),
    });
    await shutdown('start failed');
    return fault instanceof JournalFileError && fault.invalidInput ? 2 : 1;
  }
  const why = await Promise.race([stop, journalFailed]);
  const code = await shutdown(why);
  return why === JOURNAL_FAILED ? 1 : code;
}

export type { Logger };
