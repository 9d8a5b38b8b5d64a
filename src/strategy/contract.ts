// The strategy contract (DESIGN principle 6): a strategy declares its name, parameters (zod, defaults and
// descriptions), candle intervals and `run(ctx, inputs) => Observable<OrderIntent>`. The same module runs
// in the daemon and in the backtester. `defineStrategy` is the callback style that compiles to it.
import { Observable } from 'rxjs';
import type { z } from 'zod';
import type { CandleInterval, Ticker } from '../api/index.js';
import { CANDLE_INTERVALS } from '../api/index.js';
import type { Candle } from '../market/candle.js';
import type { InstrumentRules } from '../market/instrument-rules.js';
import { resampleProblem } from '../market/resample.js';
import type { SessionState } from '../market/sessions.js';
import type { Clock } from '../feeds/clock.js';
import type { Decimal } from '../market/decimal.js';
import type { StrategyPortfolioView } from '../portfolio/dust-view.js';
import {
  parseExitRules,
  parseProtections,
  type ExitReason,
  type ExitRules,
  type ExitRulesInput,
  type Protections,
  type ProtectionsInput,
} from './exits.js';
import type { OrderIntent, Side, TradeCategory } from './intent.js';
import { assertIntent } from './intent-builders.js';
import type { ParamsSchema } from './params.js';
import { parseSearchSpace, type SearchSpace, type SearchSpaceInput } from './search-space.js';
import type { StrategyPlot } from './plot.js';
import { paramsSchemaProblems } from './params.js';
import type { StrategyState } from './state.js';
import { CALLBACK_SPEC_KEYS, STREAM_SPEC_KEYS, specKeyProblems } from './spec-keys.js';
import { callerFile, hookFeeder, StrategyRuntimeError, type FailureScene } from './failure.js';

export { StrategyRuntimeError } from './failure.js';
import { derivedWarmUp, startupCandlesProblem, type StartupCandles, type WarmUp } from './warm-up.js';

/** Structured fields of a log line. */
export type LogFields = Readonly<Record<string, unknown>>;

/** The logger a strategy sees: stable message phrases plus fields. Never log per candle. */
export interface StrategyLogger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/**
 * The one context object a strategy gets. New fields are only ever added (optional for the runner), so
 * old strategies keep working.
 */
export interface StrategyContext<P = unknown> extends StrategyPlot {
  /** Name of the bot running the strategy. */
  readonly bot: string;
  /** The parsed parameters (defaults applied; money parameters are Decimals). */
  readonly params: P;
  readonly clock: Clock;
  readonly logger: StrategyLogger;
  /** Symbols the bot trades; candles$ carries candles of all of them. */
  readonly symbols: readonly string[];
  /** The bot's category; the contract stamps it on every intent. */
  readonly category: TradeCategory;
  /** Instrument rules of a symbol (precision, minimums, status), undefined when not known yet. */
  rules(symbol: string): InstrumentRules | undefined;
  /**
   * Positions and cash as the runner knows them (fills applied). A position below the venue's minimum tradable
   * quantity is dust: it reads as flat here, and `portfolio.dust(symbol)` gives it (see src/market/dust.ts).
   */
  readonly portfolio: StrategyPortfolioView;
  /** The latest US session state, undefined when not known yet. */
  session(): SessionState | undefined;
  /** Persistent JSON state of this bot's strategy; survives restarts. */
  readonly state: StrategyState;
  /**
   * Exposes an indicator value the strategy computed, for the lookahead check (`tradebot lookahead`):
   * the value belongs to `candle` (default: the candle being decided). Cheap; a no-op in a live bot.
   */
  expose(name: string, value: number, candle?: Candle): void;
  /** The coin the bot's cash and equity are counted in (e.g. "USDT"). */
  readonly quoteCoin: string;
  /**
   * The bot's limit orders on a symbol that may still be resting at the venue (oldest first), with what
   * is filled of them. The venue has no cancel endpoint: a resting order stays until it fills.
   */
  openOrders(symbol: string): readonly OpenOrderView[];
  /** Quote cash free for a new buy: the cash minus what the bot's resting limit buys hold. */
  freeCash(): Decimal;
  /** Unrealised PnL of a symbol's position at the last price the pipeline saw (zero when flat). */
  unrealisedPnl(symbol: string): Decimal;
}

/** A limit order of the bot that may still be resting at the venue. */
export interface OpenOrderView {
  readonly clientOid: string;
  readonly symbol: string;
  readonly side: Side;
  readonly price: Decimal;
  /** Base quantity ordered. */
  readonly size: Decimal;
  /** Base quantity filled so far. */
  readonly filled: Decimal;
  /** When it was placed (pipeline clock). */
  readonly placedAt: number;
  readonly tag: string;
}

/** A fill of one of the strategy's orders (or of a pipeline exit), as the strategy sees it. */
export interface FillFeedback {
  readonly symbol: string;
  readonly side: Side;
  readonly price: Decimal;
  readonly size: Decimal;
  /** Fee in the quote coin. */
  readonly fee: Decimal;
  readonly tag: string;
  readonly clientOid: string | undefined;
  /** Set when the pipeline's exit (stop-loss, take-profit ...) closed the position. */
  readonly exitReason: ExitReason | undefined;
  readonly ts: number;
}

/**
 * What happened to the strategy's intents, in order: the gate denied one (a tradebot code and a
 * sentence), the venue acknowledged it (`placed`) or refused it (`refused`, the venue's code), or an
 * order filled.
 */
export type OrderFeedback =
  | {
      readonly type: 'denied';
      readonly ts: number;
      readonly intent: OrderIntent;
      /** The gate's code, e.g. MAX_NOTIONAL_ORDER (see DENIAL_CODES in src/risk/checks.ts). */
      readonly code: string;
      readonly message: string;
    }
  | {
      readonly type: 'placed';
      readonly ts: number;
      readonly intent: OrderIntent;
      readonly clientOid: string;
      readonly orderId: string;
    }
  | {
      readonly type: 'refused';
      readonly ts: number;
      readonly intent: OrderIntent;
      readonly clientOid: string;
      /** The venue's error code. */
      readonly code: string;
      readonly message: string;
    }
  | { readonly type: 'fill'; readonly ts: number; readonly fill: FillFeedback };

/** The input streams of a strategy. */
export interface StrategyInputs {
  /**
   * Closed candles of all the bot's symbols, in time order, each exactly once. With `informative`
   * intervals, the higher candles come on this stream too (tell them by `candle.interval`), each once it
   * has closed and just before the base candle that closes with it.
   */
  readonly candles$: Observable<Candle>;
  /** US session changes (pre_market, regular, after_hours, overnight, closed). */
  readonly session$: Observable<SessionState>;
  /** Latest tickers (wire strings), when the runner polls them. */
  readonly tickers$?: Observable<Ticker> | undefined;
  /** What became of the strategy's intents (denials, placements, refusals, fills), from the pipeline. */
  readonly orders$?: Observable<OrderFeedback> | undefined;
}

/** Brand that marks an object built by `createStrategy`/`defineStrategy` (checked by the loader). */
export const STRATEGY_BRAND = Symbol.for('tradebot.strategy');

/** A strategy: the contract every runner (daemon, backtester) talks to. */
export interface Strategy<S extends ParamsSchema = ParamsSchema> {
  readonly [STRATEGY_BRAND]: true;
  /** Kebab-case name, e.g. "ma-crossover". */
  readonly name: string;
  /** One or two sentences for `--help`, docs and reports. */
  readonly description: string;
  /** The parameters: a zod object whose every field has a default and a description. */
  readonly params: S;
  /**
   * Candle intervals the strategy works on; the runner feeds candles of the bot's configured interval,
   * which must be one of these. The first is the suggested default.
   */
  readonly intervals: readonly CandleInterval[];
  /** Exits the pipeline evaluates for this strategy's positions (a bot's YAML may override each). */
  readonly exits?: ExitRules | undefined;
  /** Protections (entry locks) the pipeline applies for this strategy (a bot's YAML may override each). */
  readonly protections?: Protections | undefined;
  /** The default space of `tradebot hyperopt` over its parameters, exits and protections (see search-space.ts). */
  readonly searchSpace?: SearchSpace | undefined;
  /**
   * Informative intervals (e.g. `['1H']` beside a `5m` base): the runner resamples them from the base
   * candles and delivers each higher candle on `candles$` once it has closed. Empty when none.
   */
  readonly informative: readonly CandleInterval[];
  /**
   * The warm-up with these (parsed) parameters: candles of each interval the strategy reads it must see
   * before its intents are sent. Declared by `startupCandles`, else derived (see `derivedWarmUp`).
   * Throws a StrategyDefinitionError when a declared function answers something else than a count.
   */
  warmUp(params: z.output<S>): WarmUp;
  /**
   * Starts the strategy for one bot. Cold: nothing happens until subscribed, and unsubscribing stops it.
   * Every intent it emits carries the bot's name and category.
   */
  run(ctx: StrategyContext<z.output<S>>, inputs: StrategyInputs): Observable<OrderIntent>;
}

/** The declaration of a stream-style strategy. */
export interface StrategySpec<S extends ParamsSchema> {
  readonly name: string;
  readonly description: string;
  readonly params: S;
  readonly intervals: readonly CandleInterval[];
  /** Informative intervals, resampled from the base candles (see `Strategy.informative`). */
  readonly informative?: readonly CandleInterval[] | undefined;
  /** Declarative exits, e.g. `{ stopLoss: '0.05', takeProfit: '0.1' }` (see docs/strategies.md). */
  readonly exits?: ExitRulesInput | undefined;
  /** Protections, e.g. `{ cooldownAfterStop: 3 }` (see docs/strategies.md). */
  readonly protections?: ProtectionsInput | undefined;
  /** The default hyperopt space, e.g. `{ fast: 'int(5,50)', 'exits.stopLoss': 'real(0.01,0.1)' }` (docs/research.md). */
  readonly searchSpace?: SearchSpaceInput | undefined;
  /** Warm-up (see `CallbackStrategySpec.startupCandles`). */
  readonly startupCandles?: StartupCandles<z.output<S>> | undefined;
  run(ctx: StrategyContext<z.output<S>>, inputs: StrategyInputs): Observable<OrderIntent>;
}

/** Thrown when a strategy declaration breaks the contract; the message says what to change. */
export class StrategyDefinitionError extends TypeError {
  override readonly name = 'StrategyDefinitionError';
}

const NAME_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Problems of a would-be strategy declaration (empty when it follows the contract). */
export function strategyProblems(spec: unknown): string[] {
  if (typeof spec !== 'object' || spec === null) return ['a strategy must be an object'];
  const s = spec as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof s.name !== 'string' || !NAME_RE.test(s.name)) {
    problems.push(`name must be kebab-case such as "ma-crossover", got ${JSON.stringify(s.name)}`);
  }
  if (typeof s.description !== 'string' || s.description.trim() === '') {
    problems.push('description must be a non-empty sentence');
  }
  problems.push(...paramsSchemaProblems(s.params));
  const intervals = s.intervals;
  if (!Array.isArray(intervals) || intervals.length === 0) {
    problems.push(`intervals must be a non-empty list of ${CANDLE_INTERVALS.join(', ')}`);
  } else {
    for (const i of intervals as unknown[]) {
      if (!(CANDLE_INTERVALS as readonly unknown[]).includes(i)) {
        problems.push(`interval ${JSON.stringify(i)} is not one of ${CANDLE_INTERVALS.join(', ')}`);
      }
    }
  }
  if (s.informative !== undefined) {
    if (!Array.isArray(s.informative)) {
      problems.push(`informative must be a list of ${CANDLE_INTERVALS.join(', ')}`);
    } else {
      for (const i of s.informative as unknown[]) {
        if (!(CANDLE_INTERVALS as readonly unknown[]).includes(i)) {
          problems.push(
            `informative interval ${JSON.stringify(i)} is not one of ${CANDLE_INTERVALS.join(', ')}`,
          );
        }
      }
    }
  }
  if (s.startupCandles !== undefined && typeof s.startupCandles !== 'function') {
    const p = startupCandlesProblem(s.startupCandles);
    if (p !== undefined) problems.push(`startupCandles ${p} (or a function of the parameters)`);
  }
  if (typeof s.run !== 'function')
    problems.push('run(ctx, inputs) must be a function returning an Observable');
  return problems;
}

function assertSpec(spec: unknown): void {
  const problems = strategyProblems(spec);
  if (typeof spec === 'object' && spec !== null) problems.push(...specKeyProblems(spec, STREAM_SPEC_KEYS));
  if (problems.length > 0) {
    const name = (spec as { name?: unknown } | null)?.name;
    throw new StrategyDefinitionError(
      `strategy ${JSON.stringify(name ?? '?')} breaks the contract:\n  - ${problems.join('\n  - ')}`,
    );
  }
}

/** Stamps the bot's name and category on an intent after checking it (runs once per intent, not per candle). */
function stamp(ctx: StrategyContext<unknown>, intent: OrderIntent): OrderIntent {
  assertIntent(intent);
  // Object.assign, not a spread: V8 (Node 20) copies with a spread that overrides a key ten times slower.
  return Object.assign({}, intent, { bot: ctx.bot, category: ctx.category });
}

/**
 * Builds a strategy from a stream-style declaration, checking it against the contract.
 *
 * @example
 * export default createStrategy({
 *   name: 'buy-every-candle', description: 'Buys 10 USDT on every closed candle.',
 *   params: z.object({}), intervals: ['1m'],
 *   run: (ctx, { candles$ }) => candles$.pipe(map((c) => buyMarket(c.symbol, new Decimal('10'), 'dca', 'every candle'))),
 * });
 */
export function createStrategy<S extends ParamsSchema>(spec: StrategySpec<S>): Strategy<S> {
  assertSpec(spec);
  const inner = spec.run;
  let exits: ExitRules | undefined;
  let protections: Protections | undefined;
  let searchSpace: SearchSpace | undefined;
  try {
    searchSpace =
      spec.searchSpace === undefined ? undefined : parseSearchSpace(spec.searchSpace, 'searchSpace');
    exits = spec.exits === undefined ? undefined : parseExitRules(spec.exits, 'exits');
    protections =
      spec.protections === undefined ? undefined : parseProtections(spec.protections, 'protections');
  } catch (err) {
    throw new StrategyDefinitionError(
      `strategy ${JSON.stringify(spec.name)} breaks the contract: ${(err as Error).message}`,
    );
  }
  const startup = spec.startupCandles;
  return Object.freeze({
    [STRATEGY_BRAND]: true as const,
    name: spec.name,
    description: spec.description,
    params: spec.params,
    intervals: Object.freeze([...spec.intervals]),
    informative: Object.freeze([...(spec.informative ?? [])]),
    ...(exits !== undefined ? { exits } : {}),
    ...(protections !== undefined ? { protections } : {}),
    ...(searchSpace !== undefined ? { searchSpace } : {}),
    warmUp(params: z.output<S>): WarmUp {
      if (startup === undefined) return derivedWarmUp(params);
      if (typeof startup === 'number') return { candles: startup, source: 'declared' };
      let n: unknown;
      try {
        n = startup(params);
      } catch (err) {
        throw new StrategyDefinitionError(
          `strategy "${spec.name}": startupCandles(params) failed: ${err instanceof Error ? err.message : String(err)}`,
        );
      }
      const problem = startupCandlesProblem(n);
      if (problem !== undefined)
        throw new StrategyDefinitionError(
          `strategy "${spec.name}": startupCandles(params) ${problem}; it must answer the candles the strategy needs before it may trade`,
        );
      return { candles: n as number, source: 'declared' };
    },
    run(ctx: StrategyContext<z.output<S>>, inputs: StrategyInputs): Observable<OrderIntent> {
      return new Observable<OrderIntent>((subscriber) => {
        const out = inner(ctx, inputs);
        if (
          !(out instanceof Observable) &&
          typeof (out as { subscribe?: unknown } | null)?.subscribe !== 'function'
        ) {
          subscriber.error(
            new StrategyDefinitionError(`strategy "${spec.name}": run() must return an Observable`),
          );
          return undefined;
        }
        return out.subscribe({
          next: (intent) => {
            let stamped: OrderIntent;
            try {
              stamped = stamp(ctx, intent);
            } catch (err) {
              subscriber.error(err);
              return;
            }
            subscriber.next(stamped);
          },
          error: (err: unknown) => subscriber.error(err),
          complete: () => subscriber.complete(),
        });
      });
    },
  });
}

/** Emits one order intent (from `buyMarket`, `sellMarket`, `limit` ...). */
export type Emit = (intent: OrderIntent) => void;

/** The declaration of a callback-style strategy. `T` is the per-run state built by `init`. */
export interface CallbackStrategySpec<S extends ParamsSchema, T = undefined> {
  readonly name: string;
  readonly description: string;
  readonly params: S;
  readonly intervals: readonly CandleInterval[];
  /** Informative intervals: their candles reach `onCandle` too, once closed (tell them by `candle.interval`). */
  readonly informative?: readonly CandleInterval[] | undefined;
  /** Declarative exits, e.g. `{ stopLoss: '0.05', takeProfit: '0.1' }` (see docs/strategies.md). */
  readonly exits?: ExitRulesInput | undefined;
  /** Protections, e.g. `{ cooldownAfterStop: 3 }` (see docs/strategies.md). */
  readonly protections?: ProtectionsInput | undefined;
  /** The default hyperopt space, e.g. `{ fast: 'int(5,50)', 'exits.stopLoss': 'real(0.01,0.1)' }` (docs/research.md). */
  readonly searchSpace?: SearchSpaceInput | undefined;
  /**
   * Warm-up: the candles of each interval the strategy reads (its base interval and each informative one)
   * it must see before its intents are sent, a number or a function of the parameters, e.g.
   * `(p) => p.slow`. The backtest sends no intent before it; a live bot backfills it before trading.
   * Default: the largest whole-number parameter named `...period`, `...slow` or `...length`, else 0.
   */
  readonly startupCandles?: StartupCandles<z.output<S>> | undefined;
  /**
   * Builds the per-run state (indicators per symbol ...) when a bot starts. Keep state here, not at module
   * level: two bots may run the same strategy at once.
   */
  init?(ctx: StrategyContext<z.output<S>>): T;
  /**
   * Called for every closed candle (of the base interval, and of each informative interval once it has
   * closed). Hot path: float arithmetic and indicator updates only.
   */
  onCandle(candle: Candle, ctx: StrategyContext<z.output<S>>, emit: Emit, state: T): void;
  /** Called on each session change. */
  onSession?(session: SessionState, ctx: StrategyContext<z.output<S>>, emit: Emit, state: T): void;
  /** Called on each ticker, when the runner provides tickers$. */
  onTicker?(ticker: Ticker, ctx: StrategyContext<z.output<S>>, emit: Emit, state: T): void;
  /** Called when the gate denied one of the strategy's intents (its code and sentence). */
  onDenied?(
    denial: Extract<OrderFeedback, { type: 'denied' }>,
    ctx: StrategyContext<z.output<S>>,
    emit: Emit,
    state: T,
  ): void;
  /** Called when the venue acknowledged (`placed`) or refused (`refused`) one of the strategy's orders. */
  onOrder?(
    order: Extract<OrderFeedback, { type: 'placed' | 'refused' }>,
    ctx: StrategyContext<z.output<S>>,
    emit: Emit,
    state: T,
  ): void;
  /** Called on each fill of the bot's orders, pipeline exits included (`fill.exitReason`). */
  onFill?(fill: FillFeedback, ctx: StrategyContext<z.output<S>>, emit: Emit, state: T): void;
}

/**
 * The callback style: declare `onCandle` (and optionally `onSession`, `onTicker`, `init`) and get a
 * strategy of the same contract. Session changes are subscribed before candles, so a synchronous
 * source delivers the session first. A throw in a hook ends the run with a StrategyRuntimeError.
 *
 * @example
 * export default defineStrategy({
 *   name: 'dip-buyer', description: 'Buys when a candle closes 2% under its open.',
 *   params: z.object({ quoteAmount: decimalParam('50', 'quote coin per buy') }), intervals: ['5m'],
 *   onCandle(c, ctx, emit) {
 *     if (c.close < c.open * 0.98) emit(buyMarket(c.symbol, ctx.params.quoteAmount, 'dip', 'closed 2% under open'));
 *   },
 * });
 */
export function defineStrategy<S extends ParamsSchema, T = undefined>(
  spec: CallbackStrategySpec<S, T>,
): Strategy<S> {
  checkOnCandle(spec);
  // The strategy's own file: a failure names the place in it (see StrategyRuntimeError).
  const file = callerFile(new Error().stack);
  // The hooks as declared now: the strategy runs these, whatever becomes of the spec object later.
  const hooks = hooksOf(spec);
  const { name } = spec;
  return createStrategy<S>({
    name,
    description: spec.description,
    params: spec.params,
    intervals: spec.intervals,
    informative: spec.informative,
    ...(spec.exits !== undefined ? { exits: spec.exits } : {}),
    ...(spec.protections !== undefined ? { protections: spec.protections } : {}),
    ...(spec.searchSpace !== undefined ? { searchSpace: spec.searchSpace } : {}),
    ...(spec.startupCandles !== undefined ? { startupCandles: spec.startupCandles } : {}),
    run(ctx, inputs) {
      return runHooks({ name, file }, hooks, ctx, inputs);
    },
  });
}

/**
 * `onCandle` is the one hook a callback strategy must declare, and every key must be one it knows: a
 * misspelt hook would never be called.
 */
function checkOnCandle(spec: CallbackStrategySpec<ParamsSchema, unknown>): void {
  if (typeof spec.onCandle !== 'function') {
    throw new StrategyDefinitionError(
      `strategy ${JSON.stringify(spec.name)}: onCandle(candle, ctx, emit) must be a function`,
    );
  }
  const problems = specKeyProblems(spec, CALLBACK_SPEC_KEYS);
  if (problems.length > 0)
    throw new StrategyDefinitionError(
      `strategy ${JSON.stringify(spec.name)} breaks the contract:\n  - ${problems.join('\n  - ')}`,
    );
}

type HookName = 'init' | 'onCandle' | 'onSession' | 'onTicker' | 'onDenied' | 'onOrder' | 'onFill';
/** A callback strategy's hooks, each undefined when not declared. */
type Hooks<S extends ParamsSchema, T> = { readonly [K in HookName]: CallbackStrategySpec<S, T>[K] };

function hooksOf<S extends ParamsSchema, T>(spec: CallbackStrategySpec<S, T>): Hooks<S, T> {
  const { init, onCandle, onSession, onTicker, onDenied, onOrder, onFill } = spec;
  return { init, onCandle, onSession, onTicker, onDenied, onOrder, onFill };
}

/**
 * A callback strategy's run: `init`, then each input fed to its hook (session changes before candles); it
 * completes with its candles.
 */
function runHooks<S extends ParamsSchema, T>(
  who: { readonly name: string; readonly file: string | undefined },
  hooks: Hooks<S, T>,
  ctx: StrategyContext<z.output<S>>,
  inputs: StrategyInputs,
): Observable<OrderIntent> {
  const { onCandle, onSession, onTicker, onDenied, onOrder, onFill, init } = hooks;
  return new Observable<OrderIntent>((subscriber) => {
    const emit: Emit = (intent) => subscriber.next(intent);
    let state: T;
    try {
      state = (init === undefined ? undefined : init(ctx)) as T;
    } catch (err) {
      subscriber.error(new StrategyRuntimeError(who.name, 'init', err, { file: who.file }));
      return undefined;
    }
    const at = (symbol?: string): FailureScene => ({ symbol, time: ctx.clock.now() });
    const feed = hookFeeder(who, subscriber);
    if (onSession !== undefined)
      subscriber.add(
        inputs.session$.subscribe(
          feed<SessionState>(
            () => ['onSession', at()],
            (s) => onSession(s, ctx, emit, state),
          ),
        ),
      );
    if (onTicker !== undefined && inputs.tickers$ !== undefined)
      subscriber.add(
        inputs.tickers$.subscribe(
          feed<Ticker>(
            (t) => ['onTicker', at(t.symbol)],
            (t) => onTicker(t, ctx, emit, state),
          ),
        ),
      );
    if (
      (onDenied !== undefined || onOrder !== undefined || onFill !== undefined) &&
      inputs.orders$ !== undefined
    )
      subscriber.add(
        inputs.orders$.subscribe(
          feed<OrderFeedback>(
            (e) => [
              e.type === 'denied' ? 'onDenied' : e.type === 'fill' ? 'onFill' : 'onOrder',
              e.type === 'fill' ? at(e.fill.symbol) : at(e.intent.symbol),
            ],
            (e) => {
              if (e.type === 'denied') onDenied?.(e, ctx, emit, state);
              else if (e.type === 'fill') onFill?.(e.fill, ctx, emit, state);
              else onOrder?.(e, ctx, emit, state);
            },
          ),
        ),
      );
    // The run completes with its candles: a backtest ends when its data ends.
    subscriber.add(
      inputs.candles$.subscribe(
        feed<Candle>(
          (c) => ['onCandle', { symbol: c.symbol, time: c.openTime, candle: true }],
          (c) => onCandle(c, ctx, emit, state),
          () => subscriber.complete(),
        ),
      ),
    );
    return undefined;
  });
}

/** Whether a value is a strategy built by `createStrategy`/`defineStrategy`. */
export function isStrategy(value: unknown): value is Strategy {
  return (
    typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[STRATEGY_BRAND] === true
  );
}

/** Problems of running a strategy's informative intervals on a base interval (empty when none). */
export function informativeProblems(strategy: Pick<Strategy, 'informative'>, base: CandleInterval): string[] {
  const out: string[] = [];
  for (const i of strategy.informative ?? []) {
    const p = resampleProblem(base, i);
    if (p !== undefined) out.push(p);
  }
  return out;
}

/** Whether a strategy accepts candles of an interval. */
export const acceptsInterval = (strategy: Pick<Strategy, 'intervals'>, interval: CandleInterval): boolean =>
  strategy.intervals.includes(interval);
