// The replay side of the drift monitor: the venue's closed candles of a span (and the warm-up before it),
// fetched from history-candles in a bounded number of requests through the client (its shared limiter), and
// run through the bot's strategy, parameters, exits and risk limits by the backtest engine, from where the
// journal says the bot stood at the span's start.
import { INTERVAL_MS, planCandleWindows, type CandleInterval, type Instrument } from '../api/index.js';
import { runBacktest } from '../backtest/engine.js';
import { historyCandlesRange, type RestClient } from '../client/index.js';
import { FORMAT_NAME, FORMAT_VERSION, appendCandle, newBatch, type CandleSource } from '../data/format.js';
import { warmUpStart } from '../feeds/closed-candles.js';
import { candleFromWire } from '../market/candle.js';
import { Decimal } from '../market/decimal.js';
import type { PortfolioFill } from '../portfolio/portfolio.js';
import type { RiskLimits } from '../risk/limits.js';
import type { Strategy } from '../strategy/contract.js';
import type { ExitRules, Protections } from '../strategy/exits.js';
import { parseStrategyParams } from '../strategy/params.js';
import type { DriftFill, ReplayIntent, VenueCandle } from './compare.js';

/** A bot as the drift monitor replays it: what its live pipeline is built from. */
export interface DriftBot {
  readonly name: string;
  readonly strategy: Strategy;
  readonly params: Record<string, unknown>;
  readonly symbols: readonly string[];
  readonly interval: CandleInterval;
  readonly quoteCoin: string;
  readonly capital: string;
  readonly feeRate: string;
  readonly makerFeeRate?: string | undefined;
  readonly risk: RiskLimits;
  readonly exits?: ExitRules | undefined;
  readonly protections?: Protections | undefined;
  readonly maxSignalAgeMs?: number | undefined;
}

/** The most history-candles requests one bot's drift check may make (the span and its warm-up, all symbols). */
export const MAX_DRIFT_REQUESTS = 400;

/** Thrown when a span would cost more requests than MAX_DRIFT_REQUESTS; the message says what to do. */
export class DriftSpanError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DriftSpanError';
  }
}

/** The venue's closed candles of one symbol, as the drift monitor holds them (numbers for the engine, text for the report). */
export interface VenueSeries {
  readonly symbol: string;
  readonly instrument: Instrument;
  /** Warm-up and span, ascending, closed by `to` only. */
  readonly candles: readonly VenueCandle[];
}

/** Where the replay's history begins: the strategy's warm-up before `from` (base and informative intervals). */
export function replayStart(bot: DriftBot, from: number): number {
  const params = parseStrategyParams(bot.strategy, bot.params) as Record<string, unknown>;
  const warm = bot.strategy.warmUp(params).candles;
  return warmUpStart(from, bot.interval, bot.strategy.informative, warm);
}

/** How many history-candles requests a span costs the venue (every symbol, warm-up included). */
export function requestsFor(bot: DriftBot, from: number, to: number): number {
  const step = INTERVAL_MS[bot.interval];
  const start = replayStart(bot, from);
  const last = to - step;
  if (last < start) return 0;
  return planCandleWindows(start, last, bot.interval).length * bot.symbols.length;
}

/**
 * The venue's closed candles of every symbol of the bot over [warm-up start, to): history-candles windows
 * through the client (its rate limiter), a row still forming at `to` left out.
 */
export async function fetchVenueCandles(
  client: Pick<RestClient, 'historyCandles' | 'instruments'>,
  bot: DriftBot,
  from: number,
  to: number,
): Promise<VenueSeries[]> {
  const requests = requestsFor(bot, from, to);
  if (requests > MAX_DRIFT_REQUESTS)
    throw new DriftSpanError(
      `bot ${bot.name}: the span and its warm-up take ${requests} history-candles requests, more than the ${MAX_DRIFT_REQUESTS} a drift check may cost the venue; give a later --since`,
    );
  const step = INTERVAL_MS[bot.interval];
  const start = replayStart(bot, from);
  const instruments = await client.instruments({ category: 'SPOT' });
  const out: VenueSeries[] = [];
  for (const symbol of bot.symbols) {
    const instrument = instruments.find((i) => i.symbol === symbol);
    if (instrument === undefined)
      throw new DriftSpanError(`bot ${bot.name}: the venue lists no SPOT instrument ${symbol}`);
    const candles: VenueCandle[] = [];
    if (to - step >= start)
      for await (const w of historyCandlesRange(client as RestClient, {
        category: 'SPOT',
        symbol,
        interval: bot.interval,
        startTime: start,
        endTime: to - step,
      })) {
        const c = candleFromWire(w, symbol, bot.interval);
        if (c.openTime + step > to) continue;
        candles.push({
          symbol,
          openTime: c.openTime,
          open: w[1],
          high: w[2],
          low: w[3],
          close: w[4],
          volume: w[5],
        });
      }
    out.push({ symbol, instrument, candles });
  }
  return out;
}

/** A candle source over fetched candles (the backtest engine's input). */
function sourceOf(s: VenueSeries, interval: CandleInterval): CandleSource {
  return {
    meta: {
      format: FORMAT_NAME,
      version: FORMAT_VERSION,
      symbol: s.symbol,
      category: 'SPOT',
      interval,
      instrument: s.instrument,
      source: 'venue history-candles (drift replay)',
    },
    async *batches() {
      const b = newBatch(Math.max(1, s.candles.length));
      for (const c of s.candles)
        appendCandle(b, c.openTime, +c.open, +c.high, +c.low, +c.close, +c.volume, +c.close * +c.volume);
      yield b;
    },
  };
}

/** What the replay decided: its intents (each with its candle) and its fills. */
export interface ReplaySide {
  readonly intents: ReplayIntent[];
  readonly fills: DriftFill[];
}

/**
 * Runs the venue's candles through the backtest engine with the bot's strategy, parameters, exits and
 * limits; intents before `from` are the warm-up's (not sent), the portfolio starts from `openingFills`.
 */
export async function replayBot(
  bot: DriftBot,
  series: readonly VenueSeries[],
  from: number,
  openingFills: readonly PortfolioFill[],
): Promise<ReplaySide> {
  const step = INTERVAL_MS[bot.interval];
  const withCandles = series.filter((s) => s.candles.length > 0);
  if (withCandles.length === 0) return { intents: [], fills: [] };
  const r = await runBacktest({
    source: withCandles.map((s) => sourceOf(s, bot.interval)),
    dataset: `drift:${bot.name}`,
    strategy: bot.strategy,
    interval: bot.interval,
    params: bot.params,
    capital: bot.capital,
    feeRate: bot.feeRate,
    makerFeeRate: bot.makerFeeRate,
    risk: bot.risk,
    exits: bot.exits,
    protections: bot.protections,
    bot: bot.name,
    chart: false,
    // The candle opening at `from` is decided at its close: the first decision of the span.
    tradeFrom: from + step,
    openingFills,
  });
  return {
    intents: r.intents.map((i) => ({
      symbol: i.symbol,
      side: i.side,
      tag: i.tag,
      decision: i.approved ? 'approved' : (i.code ?? 'denied'),
      candle: i.ts - step,
    })),
    fills: r.fills.map((f) => ({
      ts: f.ts,
      symbol: f.symbol,
      side: f.side,
      tag: f.tag,
      price: new Decimal(f.price),
      size: new Decimal(f.size),
      fee: new Decimal(f.fee),
      key: `${f.ts}|${f.symbol}|${f.side}|${f.tag}`,
    })),
  };
}
