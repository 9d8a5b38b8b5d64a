// What a running bot's status says (the terminal, /readyz, the dashboard, the stop summary and notifications all
// show it): its counts, state and health, and its money figures, computed once by moneyFigures.
import { stateWord } from '../market/trading-state.js';
import type { JournalCounts } from '../store/index.js';
import { moneyFigures } from '../portfolio/figures.js';
import type { InstrumentRules } from '../market/instrument-rules.js';
import { marginPairRules, marginState, tightestThresholds, type MarginState } from '../market/margin.js';
import { dustPositions } from '../portfolio/dust-view.js';
import type { Portfolio } from '../portfolio/portfolio.js';
import type { ExitBlockedStatus } from './exit-blocked.js';
import type { FeedHealth } from './feed-watch.js';

/** A position of a bot as its status shows it (decimal strings). */
export interface LiveBotPosition {
  readonly symbol: string;
  readonly baseCoin: string;
  readonly quantity: string;
  readonly avgPrice: string;
  /** The mark: the venue's last traded price (the first fill's price until one is read). */
  readonly mark?: string | undefined;
  /** The venue time the mark was read at (undefined while it is a fill's price). */
  readonly markTs?: number | undefined;
  readonly unrealisedPnl: string;
}

/** Dust a bot holds (decimal strings). */
export interface LiveBotDust {
  readonly symbol: string;
  readonly baseCoin: string;
  readonly quantity: string;
}

export interface LiveBotStatus {
  readonly name: string;
  readonly running: boolean;
  readonly lastCandle?: number | undefined;
  /** The counts are the deployment's (the journal's, across restarts); `sinceStart` this process's. */
  readonly intents: number;
  readonly denials: number;
  readonly orders: number;
  readonly fills: number;
  /** Intents, denials, orders and fills since this start of the daemon. */
  readonly sinceStart: JournalCounts;
  readonly tradingState: string;
  /** DEGRADED when a feed is older than its limit (see FeedWatch), with a sentence per starving feed. */
  readonly health: FeedHealth;
  /** Paused by the operator (pause or flatten): no new entries until resumed. */
  readonly paused?: boolean | undefined;
  /** Exact decimal strings (moneyFigures); surfaces round them with formatMoney only. */
  readonly equity: string;
  /** Protection locks on entries in force (cooldownAfterStop, maxDrawdown, lowProfitPair). */
  readonly protections?:
    readonly { protection: string; symbol: string | undefined; until: string; reason: string }[] | undefined;
  /** The coin money is counted in (equity, PnL, fees). */
  readonly quoteCoin: string;
  /** Before fees, as the portfolio books it. */
  readonly realisedPnl: string;
  readonly unrealisedPnl: string;
  readonly fees: string;
  /** realised + unrealised - fees. */
  readonly net: string;
  /** Open positions (size not zero, dust apart). */
  readonly positions: readonly LiveBotPosition[];
  /**
   * Positions below the venue's minimum tradable quantity (src/market/dust.ts): no trade, no order can sell
   * them alone; absent when the bot holds none.
   */
  readonly dust?: readonly LiveBotDust[] | undefined;
  readonly exitBlocked?: ExitBlockedStatus | undefined;
  /** A MARGIN bot's loans, interest and risk ratio at the venue's now (docs/margin.md); absent for SPOT. */
  readonly margin?: LiveBotMargin | undefined;
}

/** A MARGIN bot's own account of its loans (decimal strings), and its risk ratio's state. */
export interface LiveBotMargin {
  readonly loans: readonly { coin: string; borrowed: string; basis: string; interest: string }[];
  readonly interest: string;
  readonly interestPaid: string;
  readonly riskRatio: string;
  readonly warningRiskRatio: string;
  readonly state: MarginState;
}

/** A MARGIN bot's margin at venue time `now`, judged by the tightest thresholds of its pairs; undefined for SPOT. */
export function marginStatus(
  p: Portfolio,
  now: number,
  rules: (symbol: string) => InstrumentRules | undefined,
): LiveBotMargin | undefined {
  const m = p.margin(now);
  if (m === undefined) return undefined;
  const pairs = p.positions().flatMap((x) => {
    const raw = rules(x.symbol)?.raw;
    return raw?.warningRiskRatio === undefined ? [] : [marginPairRules(raw)];
  });
  const { warning, liquidation } = tightestThresholds(pairs);
  return {
    loans: m.loans.map((l) => ({
      coin: l.coin,
      borrowed: l.qty.toFixed(),
      basis: l.basis.toFixed(),
      interest: l.interest.toFixed(),
    })),
    interest: m.interest.toFixed(),
    interestPaid: m.interestPaid.toFixed(),
    riskRatio: m.riskRatio.toFixed(),
    warningRiskRatio: warning.toFixed(),
    state: marginState(m.riskRatio, warning, liquidation),
  };
}

/** The money part of a status: exact decimal strings (surfaces round them with formatMoney only). */
export function moneyStatus(
  p: Portfolio,
  markTs: ReadonlyMap<string, number>,
  rules: (symbol: string) => InstrumentRules | undefined = () => undefined,
): Pick<
  LiveBotStatus,
  'equity' | 'quoteCoin' | 'realisedPnl' | 'unrealisedPnl' | 'fees' | 'net' | 'positions' | 'dust'
> {
  const m = moneyFigures(p);
  const dust = new Set(dustPositions(p.positions(), rules).map((x) => x.symbol));
  return {
    equity: m.equity.toFixed(),
    quoteCoin: p.quoteCoin,
    realisedPnl: m.realisedPnl.toFixed(),
    unrealisedPnl: m.unrealisedPnl.toFixed(),
    fees: m.fees.toFixed(),
    net: m.net.toFixed(),
    positions: p
      .positions()
      .filter((x) => !x.quantity.isZero() && !dust.has(x.symbol))
      .map((x) => ({
        symbol: x.symbol,
        baseCoin: x.baseCoin,
        quantity: x.quantity.toFixed(),
        avgPrice: x.avgPrice.toFixed(),
        mark: x.mark?.toFixed(),
        markTs: markTs.get(x.symbol),
        unrealisedPnl: x.unrealisedPnl.toFixed(),
      })),
    ...(dust.size === 0
      ? {}
      : {
          dust: p
            .positions()
            .filter((x) => dust.has(x.symbol))
            .map((x) => ({ symbol: x.symbol, baseCoin: x.baseCoin, quantity: x.quantity.toFixed() })),
        }),
  };
}

/** A running bot's state in one word, its pause and its feeds' health included (see `stateWord`). */
export const botStateWord = (b: LiveBotStatus): string =>
  stateWord(b.tradingState, b.paused === true, b.health.state === 'DEGRADED');
