// The strategy context, built in one place: the Trader builds it for the live bot and the backtester,
// the test harness (testing.ts) with safe defaults. A new context field is added here once.
import type { Clock } from '../feeds/clock.js';
import { ZERO, type Decimal } from '../market/decimal.js';
import type { InstrumentRules } from '../market/instrument-rules.js';
import type { SessionState } from '../market/sessions.js';
import { withoutDust } from '../portfolio/dust-view.js';
import type { PortfolioView } from '../portfolio/view.js';
import type { OpenOrderView, StrategyContext, StrategyLogger } from './contract.js';
import type { TradeCategory } from './intent.js';
import { checkPlot, plotPaneMoved, type PlotPoint } from './plot.js';
import type { StrategyState } from './state.js';

/** Everything a strategy context is made of. */
export interface StrategyContextParts<P> {
  readonly bot: string;
  readonly params: P;
  readonly clock: Clock;
  readonly logger: StrategyLogger;
  readonly symbols: readonly string[];
  readonly category: TradeCategory;
  readonly rules: (symbol: string) => InstrumentRules | undefined;
  readonly portfolio: PortfolioView;
  readonly session: () => SessionState | undefined;
  readonly state: StrategyState;
  /** Where exposed indicator values go (the lookahead check); default: nowhere. */
  readonly expose?: StrategyContext<P>['expose'] | undefined;
  /** Where the strategy's checked ctx.plot points go (the backtest's series); default: checked, then dropped. */
  readonly plot?: ((point: PlotPoint) => void) | undefined;
  /** Default: the quote coin of the first symbol's rules, else "USDT". */
  readonly quoteCoin?: string | undefined;
  /** Default: none (a harness without a venue). */
  readonly openOrders?: ((symbol: string) => readonly OpenOrderView[]) | undefined;
  /** Default: the portfolio's quote cash. */
  readonly freeCash?: (() => Decimal) | undefined;
  /** Default: zero. */
  readonly unrealisedPnl?: ((symbol: string) => Decimal) | undefined;
}

const ignore = (): void => undefined;

const NO_ORDERS: readonly OpenOrderView[] = Object.freeze([]);

/** ctx.plot: every call checked the same way (a mistake shows in a backtest and live alike), then recorded or dropped. */
function plotInto(sink: ((point: PlotPoint) => void) | undefined): StrategyContext['plot'] {
  const panes = new Map<string, PlotPoint['pane']>();
  return (name, value, options) => {
    const p = checkPlot(name, value, options);
    const pane = panes.get(p.name);
    if (pane === undefined) panes.set(p.name, p.pane);
    else if (pane !== p.pane) throw plotPaneMoved(p, pane);
    sink?.(p);
  };
}

/** The context a strategy's `run` receives. */
export function buildStrategyContext<P>(p: StrategyContextParts<P>): StrategyContext<P> {
  const first = p.symbols[0];
  const quoteCoin = p.quoteCoin ?? (first === undefined ? undefined : p.rules(first)?.quoteCoin) ?? 'USDT';
  // Dust reads as flat: a strategy that holds only dust may enter again (ctx.portfolio.dust says what is left).
  const portfolio = withoutDust(p.portfolio, p.rules);
  return Object.freeze({
    bot: p.bot,
    params: p.params,
    clock: p.clock,
    logger: p.logger,
    symbols: Object.freeze([...p.symbols]),
    category: p.category,
    rules: p.rules,
    portfolio,
    session: p.session,
    state: p.state,
    expose: p.expose ?? ignore,
    plot: plotInto(p.plot),
    quoteCoin,
    openOrders: p.openOrders ?? (() => NO_ORDERS),
    freeCash: p.freeCash ?? (() => p.portfolio.cash(quoteCoin)),
    // Flat to the strategy, dust has no PnL to watch either.
    unrealisedPnl: (s: string) => (portfolio.dust(s).isZero() ? (p.unrealisedPnl?.(s) ?? ZERO) : ZERO),
  });
}
