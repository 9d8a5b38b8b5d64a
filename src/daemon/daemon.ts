// The daemon: one YAML deployment of bots, from start to a clean exit. Start: validate the config, open
// the journal, start the venue (embedded simulator or remote), reconcile, start feeds and bots, cron
// jobs and the health/metrics server. SIGINT/SIGTERM: no new intents, orders in flight finished, the
// journal flushed, exit 0 within a bounded time. A failing bot is restarted with backoff, alone.
import type { Writable } from 'node:stream';
import {
  ConfigError,
  loadDeployment,
  strategyLookupFor,
  type PaperSwitch,
  type BotConfig,
  type Deployment,
  type LoadedConfig,
} from '../config/index.js';
import { INTERVAL_MS } from '../api/index.js';
import { coinsBySuffix } from '../execution/describe.js';
import { feedLimits } from '../execution/feed-watch.js';
import { createLiveBot, fillRouterFor, type VenueRuntime } from '../execution/runtime.js';
import type { LiveBot } from '../execution/live-bot.js';
import type { TraderListener } from '../execution/trader.js';
import { liveClock, type Clock } from '../feeds/clock.js';
import { formatDuration } from '../market/duration.js';
import { counted } from '../market/spelling.js';
import type { Simulator } from '../sim/index.js';
import { parseExitRules, parseProtections } from '../strategy/exits.js';
import { describeJournalFault, JournalFileError, journalVenueClock, type Store } from '../store/index.js';
import { exitBlockWarning } from '../strategy/exit-block-check.js';
import { sharedMarginAccountWarnings } from '../config/margin-sharing.js';
import { loadStrategy, resolveStrategyFile } from '../strategy/loader.js';
import { StrategyParamsError, parseStrategyParams } from '../strategy/params.js';
import { StrategyRuntimeError } from '../strategy/failure.js';
import { denialAlarm } from './denial-alarm.js';
import { driftDetail, scheduleDriftChecks } from './drift-checks.js';
import { watchFeedHealth } from './feed-alarm.js';
import { watchMarginRatio } from './margin-alarm.js';
import { applyBotLeverage } from './leverage.js';
import { readiness, serveHealth, venueReachableMs } from './health.js';
import { markCleanStop, markRunStarted, openDeploymentJournal, type PreviousRun } from './journal-path.js';
import { createLogger, registerSecrets, type Logger } from './logger.js';
import { DaemonMetrics } from './metrics.js';
import { pipelineEvents } from './pipeline-events.js';
import { scheduleBotTasks } from './schedules.js';
import { DaemonEvents, type DaemonService, type DaemonServiceContext } from './services.js';
import { botSummary, drainBots } from './shutdown.js';
import { startPaperRecording, type CandleRecorder } from './candle-recorder.js';
import { watchSignals } from './signals.js';
import { checkFillAccess, checkPairs, checkPaperCalls, PAPER, StartRefused } from './start-checks.js';
import { START_CONCURRENCY, startInChains, symbolChains } from './start-chains.js';
import { US_EASTERN } from '../market/us-calendar.js';
import { StatusLine } from './status.js';
import { connectVenue, startVenue, type VenueConnection } from './venue.js';

export type { BotRestartedEvent, DaemonEvent, DaemonService, DaemonServiceContext } from './services.js';

export interface DaemonOptions {
  readonly env?: NodeJS.ProcessEnv | undefined;
  /** Where problems and the status line go (default stderr). */
  readonly stderr?: Writable | undefined;
  /** Resolves when the daemon should stop (default: SIGINT or SIGTERM). */
  readonly stopSignal?: Promise<string> | undefined;
  /** Start a new journal, keeping an existing one beside it under a timestamped name (`run --fresh`). */
  readonly fresh?: boolean | undefined;
  /** Called once everything runs, with the ports in use. */
  readonly onReady?: ((info: { metricsPort?: number | undefined; venueUrl: string }) => void) | undefined;
  /** Services started once the bots run, closed first at shutdown (notifications, dashboard; one layer). */
  readonly services?: readonly DaemonService[] | undefined;
  /** A strategy's failure is logged with its stack (`run --verbose`). */
  readonly verbose?: boolean | undefined;
  /** Run the file as a dry run on a paper venue (`run --paper`; see src/config/paper.ts). */
  readonly paper?: PaperSwitch | undefined;
}

interface BotSlot {
  readonly cfg: BotConfig;
  bot?: LiveBot | undefined;
  restarts: number;
  stopping: boolean;
}

const JOURNAL_FAILED = 'journal failed';
const sqliteCode = (e: unknown): boolean =>
  /^SQLITE_/.test(String((e as { code?: unknown } | null)?.code ?? ''));

/** Runs a deployment until stopped; answers the process exit code. */
export async function runDaemon(file: string, o: DaemonOptions = {}): Promise<number> {
  const stderr = o.stderr ?? process.stderr;
  const loaded = await loadConfiguration(file, o, stderr);
  if (typeof loaded === 'number') return loaded;
  const run = new DaemonRun(file, loaded.config, o, stderr, loaded);
  return run.run(o.stopSignal ?? watchSignals((sig) => run.signalledAgain(sig)));
}

/** The deployment checked completely, its secrets registered for redaction; or exit code 2, explained. */
async function loadConfiguration(
  file: string,
  o: DaemonOptions,
  stderr: Writable,
): Promise<LoadedConfig<Deployment> | number> {
  try {
    const loaded = await loadDeployment(file, o.env ?? process.env, o.paper);
    registerSecrets(loaded.secrets);
    return loaded;
  } catch (e) {
    if (e instanceof ConfigError) {
      stderr.write(
        `tradebot: the configuration has ${counted(e.problems.length, 'problem')}; the daemon did not start:\n${e.message}\n`,
      );
      return 2;
    }
    throw e;
  }
}

/** One run of a deployment: each start step a method, in the order `start` calls them. */
class DaemonRun {
  private readonly logger: Logger;
  private readonly metrics = new DaemonMetrics();
  private readonly events: DaemonEvents;
  private sim: Simulator | undefined;
  private store: Store | undefined;
  private unlock: (() => void) | undefined;
  private runtime: VenueRuntime | undefined;
  private http: { port: number; close(): Promise<void> } | undefined;
  private readonly slots: BotSlot[] = [];
  /** What runs on timers (cron tasks, the feed alarm): stopped first at shutdown. */
  private readonly jobs: { stop(): void }[] = [];
  private speed = 1;
  private status: StatusLine | undefined;
  private lastPollOk = 0;
  private clock: Clock = liveClock;
  /** The venue's clock is `clock` (the log reads its time from then on). */
  private venueClockKnown = false;
  private failJournal: () => void = () => undefined;
  private readonly journalFailed = new Promise<string>((r) => (this.failJournal = () => r(JOURNAL_FAILED)));
  private readonly services: { close(): Promise<void> }[] = [];
  /** A paper run's candle recorder (venue.record), closed after the bots stop. */
  private recorder: CandleRecorder | undefined;
  /** How the journal's previous run ended, read when it is opened. */
  private previousRun: PreviousRun = 'first';
  /** Until the start completed or the shutdown began: a stop asked now waits for the start. */
  private starting = true;

  constructor(
    private readonly file: string,
    private readonly cfg: Deployment,
    private readonly o: DaemonOptions,
    private readonly stderr: Writable,
    /** Where a value is in the file, for the problems only the venue can tell (see checkPairs). */
    private readonly source: Pick<LoadedConfig<Deployment>, 'locate' | 'redact'>,
  ) {
    // On a terminal the status block is pinned below the log: log lines go through it.
    const tty = (stderr as { isTTY?: boolean }).isTTY === true;
    // A paper run says so on every log line, metric and status line (docs/paper.md).
    const mode = cfg.venue.kind === 'paper' ? PAPER : undefined;
    if (cfg.status.enabled && tty) this.status = new StatusLine(stderr, undefined, mode);
    this.logger = createLogger({
      level: cfg.logging.level,
      format: cfg.logging.format,
      stream: this.status?.logStream ?? stderr,
      tty,
      mode,
      // Until the venue answers, its clock is not known: lines keep the wall clock's time.
      venueClock: { now: () => (this.venueClockKnown ? this.clock.now() : undefined), zone: US_EASTERN },
    });
    if (mode !== undefined) this.metrics.registry.setDefaultLabels({ mode });
    const running = () =>
      this.slots.flatMap((s) => (s.bot === undefined ? [] : [[s.cfg.name, s.bot] as const]));
    this.metrics.stateSizesOf = () => running().map(([n, b]) => [n, b.stateSizes()] as const);
    this.metrics.tradingStatesOf = () =>
      running().map(
        ([n, b]) => [n, { state: b.trader.tradingState, paused: b.trader.control.paused }] as const,
      );
    this.events = new DaemonEvents(this.logger);
  }

  /** Starts, runs until the stop signal (or a journal failure), and stops; answers the exit code. */
  async run(stop: Promise<string>): Promise<number> {
    // A stop asked for during the start is answered at once; the start completes, then the shutdown.
    void stop.then((why) => {
      if (this.starting)
        this.logger.info('stop requested', {
          reason: why,
          what: `${why}: the daemon stops as soon as its start completes`,
        });
    });
    try {
      await this.start();
    } catch (e) {
      return this.startFailed(e);
    }
    this.starting = false;
    const why = await Promise.race([stop, this.journalFailed]);
    const code = await this.shutdown(why);
    return why === JOURNAL_FAILED ? 1 : code;
  }

  private async start(): Promise<void> {
    this.openJournal();
    const venue = await this.startVenue();
    const rt = this.connect(venue);
    const checks = {
      file: this.file,
      cfg: this.cfg,
      source: this.source,
      logger: this.logger,
      stderr: this.stderr,
    };
    await checkPairs(checks, rt);
    checkPaperCalls(checks);
    await checkFillAccess(checks, rt);
    await this.serveHealth();
    this.recorder = await startPaperRecording(this.cfg, rt.client, this.logger, this.stderr);
    await this.startBots(venue);
    this.watchAccount();
    this.startSchedules();
    this.startStatusLine();
    await this.startServices();
    this.watchFeeds();
    this.o.onReady?.({ metricsPort: this.http?.port, venueUrl: venue.baseUrl });
    this.logger.info('running', { bots: this.cfg.bots.length, journal: this.cfg.store.path });
  }

  /** A step refused the start (exit code given) or something failed (exit 1; 2 for a bad journal path). */
  private async startFailed(e: unknown): Promise<number> {
    if (e instanceof StartRefused) {
      await this.shutdown(e.why);
      return e.exitCode;
    }
    // The journal step already turned its faults into sentences; other errors keep their own message.
    const fault = e instanceof JournalFileError ? e : undefined;
    this.logger.error('start failed', {
      error: fault?.message ?? (e instanceof Error ? e.message : String(e)),
    });
    await this.shutdown('start failed');
    return fault instanceof JournalFileError && fault.invalidInput ? 2 : 1;
  }

  /** Opens (or, with `--fresh`, starts anew) the deployment's journal and takes its lock. */
  private openJournal(): void {
    const { cfg } = this;
    const journal = openDeploymentJournal({
      path: cfg.store.path,
      fresh: this.o.fresh === true,
      embeddedSimulator: cfg.venue.kind === 'simulator',
      now: this.clock.now(),
      // The venue's clock is known only once the venue is up: the journal reads whichever is current, so
      // every record is stamped on the clock the pipeline trades on (not the wall clock of an accelerated run).
      clock: { now: () => this.clock.now() },
    });
    this.store = journal.store;
    this.unlock = journal.unlock;
    this.metrics.seedFromJournal(journal.store);
    this.previousRun =
      journal.keptAt === undefined
        ? markRunStarted(journal.store, this.clock.now())
        : markRunStarted(journal.store, this.clock.now(), journal.keptRunMarker);
    if (this.previousRun === 'unclean')
      this.logger.warn('the previous run did not end cleanly', {
        journal: journal.store.path,
        what: 'the previous run of this journal did not end cleanly (killed or crashed: no clean stop was journaled); orders and fills are reconciled with the venue before trading',
      });
    if (journal.keptAt !== undefined)
      this.logger.info('started a fresh journal; the previous one is kept', {
        journal: journal.store.path,
        previous: journal.keptAt,
        ...(journal.notificationsCarried ? { notificationsCarried: journal.notificationsCarried } : {}),
      });
  }

  /** The venue clock's reading, for the CLI's "now" (`trades --since 10m`): see venueNow. */
  private journalVenueClock(): void {
    if (this.store === undefined) return;
    journalVenueClock(this.store, {
      venueTs: this.clock.now(),
      wallTs: liveClock.now(),
      speed: this.speed,
      simulated: this.sim !== undefined || this.speed !== 1,
    });
  }

  private async startVenue(): Promise<VenueConnection> {
    // A re-synced venue clock is journaled again: the CLI's "now" extrapolates from the last reading.
    const venue = await startVenue(this.cfg.venue, this.logger, () => this.journalVenueClock());
    this.sim = venue.sim;
    this.clock = venue.clock ?? liveClock;
    this.venueClockKnown = true;
    this.speed = venue.speed;
    this.journalVenueClock();
    return venue;
  }

  /** The client and the feeds of the venue; each answered poll keeps the venue counted reachable. */
  private connect(venue: VenueConnection): VenueRuntime {
    this.runtime = connectVenue({
      cfg: this.cfg,
      venue,
      logger: this.logger,
      metrics: this.metrics,
      onPollOk: () => (this.lastPollOk = liveClock.now()),
      journal: this.journal().meta,
    });
    return this.runtime;
  }

  /** /healthz, /readyz and /metrics, when enabled. */
  private async serveHealth(): Promise<void> {
    this.http = await serveHealth({
      metricsConfig: this.cfg.metrics,
      metrics: this.metrics,
      logger: this.logger,
      readiness: () =>
        readiness({
          bots: this.slots.map((s) => s.bot?.status()),
          lastPollOk: this.lastPollOk,
          now: liveClock.now(),
          reachableMs: venueReachableMs(this.cfg.bots, this.runtime?.speed ?? 1),
          drift: this.store === undefined ? {} : driftDetail(this.store),
          journal: this.store?.path,
        }),
      store: this.store,
    });
  }

  /** Each bot: its leverage, then built (reconciled with the venue) and started, chains of a symbol in turn. */
  private async startBots(venue: VenueConnection): Promise<void> {
    const slots = this.cfg.bots.map((cfg): BotSlot => ({ cfg, restarts: 0, stopping: false }));
    this.slots.push(...slots);
    await startInChains(symbolChains(this.cfg.bots), START_CONCURRENCY, async (i) => {
      await this.applyLeverage(this.cfg.bots[i] as BotConfig);
      try {
        await this.startBot(slots[i] as BotSlot, venue);
      } catch (e) {
        if (!(e instanceof StrategyParamsError)) throw e;
        this.stderr.write(`tradebot: ${this.file}: bots[${i}].params: ${e.message}\n`);
        throw new StartRefused(2, 'bad strategy parameters');
      }
    });
  }

  /** Leverage at start (futures and margin accounts); a refusal is logged, not fatal. */
  private applyLeverage(b: BotConfig): Promise<void> {
    return applyBotLeverage(this.connected().client, this.logger, b);
  }

  private async startBot(slot: BotSlot, venue: VenueConnection): Promise<void> {
    const bot = await this.buildBot(slot.cfg, venue);
    bot.onFailure((err) => void this.restart(slot, err, venue));
    slot.bot = bot;
    this.startFeeds(slot.cfg, bot);
  }

  /** A bot's strategy loaded, its pipeline built on the runtime, and its journal reconciled with the venue. */
  private async buildBot(b: BotConfig, venue: VenueConnection): Promise<LiveBot> {
    const { logger, metrics } = this;
    const lookup = strategyLookupFor(this.file, this.cfg.strategiesDir);
    const strategy = await loadStrategy(b.strategy, lookup);
    parseStrategyParams(strategy, b.params);
    const exits = b.exits === undefined ? undefined : parseExitRules(b.exits, `bots.${b.name}.exits`);
    const blockable = exitBlockWarning(strategy, resolveStrategyFile(b.strategy, lookup), exits);
    if (blockable !== undefined) logger.warn('exits can be blocked', { bot: b.name, what: blockable });
    for (const w of sharedMarginAccountWarnings(this.cfg).filter((x) => x.bot === b.name))
      logger.warn('margin account shared', { bot: b.name, what: w.text });
    const { bot, reconciled } = await createLiveBot({
      runtime: this.connected(),
      store: this.journal(),
      logger: logger.child({ bot: b.name }),
      accountLogger: logger,
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
        feeRate: venue.feeRate,
        marginModel: venue.marginModel,
        fillPollMs: b.poll.fillsMs / venue.speed,
        // The limits are on the venue's clock, as the poll settings are.
        feedLimits: feedLimits({
          intervalMs: INTERVAL_MS[b.interval],
          maxDataAgeMs: b.risk.maxDataAgeMs,
          fillsPollMs: b.poll.fillsMs,
        }),
        maxSignalAgeMs: b.maxSignalAgeMs,
        leverage: b.leverage,
        fills: this.cfg.fills,
        exits,
        protections:
          b.protections === undefined
            ? undefined
            : parseProtections(b.protections, `bots.${b.name}.protections`),
      },
      onEvent: this.fanOut(b),
      onCandle: (c) => this.recorder?.see(c),
    });
    if (reconciled.resent.length > 0 || reconciled.newFills > 0) {
      logger.info('reconciled with the venue', {
        bot: b.name,
        resent: reconciled.resent.length,
        newFills: reconciled.newFills,
      });
    }
    metrics.setState(b.name, bot.status().tradingState);
    return bot;
  }

  /** The bot subscribes to the feeds (candles, tickers, session) and trades from here on. */
  private startFeeds(b: BotConfig, bot: LiveBot): void {
    bot.start();
    this.logger.info('bot started', {
      bot: b.name,
      strategy: b.strategy,
      symbols: b.symbols.join(','),
      interval: b.interval,
    });
  }

  /** A bot's pipeline events to the log and metrics, then to the add-ons, then to its denial alarm. */
  private fanOut(b: BotConfig): TraderListener {
    const { cfg, logger, metrics } = this;
    const first = pipelineEvents(logger, metrics, coinsBySuffix(b.quoteCoin));
    const alarm = denialAlarm({ bot: b, cfg, logger, metrics, emit: (e) => this.events.emit(e) });
    return (e) => {
      first(e);
      this.events.emit(e);
      alarm(e);
    };
  }

  /** The services (notifications, the dashboard), once the bots run. */
  private async startServices(): Promise<void> {
    const ctx: DaemonServiceContext = {
      config: this.cfg,
      bots: () => this.slots.map((slot) => ({ config: slot.cfg, bot: slot.bot })),
      store: this.journal(),
      logger: this.logger,
      venue: { kind: this.cfg.venue.kind, speed: this.speed },
      clock: this.clock,
      previousRun: this.previousRun,
      subscribe: (l) => this.events.subscribe(l),
    };
    for (const start of this.o.services ?? []) {
      const service = await start(ctx);
      if (service !== undefined) this.services.push(service);
    }
  }

  /** A failed bot alone is restarted, with backoff; a failed journal stops them all. */
  private async restart(slot: BotSlot, err: unknown, venue: VenueConnection): Promise<void> {
    const { cfg, logger } = this;
    if (slot.stopping) return;
    // A journal that cannot be written stops every bot: trading on would send orders it cannot record.
    // Only SQLite's own errors count: an EACCES of a socket is not the journal's.
    const fault = sqliteCode(err) ? describeJournalFault(err, cfg.store.path) : undefined;
    if (fault !== undefined) {
      logger.error('the journal failed; stopping', { bot: slot.cfg.name, error: fault.message });
      this.failJournal();
      return;
    }
    slot.restarts++;
    this.metrics.botRestarts.inc({ bot: slot.cfg.name });
    this.events.emit({
      type: 'bot-restarted',
      bot: slot.cfg.name,
      ts: this.clock.now(),
      restarts: slot.restarts,
      error: err instanceof Error ? err.message : String(err),
    });
    const delay = Math.min(60_000, 1000 * 2 ** Math.min(slot.restarts - 1, 6));
    logger.error('bot failed; restarting it, the others keep trading', {
      bot: slot.cfg.name,
      error: err instanceof Error ? err.message : String(err),
      ...(this.o.verbose === true && err instanceof StrategyRuntimeError ? { stack: err.causeStack } : {}),
      inMs: delay,
    });
    await slot.bot?.stop().catch(() => undefined);
    await new Promise((r) => setTimeout(r, delay).unref());
    if (slot.stopping) return;
    try {
      await this.startBot(slot, venue);
    } catch (e) {
      void this.restart(slot, e, venue);
    }
  }

  /** The account's books: the fill router's counts on /metrics; a fill the journal disagrees on, notified. */
  private watchAccount(): void {
    const router = fillRouterFor(this.connected(), this.journal(), this.logger);
    this.metrics.fillAccountingOf = () => ({ ...router.accounting });
    this.jobs.push({ stop: router.watch((m) => this.events.emit(m)) });
  }

  /** Silence is an alarm (a starving feed: DEGRADED, said once); started last: the start's own work is no silence. */
  private watchFeeds(): void {
    const bots = () => this.slots.map((s) => ({ name: s.cfg.name, bot: s.bot }));
    const { clock, logger, metrics } = this;
    this.jobs.push(watchFeedHealth({ bots, clock, logger, metrics, emit: (e) => this.events.emit(e) }));
    const margin = () =>
      this.slots.filter((s) => s.cfg.category === 'MARGIN').map((s) => ({ name: s.cfg.name, bot: s.bot }));
    this.jobs.push(
      watchMarginRatio({ bots: margin, clock, logger, metrics, emit: (e) => this.events.emit(e) }),
    );
  }

  /** The bots' cron tasks, on the venue's clock (see scheduleBotTasks). */
  private startSchedules(): void {
    const tasks = scheduleBotTasks(this.slots, {
      clock: this.clock,
      speed: this.speed,
      logger: this.logger,
      applyLeverage: (b) => this.applyLeverage(b),
    });
    this.jobs.push(...tasks);
    const drift = scheduleDriftChecks({
      file: this.file,
      cfg: this.cfg,
      clock: this.clock,
      speed: this.speed,
      logger: this.logger,
      client: this.connected().client,
      store: this.journal(),
      metrics: this.metrics,
      emit: (e) => this.events.emit(e),
    });
    if (drift !== undefined) this.jobs.push(drift);
  }

  /** The live status block, on a terminal only (see StatusLine). */
  private startStatusLine(): void {
    this.status?.start(() => this.slots.map((s) => s.bot?.status()), this.clock);
  }

  private connected(): VenueRuntime {
    if (this.runtime === undefined) throw new Error('the venue runtime is not started yet');
    return this.runtime;
  }

  private journal(): Store {
    if (this.store === undefined) throw new Error('the journal is not open yet');
    return this.store;
  }

  /** A second SIGINT or SIGTERM: said, and otherwise ignored (the shutdown is bounded by its deadline). */
  signalledAgain(signal: string): void {
    const then = this.starting
      ? 'the daemon stops as soon as its start completes'
      : `orders in flight get up to ${formatDuration(this.cfg.shutdownTimeoutMs)} to finish, then the daemon exits`;
    this.logger.warn('already stopping', { signal, what: `${signal} again: already stopping; ${then}` });
  }

  /** No new intents, orders in flight drained (bounded), then everything closed in reverse order. */
  private async shutdown(why: string): Promise<number> {
    const { cfg, logger } = this;
    this.starting = false;
    logger.info('stopping', { reason: why });
    for (const j of this.jobs) j.stop();
    this.status?.stop();
    const timedOut = await drainBots(this.slots, cfg.shutdownTimeoutMs);
    // One line per bot: its orders, fills, realised and unrealised PnL, fees and equity.
    for (const slot of this.slots) {
      const st = slot.bot?.status();
      if (st !== undefined) logger.info('bot summary', botSummary(st));
    }
    for (const svc of this.services) await svc.close().catch(() => undefined);
    await this.recorder?.close().catch((e: unknown) =>
      logger.error('the recorded candles could not be written', {
        error: e instanceof Error ? e.message : String(e),
      }),
    );
    this.runtime?.close();
    await this.http?.close();
    // Last write of the run: its presence at the next start says this one ended on its own.
    try {
      this.journalVenueClock();
      if (this.store !== undefined) markCleanStop(this.store, this.clock.now());
    } catch {
      // A journal that cannot be written was said already; the next start finds no marker and says so.
    }
    this.store?.close();
    this.unlock?.();
    await this.sim?.stop();
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
  }
}

export type { Logger };
