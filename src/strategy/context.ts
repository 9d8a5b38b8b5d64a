// The strategy context, built in one place: the Trader builds it for the live bot and the backtester,
// the test harness (testing.ts) with safe defaults. A new context field is added here once.
import type { Clock } from '../feeds/clock.js';
import type { InstrumentRules } from '../market/instrument-rules.js';
import type { SessionState } from '../market/sessions.js';
import type { PortfolioView } from '../portfolio/view.js';
import type { StrategyContext, StrategyLogger } from './contract.js';
import type { TradeCategory } from './intent.js';
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
}

const ignore = (): void => undefined;

/** The context a strategy's `run` receives. */
export function buildStrategyContext<P>(p: StrategyContextParts<P>): StrategyContext<P> {
  return Object.freeze({
    bot: p.bot,
    params: p.params,
    clock: p.clock,
    logger: p.logger,
    symbols: Object.freeze([...p.symbols]),
    category: p.category,
    rules: p.rules,
    portfolio: p.portfolio,
    session: p.session,
    state: p.state,
    expose: p.expose ?? ignore,
  });
}
