// Prometheus metrics of the daemon (prom-client), on a registry of its own so tests can start several.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { ESTIMATED_FILL_PREFIX } from '../execution/fill-booking.js';
import { TRADING_STATES } from '../market/trading-state.js';
import { journalCounters, type Store } from '../store/index.js';

export class DaemonMetrics {
  readonly registry = new Registry();
  readonly polls = new Counter({
    name: 'tradebot_polls_total',
    help: 'Polls of the venue by feed',
    labelNames: ['feed'],
    registers: [this.registry],
  });
  readonly pollErrors = new Counter({
    name: 'tradebot_poll_errors_total',
    help: 'Failed polls by feed',
    labelNames: ['feed'],
    registers: [this.registry],
  });
  readonly rateLimited = new Counter({
    name: 'tradebot_rate_limited_total',
    help: 'Answers 429 from the venue by rate budget (each slows that budget down)',
    labelNames: ['group'],
    registers: [this.registry],
  });
  readonly intents = new Counter({
    name: 'tradebot_intents_total',
    help: 'Order intents emitted by strategies',
    labelNames: ['bot'],
    registers: [this.registry],
  });
  readonly denials = new Counter({
    name: 'tradebot_denials_total',
    help: 'Intents denied by the risk gate, by code',
    labelNames: ['bot', 'code'],
    registers: [this.registry],
  });
  readonly denialBursts = new Counter({
    name: 'tradebot_denial_bursts_total',
    help: 'Bursts of denials: a bot denied its denialBurst.count intents of one code within the window',
    labelNames: ['bot', 'code'],
    registers: [this.registry],
  });
  readonly orders = new Counter({
    name: 'tradebot_orders_total',
    help: 'Orders by outcome',
    labelNames: ['bot', 'status'],
    registers: [this.registry],
  });
  readonly fills = new Counter({
    name: 'tradebot_fills_total',
    help: 'Fills journaled, by source: venue (read from reality-fills) or estimated (fills: estimated)',
    labelNames: ['bot', 'source'],
    registers: [this.registry],
  });
  readonly tickToOrder = new Histogram({
    name: 'tradebot_tick_to_order_seconds',
    help: 'From the close of the triggering candle to the venue acknowledgement (venue clock)',
    labelNames: ['bot'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
    registers: [this.registry],
  });
  readonly equity = new Gauge({
    name: 'tradebot_equity',
    help: 'Equity of a bot in its quote coin',
    labelNames: ['bot'],
    registers: [this.registry],
  });
  readonly tradingState = new Gauge({
    name: 'tradebot_trading_state',
    help: "1 for the current trading state of a bot; PAUSED is 1 too while the operator's pause holds under a halt",
    labelNames: ['bot', 'state'],
    registers: [this.registry],
    // Read at each scrape from the running bots: a pause under a halt changes no state an event would carry.
    collect: () => {
      for (const [bot, s] of this.tradingStatesOf()) this.setState(bot, s.state, s.paused);
    },
  });
  readonly degraded = new Gauge({
    name: 'tradebot_bot_degraded',
    help: '1 while a bot is DEGRADED: one of its feeds (candles, tickers, fill sync) is older than its limit',
    labelNames: ['bot'],
    registers: [this.registry],
  });
  readonly marginRiskRatio = new Gauge({
    name: 'tradebot_margin_risk_ratio',
    help: "A MARGIN bot's risk ratio: its loans at the marks plus interest, over its assets (docs/margin.md)",
    labelNames: ['bot'],
    registers: [this.registry],
  });
  readonly marginWarnings = new Counter({
    name: 'tradebot_margin_warnings_total',
    help: "Times a MARGIN bot's risk ratio reached its pair's warningRiskRatio",
    labelNames: ['bot'],
    registers: [this.registry],
  });
  readonly liquidations = new Counter({
    name: 'tradebot_liquidations_total',
    help: "Fills of the venue's margin liquidations booked to a bot (its position closed by force; docs/margin.md)",
    labelNames: ['bot', 'symbol'],
    registers: [this.registry],
  });
  readonly feedAge = new Gauge({
    name: 'tradebot_feed_age_seconds',
    help: "Age of a bot's feed: time since its last candle, price or fill sync (venue clock)",
    labelNames: ['bot', 'feed'],
    registers: [this.registry],
  });
  readonly botRestarts = new Counter({
    name: 'tradebot_bot_restarts_total',
    help: 'Bots restarted after a failure',
    labelNames: ['bot'],
    registers: [this.registry],
  });

  /** Unexplained differences the drift checks found (src/drift): any is an alarm. */
  readonly driftUnexplained = new Counter({
    name: 'tradebot_drift_unexplained_total',
    help: "Differences between a bot's journal and the replay of the venue's candles that no known cause explains",
    labelNames: ['bot'],
    registers: [this.registry],
  });

  /** Each bot's in-memory state sizes (LiveBot.stateSizes), read at each scrape from `stateSizesOf`. */
  readonly stateSize = new Gauge({
    name: 'tradebot_bot_state_size',
    help: 'Entries a bot holds in memory, by part (bytes for strategyStateBytes); none should grow with time',
    labelNames: ['bot', 'part'],
    registers: [this.registry],
    collect: () => {
      for (const [bot, sizes] of this.stateSizesOf())
        for (const [part, n] of Object.entries(sizes)) this.stateSize.set({ bot, part }, n);
    },
  });
  /**
   * The account's fills as the fill router booked them (FillRouter.accounting), read at each scrape: fills,
   * exact, ambiguous, split, unbooked (parts booked to the deployment, no bot) and mismatches (venue fills
   * the journal disagrees with: an alarm).
   */
  readonly fillAttribution = new Gauge({
    name: 'tradebot_fill_attribution',
    help: 'Venue fills booked since the start, by how: fills, exact, ambiguous, split, unbooked (to the deployment), mismatches',
    labelNames: ['outcome'],
    registers: [this.registry],
    collect: () => {
      const a = this.fillAccountingOf();
      if (a !== undefined)
        for (const [outcome, n] of Object.entries(a)) this.fillAttribution.set({ outcome }, n);
    },
  });
  /** The journal's group commits (Store.groupCommits), read at each scrape: batch sizes at a candle boundary. */
  readonly groupCommits = new Gauge({
    name: 'tradebot_journal_group_commits',
    help: "The journal's commits of orders before their send since the start: commits, writes (orders) in them, largest (most orders in one)",
    labelNames: ['count'],
    registers: [this.registry],
    collect: () => {
      const g = this.groupCommitsOf();
      if (g !== undefined) for (const [count, n] of Object.entries(g)) this.groupCommits.set({ count }, n);
    },
  });
  /** Set when the journal opens (seedFromJournal): its group commits' counts. */
  groupCommitsOf: () => Readonly<Record<string, number>> | undefined = () => undefined;
  /** Set by the daemon: the fill router's counts, once the venue is connected. */
  fillAccountingOf: () => Readonly<Record<string, number>> | undefined = () => undefined;
  /** Set by the daemon: its running bots' state sizes, by bot name. */
  stateSizesOf: () => Iterable<readonly [string, Record<string, number>]> = () => [];

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** Set by the daemon: its running bots' trading states and whether the operator paused them. */
  tradingStatesOf: () => Iterable<readonly [string, { state: string; paused: boolean }]> = () => [];

  /**
   * Starts the counters of intents, denials, orders and fills at the journal's totals, so each is the
   * deployment's count across restarts (a counter that fell to 0 at each restart read as a reset to Prometheus,
   * and as a deployment that had done nothing to a person). Called when the journal opens, before any event.
   */
  seedFromJournal(store: Store): void {
    this.groupCommitsOf = () => ({ ...store.groupCommits });
    for (const c of journalCounters(store, ESTIMATED_FILL_PREFIX)) {
      const { bot } = c;
      if (c.intents > 0) this.intents.inc({ bot }, c.intents);
      for (const [code, n] of Object.entries(c.denials)) this.denials.inc({ bot, code }, n);
      for (const [status, n] of Object.entries(c.orders)) this.orders.inc({ bot, status }, n);
      for (const [source, n] of Object.entries(c.fills)) if (n > 0) this.fills.inc({ bot, source }, n);
      for (const [symbol, n] of Object.entries(c.liquidations)) this.liquidations.inc({ bot, symbol }, n);
    }
  }

  setState(bot: string, state: string, paused = false): void {
    for (const s of TRADING_STATES)
      this.tradingState.set({ bot, state: s }, s === state || (s === 'PAUSED' && paused) ? 1 : 0);
  }
}
