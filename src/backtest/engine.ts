// The backtest engine: recorded candles on a virtual clock through THE SAME strategy modules and risk
// gate as the daemon, into an in-process venue built on the simulator's matching core. Market orders
// fill at the next candle's open plus slippage; limit orders when the price trades through them. A
// strategy only ever sees closed candles. Per candle the work is float arithmetic; Decimal is used per
// order and per fill only, which is what makes millions of candles per second possible.
//
// The engine's parts, each in a module of its own: the options (options.ts), the lanes (lanes.ts), the pipeline
// (pipeline.ts), the records (collect-result.ts, round-trips.ts), the replay loop (replay.ts) and the result
// (assemble-result.ts). This module runs them in order.
import type { Subscription } from 'rxjs';
import { INTERVAL_MS } from '../api/index.js';
import type { Trader } from '../execution/trader.js';
import type { VirtualClock } from '../feeds/clock.js';
import { Decimal } from '../market/decimal.js';
import type { StrategyLogger } from '../strategy/contract.js';
import type { OrderIntent } from '../strategy/intent.js';
import type { PlotPoint } from '../strategy/plot.js';
import { effectiveParams, parseStrategyParams } from '../strategy/params.js';
import { mergeExitRules, mergeProtections, rulesAsData } from '../strategy/exits.js';
import { MemoryStrategyState } from '../strategy/state.js';
import { probing } from '../strategy/warm-up-probe.js';
import { candleLogger } from '../strategy/strategy-log.js';
import type { CandleSource } from '../data/format.js';
import { finalHoldings, openPositionsOf, symbolResults, tradeHashOf } from './assemble-result.js';
import { closeAtEnd } from './close-at-end.js';
import { collectResult } from './collect-result.js';
import { lanesOf, type Lane } from './lanes.js';
import { runMoney, type BacktestOptions } from './options.js';
import { backtestPipeline } from './pipeline.js';
import { PlotRecorder, plotSink } from './plots.js';
import { Replay } from './replay.js';
import { atRunInterval } from './run-interval.js';
import type { BacktestResult } from './result.js';

export type { BacktestOptions, StrategySignal } from './options.js';
export { tradeHashOf } from './assemble-result.js';
export { RoundTrips } from './round-trips.js';

const silent: StrategyLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/** An intent as one comparable string (the lookahead check compares them between runs). */
export function intentSignal(i: OrderIntent): string {
  const size =
    i.type === 'market' && i.side === 'buy' ? `${i.quoteAmount.toFixed()} quote` : i.quantity.toFixed();
  const price = i.type === 'limit' ? ` @ ${i.price.toFixed()}` : '';
  return `${i.side} ${i.type} ${size}${price} ${i.tag}`;
}

/**
 * Runs one backtest: the replay loop feeds the candles to the strategy and the market state to the one
 * trading pipeline (Trader), whose orders go to the in-process venue. Same inputs, same trades:
 * `meta.tradeHash` pins the fill list.
 *
 * Per time step (the candles of every symbol that open at one time, in symbol order):
 *   open:   each symbol's candle becomes its current bar; resting orders that it opens through fill;
 *           the strategy decides on that symbol's previous candle (informative candles it closes first),
 *           and its intents go through the pipeline at that open;
 *   close:  once the step's last candle is in, the venue moves to the step's close (market orders fill at
 *           the open plus slippage, limit orders when traded through), prices are marked, equity sampled.
 */
export async function runBacktest(o: BacktestOptions): Promise<BacktestResult> {
  const data: readonly CandleSource[] = Array.isArray(o.source) ? o.source : [o.source as CandleSource];
  // The run's interval, as a live bot's: finer data is resampled to it, other data refused.
  const { sources, resampledFrom } = atRunInterval(o, data);
  const params = parseStrategyParams(o.strategy, o.params ?? {}) as Record<string, unknown>;
  const warmUp = o.strategy.warmUp(params);
  const { lanes, interval } = lanesOf(o, sources, warmUp);
  const step = INTERVAL_MS[interval];
  const { capital, feeRate, fees } = runMoney(o);

  const pipeline = backtestPipeline(o, lanes, step, capital, fees);
  const { trader, portfolio, clock } = pipeline;
  // The result is a subscriber of the pipeline's events.
  const { intents, denials, firstDenials, fills, trips } = collectResult(trader);
  const { trades } = trips;
  const replay = new Replay(o, lanes, interval, pipeline, trips, warmUp);

  const plots = new PlotRecorder();
  const plot = o.chart === false ? undefined : plotSink(plots, lanes, () => replay.deciding);
  // Indicators the strategy builds with its state (before any candle) are watched too.
  const sub = probing(replay.probe, undefined, () =>
    subscribeStrategy(o, trader, replay, params, clock, plot),
  );

  const started = performance.now();
  await replay.run(sources);
  sub.unsubscribe();
  if (o.closeAtEnd === true) await closeAtEnd(pipeline, lanes, step, replay.equity);
  const { equity, n, first, lastT, inMarket, warmUpIntents } = replay;
  const single = lanes.length === 1;
  const runMs = performance.now() - started;

  const tradeHash = tradeHashOf(fills, !single);
  for (const l of lanes) portfolio.mark(l.symbol, new Decimal(l.lastClose || 0));
  const symbols = lanes.map((l) => l.symbol);
  return {
    meta: {
      strategy: o.strategy.name,
      params: effectiveParams(o.strategy.params, o.params ?? {}),
      dataset: o.dataset,
      symbol: symbols.join(','),
      ...(single ? {} : { symbols }),
      interval,
      ...(resampledFrom !== undefined ? { resampledFrom } : {}),
      ...(o.strategy.informative.length > 0 ? { informative: [...o.strategy.informative] } : {}),
      from: first,
      to: lastT,
      candles: n,
      capital,
      feeRate: feeRate.toFixed(),
      slippageBps: o.slippageBps ?? 0,
      ...(o.closeAtEnd === true ? { closeAtEnd: true as const } : {}),
      ...(o.margin === undefined ? {} : { category: 'MARGIN' as const, leverage: { ...o.margin.leverage } }),
      ...rulesInForce(o),
      tradeHash,
    },
    fills,
    trades,
    openPositions: openPositionsOf(trips, lanes),
    equity,
    inMarket: { ...inMarket },
    warmUp: {
      candles: warmUp.candles,
      source: warmUp.source,
      intents: warmUpIntents,
      ...(replay.warmUpShort !== undefined ? { short: replay.warmUpShort } : {}),
    },
    intents,
    denials,
    firstDenials,
    finalEquity: portfolio.equity().toFixed(),
    fees: portfolio.fees().toFixed(),
    chart: (lanes[0] as Lane).chart.bars,
    ...(single ? {} : { charts: Object.fromEntries(lanes.map((l) => [l.symbol, l.chart.bars])) }),
    ...optionalPlots(plots, lanes),
    bySymbol: symbolResults(lanes, fills, trades, portfolio),
    portfolio: finalHoldings(portfolio, lanes),
    timing: { runMs },
  };
}

/** The exits and protections in force: the strategy's declaration with the run's settings over it. */
function rulesInForce(o: BacktestOptions): {
  exits: Record<string, unknown>;
  protections: Record<string, unknown>;
} {
  return {
    exits: rulesAsData(mergeExitRules(o.strategy.exits, o.exits)) as Record<string, unknown>,
    protections: rulesAsData(mergeProtections(o.strategy.protections, o.protections)) as Record<
      string,
      unknown
    >,
  };
}

/** The plotted series on the lanes' chart bars, when the strategy plotted any. */
function optionalPlots(plots: PlotRecorder, lanes: readonly Lane[]): Pick<BacktestResult, 'plots'> {
  const bars = new Map(lanes.map((l) => [l.symbol, l.chart.bars]));
  const series = plots.series((s) => bars.get(s) ?? []);
  return series === undefined ? {} : { plots: series };
}

/**
 * The strategy's subscription: its context and streams from the replay, each intent it emits reported to
 * `onSignal`, dropped during the warm-up, else submitted to the pipeline at the clock's time.
 */
function subscribeStrategy(
  o: BacktestOptions,
  trader: Trader,
  replay: Replay,
  params: Record<string, unknown>,
  clock: VirtualClock,
  plot: ((p: PlotPoint) => void) | undefined,
): Subscription {
  const onSignal = o.onSignal;
  const ctx = trader.strategyContext({
    params,
    logger:
      o.strategyLog !== undefined ? candleLogger(o.strategyLog, () => replay.deciding) : (o.logger ?? silent),
    state: new MemoryStrategyState(),
    category: o.margin === undefined ? 'SPOT' : 'MARGIN',
    plot,
    expose:
      onSignal === undefined
        ? undefined
        : (name, value, candle) => {
            const c = candle ?? replay.deciding;
            if (c !== undefined) onSignal({ symbol: c.symbol, openTime: c.openTime, name, value });
          },
  });
  return o.strategy
    .run(ctx, {
      candles$: replay.candles$.observable,
      session$: replay.session$.observable,
      tickers$: replay.tickers$.observable,
      orders$: trader.feedback$(),
    })
    .subscribe({
      next: (i) => {
        const deciding = replay.deciding;
        if (onSignal !== undefined && deciding !== undefined)
          onSignal({
            symbol: deciding.symbol,
            openTime: deciding.openTime,
            name: 'intent',
            value: intentSignal(i),
          });
        // The warm-up (the strategy's own, and walk-forward's before an out-of-sample window): the strategy
        // sees the candles, nothing trades.
        if (!replay.mayTrade(i.symbol)) return;
        void trader.submit(i, clock.now());
      },
      error: (e: unknown) => (replay.failure = e),
    });
}
