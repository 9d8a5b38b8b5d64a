// A MARGIN bot's loans as `tradebot status` shows them: its signed positions, what it borrowed per coin, the
// interest owed and paid, and the risk ratio with its state against the pair's warningRiskRatio (the bot's
// own account, src/portfolio/loan-book.ts; docs/margin.md).
import { formatMoney, type Decimal } from '../market/decimal.js';
import {
  marginPairRules,
  marginState,
  tightestThresholds,
  type MarginPairRules,
  type MarginState,
} from '../market/margin.js';
import type { Portfolio } from '../portfolio/portfolio.js';
import { readInstrumentRules, type Store, type StoredFill } from '../store/index.js';

/** A MARGIN bot's margin figures at one venue time. */
export interface MarginReport {
  /** The venue time the interest is accrued up to. */
  readonly asOf: number;
  readonly positions: readonly { symbol: string; baseCoin: string; quantity: Decimal }[];
  readonly loans: readonly {
    coin: string;
    symbol: string;
    borrowed: Decimal;
    basis: Decimal;
    interest: Decimal;
  }[];
  readonly interest: Decimal;
  readonly interestPaid: Decimal;
  readonly riskRatio: Decimal;
  readonly warningRiskRatio: Decimal;
  readonly state: MarginState;
  /** The venue's liquidations of the bot's positions, as journaled (oldest first). */
  readonly liquidations: readonly {
    ts: number;
    symbol: string;
    side: string;
    price: Decimal;
    size: Decimal;
  }[];
}

/** A pair's margin limits as the journal holds its instrument row (a MARGIN row), or none. */
function journaledMarginRules(s: Store, symbol: string): MarginPairRules[] {
  const raw = readInstrumentRules(s, symbol)?.raw;
  return raw?.warningRiskRatio === undefined ? [] : [marginPairRules(raw)];
}

/**
 * The margin report of a MARGIN bot's portfolio at venue time `now`, with the liquidations among its journaled
 * `fills`; undefined for a SPOT one.
 */
export function marginReport(
  p: Portfolio,
  now: number,
  store: Store,
  fills: readonly StoredFill[] = [],
): MarginReport | undefined {
  const m = p.margin(now);
  if (m === undefined) return undefined;
  const positions = p.positions().filter((x) => !x.quantity.isZero());
  const symbols = p.positions().map((x) => x.symbol);
  const { warning, liquidation } = tightestThresholds(symbols.flatMap((x) => journaledMarginRules(store, x)));
  return {
    asOf: now,
    positions: positions.map((x) => ({ symbol: x.symbol, baseCoin: x.baseCoin, quantity: x.quantity })),
    loans: m.loans.map((l) => ({
      coin: l.coin,
      symbol: l.symbol,
      borrowed: l.qty,
      basis: l.basis,
      interest: l.interest,
    })),
    interest: m.interest,
    interestPaid: m.interestPaid,
    riskRatio: m.riskRatio,
    warningRiskRatio: warning,
    state: marginState(m.riskRatio, warning, liquidation),
    liquidations: fills
      .filter((f) => f.liquidation === true)
      .map((f) => ({ ts: f.ts, symbol: f.symbol, side: f.side, price: f.price, size: f.size })),
  };
}

/** `status --json`'s `margin` of a bot: decimal strings, to the last decimal. */
export function marginJson(r: MarginReport) {
  return {
    asOf: new Date(r.asOf).toISOString(),
    positions: r.positions.map((x) => ({ symbol: x.symbol, quantity: x.quantity.toFixed() })),
    loans: r.loans.map((l) => ({
      coin: l.coin,
      symbol: l.symbol,
      borrowed: l.borrowed.toFixed(),
      basis: l.basis.toFixed(),
      interest: l.interest.toFixed(),
    })),
    interest: r.interest.toFixed(),
    interestPaid: r.interestPaid.toFixed(),
    riskRatio: r.riskRatio.toFixed(),
    warningRiskRatio: r.warningRiskRatio.toFixed(),
    state: r.state,
    liquidations: r.liquidations.map((x) => ({
      time: new Date(x.ts).toISOString(),
      symbol: x.symbol,
      side: x.side,
      price: x.price.toFixed(),
      size: x.size.toFixed(),
    })),
  };
}

/** The status lines of MARGIN bots: one each, after the table. */
export function marginNotes(
  bots: readonly { bot: string; quoteCoin: string; margin?: MarginReport | undefined }[],
): string[] {
  const lines = bots.flatMap((b) => {
    const r = b.margin;
    if (r === undefined) return [];
    const pos = r.positions.map((x) => `${x.quantity.toFixed()} ${x.baseCoin}`).join(', ') || 'flat';
    const owed = r.loans.map((l) => `${l.borrowed.toFixed()} ${l.coin}`).join(', ') || 'nothing';
    const last = r.liquidations.at(-1);
    const liquidated =
      last === undefined
        ? ''
        : `; LIQUIDATED ${r.liquidations.length} time${r.liquidations.length === 1 ? '' : 's'}, last ${new Date(last.ts).toISOString()}: ${last.side} ${last.size.toFixed()} ${last.symbol} at ${last.price.toFixed()}`;
    return [
      `  ${b.bot}: position ${pos}; borrowed ${owed}; interest ${formatMoney(r.interest, b.quoteCoin)} owed (${r.interest.toFixed()}), ${formatMoney(r.interestPaid, b.quoteCoin)} paid; risk ratio ${r.riskRatio.toDecimalPlaces(4).toFixed()} (${r.state}, warning at ${r.warningRiskRatio.toFixed()})${liquidated}`,
    ];
  });
  return lines.length === 0
    ? []
    : ["margin (the bot's own account of its loans, the simulator's model: docs/margin.md):", ...lines, ''];
}
