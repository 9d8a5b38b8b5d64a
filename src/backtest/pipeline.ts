// The trading pipeline of a backtest: the one Trader on the in-process venue, which fills against each
// lane's current candle by the simulator's candle fill model.
import { InProcessVenue } from '../execution/in-process-venue.js';
import { Decimal } from '../market/decimal.js';
import { record } from '../market/shapes.js';
import { DEFAULT_MARGIN_MODEL, marginPairRules } from '../market/margin.js';
import { MemoryJournal } from '../execution/journal.js';
import { MarketState } from '../execution/market-state.js';
import { Trader } from '../execution/trader.js';
import { VirtualClock } from '../feeds/clock.js';
import type { FeeRates } from '../portfolio/fees.js';
import { Portfolio } from '../portfolio/portfolio.js';
import { RiskGate } from '../risk/gate.js';
import { TradingStateMachine } from '../risk/trading-state.js';
import { CandleFillModel } from '../sim/candle-fills.js';
import { mergeExitRules, mergeProtections } from '../strategy/exits.js';
import type { Lane } from './lanes.js';
import type { BacktestOptions } from './options.js';

/** The pipeline's parts the replay and the result read. */
export interface BacktestPipeline {
  readonly trader: Trader;
  readonly venue: InProcessVenue;
  readonly portfolio: Portfolio;
  readonly clock: VirtualClock;
  readonly market: MarketState;
}

/**
 * Step 1: the trading pipeline of a backtest: the one Trader, on the in-process venue (the matching core
 * over each symbol's current candle, by the shared candle fill model), a memory journal and a virtual clock.
 */
export function backtestPipeline(
  o: BacktestOptions,
  lanes: readonly Lane[],
  step: number,
  capital: string,
  fees: FeeRates,
): BacktestPipeline {
  const quote = (lanes[0] as Lane).rules.quoteCoin;
  // Where the run starts: the capital, and the fills before it (a replay from a live bot's journal).
  // A MARGIN run's loans follow one model, the simulator's: the venue books them, and the portfolio keeps its own
  // account of them as a live MARGIN bot does.
  const marginModel = o.margin === undefined ? undefined : DEFAULT_MARGIN_MODEL;
  const portfolio = Portfolio.fromFills(o.openingFills ?? [], {
    quoteCoin: quote,
    cash: { [quote]: capital },
    ...(marginModel === undefined ? {} : { margin: marginModel }),
  });
  const balances = Object.fromEntries(
    [quote, ...lanes.map((l) => l.rules.baseCoin)].map((c) => [c, portfolio.cash(c)] as const),
  );
  const bySymbol = new Map(lanes.map((l) => [l.symbol, l]));
  const venue = new InProcessVenue(
    record({
      market: new CandleFillModel(
        record({
          slippageBps: o.slippageBps,
          intervalMs: step,
          pricePrecision: (s) => bySymbol.get(s)?.rules.pricePrecision ?? 8,
          barAt: (s, t) => {
            const cur = bySymbol.get(s)?.cur;
            return cur !== undefined && cur.known && t >= cur.t && t < cur.t + step ? cur : undefined;
          },
        }),
      ),
      pairs: lanes.map((l) =>
        record({
          symbol: l.symbol,
          baseCoin: l.rules.baseCoin,
          quoteCoin: quote,
          quantityPrecision: l.rules.quantityPrecision,
          pricePrecision: l.rules.pricePrecision,
          margin: o.margin === undefined ? undefined : marginPairRules(l.rules.raw),
        }),
      ),
      balances,
      fees,
      margin: marginModel,
    }),
  );
  const leverage = new Map(Object.entries(o.margin?.leverage ?? {}).map(([c, v]) => [c, new Decimal(v)]));
  for (const [coin, v] of leverage) venue.setLeverage(coin, v);
  const clock = new VirtualClock(0);
  const market = new MarketState();
  for (const l of lanes) market.setRules(l.symbol, l.rules);
  const trader = new Trader(
    record({
      bot: o.bot ?? 'backtest',
      pairs: lanes.map((l) => record({ symbol: l.symbol, baseCoin: l.rules.baseCoin, quoteCoin: quote })),
      venue,
      journal: new MemoryJournal(),
      clock,
      gate: new RiskGate(o.risk),
      tradingState: new TradingStateMachine(o.risk),
      portfolio,
      market,
      fees,
      maxAttempts: 1,
      exits: mergeExitRules(o.strategy.exits, o.exits),
      protections: mergeProtections(o.strategy.protections, o.protections),
      intervalMs: step,
      ...(o.margin === undefined ? {} : { category: 'MARGIN' as const, marginLeverage: leverage }),
    }),
  );
  if (o.onEvent) trader.subscribe(o.onEvent);
  for (const l of lanes) l.q = market.quote(l.symbol);
  return { trader, venue, portfolio, clock, market };
}
