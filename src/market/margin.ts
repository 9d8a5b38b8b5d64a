// The margin model of cross-margin trading on Reality pairs: loans, their interest and the risk ratio, in
// one place so the simulator's matching core (and through it the backtest) and the daemon's own accounts
// compute them alike. The spec publishes the limits (2.1: maxCrossedLeverage, userMinBorrow,
// warningRiskRatio, liquidationRiskRatio) but not the interest rate, when it accrues, how the risk ratio is
// computed nor what liquidation does: all of that here is the SIMULATOR'S MODEL, never the venue's rule
// (docs/margin.md).
import { Decimal, ZERO, aboveZero } from './decimal.js';

/** The simulator's margin model: simple interest on the borrowed value, charged per whole period. */
export interface MarginModel {
  /** Interest per period, as a fraction of the loan's value at borrowing (its basis). */
  readonly interestRate: Decimal;
  /** Length of a period in ms; interest is charged at each multiple of it (venue time, from the epoch). */
  readonly interestPeriodMs: number;
}

/** The simulator's default: 0.002% of the borrowed value per hour (about 17.5% a year). */
export const DEFAULT_MARGIN_MODEL: MarginModel = {
  interestRate: new Decimal('0.00002'),
  interestPeriodMs: 3_600_000,
};

/**
 * One loan of a coin. `qty` is in the coin borrowed; `basis` is its value in the quote coin when it was
 * borrowed (qty x the fill price; a quote-coin loan's basis is its qty); `interest` is owed, in the quote
 * coin, and is paid from the quote balance when the loan is repaid in full.
 */
export interface Loan {
  readonly coin: string;
  /** The pair it was borrowed through (its price marks the loan). */
  readonly symbol: string;
  readonly qty: Decimal;
  readonly basis: Decimal;
  readonly interest: Decimal;
  /** Interest is charged up to this instant. */
  readonly accruedUntil: number;
}

/** Decimal places of the basis a partial repayment releases (half-even), as the portfolio's cost basis. */
const BASIS_PLACES = 18;

/** A loan with no debt, from `ts`. */
export function emptyLoan(coin: string, symbol: string, ts: number): Loan {
  return { coin, symbol, qty: ZERO, basis: ZERO, interest: ZERO, accruedUntil: ts };
}

/** How many period boundaries (multiples of the period) lie in (from, to]. */
export function periodsCrossed(from: number, to: number, periodMs: number): number {
  if (to <= from) return 0;
  return Math.floor(to / periodMs) - Math.floor(from / periodMs);
}

/** The loan with its interest charged up to `to`: basis x rate at each period boundary crossed. */
export function accrueInterest(loan: Loan, to: number, model: MarginModel): Loan {
  if (to <= loan.accruedUntil) return loan;
  const n = periodsCrossed(loan.accruedUntil, to, model.interestPeriodMs);
  if (n === 0 || !aboveZero(loan.basis)) return { ...loan, accruedUntil: to };
  return {
    ...loan,
    interest: loan.interest.plus(loan.basis.mul(model.interestRate).mul(n)),
    accruedUntil: to,
  };
}

/** The loan after borrowing `qty` more at `price` (the quote value of one unit; 1 for the quote coin). */
export function borrow(loan: Loan, qty: Decimal, price: Decimal): Loan {
  return { ...loan, qty: loan.qty.plus(qty), basis: loan.basis.plus(qty.mul(price)) };
}

/**
 * Repays up to `amount` of the loan: the loan after it, what was repaid (in the coin), and the interest
 * due (quote coin) when it is repaid in full (zero otherwise: interest is paid with the last of the loan).
 */
export function repay(loan: Loan, amount: Decimal): { loan: Loan; repaid: Decimal; interestDue: Decimal } {
  const repaid = Decimal.min(amount, loan.qty);
  if (!aboveZero(repaid)) return { loan, repaid: ZERO, interestDue: ZERO };
  const qty = loan.qty.minus(repaid);
  if (qty.isZero())
    return { loan: { ...loan, qty, basis: ZERO, interest: ZERO }, repaid, interestDue: loan.interest };
  const released = loan.basis
    .mul(repaid)
    .div(loan.qty)
    .toDecimalPlaces(BASIS_PLACES, Decimal.ROUND_HALF_EVEN);
  return { loan: { ...loan, qty, basis: loan.basis.minus(released) }, repaid, interestDue: ZERO };
}

/**
 * The risk ratio (the simulator's definition): liabilities / assets, both valued in the quote coin at the
 * marks. Liabilities are every loan's qty at its mark plus its interest; assets are every balance (available
 * and frozen) at its mark. 0 with no liabilities; Infinity when there are liabilities and no assets. It
 * rises toward risk: the pair's warningRiskRatio warns, its liquidationRiskRatio liquidates.
 */
export function riskRatio(assets: Decimal, liabilities: Decimal): Decimal {
  if (!aboveZero(liabilities)) return ZERO;
  if (!aboveZero(assets)) return new Decimal(Infinity);
  return liabilities.div(assets);
}

/**
 * The most an account may owe (quote value) at a leverage: equity x (leverage - 1). Leverage 1 borrows
 * nothing; leverage 3 lets an equity of 100 hold positions worth 300 (the simulator's model).
 */
export function maxLiabilities(equity: Decimal, leverage: Decimal): Decimal {
  return Decimal.max(equity.mul(leverage.minus(1)), ZERO);
}

/** Where the risk ratio of a margin account stands against a pair's thresholds. */
export type MarginState = 'normal' | 'warning' | 'liquidation';

/** The state of a risk ratio against the warning and liquidation ratios. */
export function marginState(ratio: Decimal, warning: Decimal, liquidation: Decimal): MarginState {
  if (ratio.gte(liquidation)) return 'liquidation';
  if (ratio.gte(warning)) return 'warning';
  return 'normal';
}

/**
 * The price of one symbol at which the risk ratio reaches `ratio`, the other marks held: with `held` of the
 * base coin (net of its loan: negative for a short) and the rest of the account's assets and liabilities
 * valued without that coin (`otherAssets`, `otherLiabilities`, interest included). Answers undefined when no
 * price of the symbol reaches it. Assets = otherAssets + max(held,0) x P; liabilities = otherLiabilities +
 * max(-held,0) x P.
 */
export function liquidationPrice(
  held: Decimal,
  otherAssets: Decimal,
  otherLiabilities: Decimal,
  ratio: Decimal,
): Decimal | undefined {
  if (held.isZero()) return undefined;
  if (held.isNegative()) {
    // short: (L + b P) = r A  =>  P = (r A - L) / b, reached as the price rises
    const p = ratio.mul(otherAssets).minus(otherLiabilities).div(held.neg());
    return aboveZero(p) ? p : undefined;
  }
  // long: L = r (A + h P)  =>  P = (L / r - A) / h, reached as the price falls
  const p = otherLiabilities.div(ratio).minus(otherAssets).div(held);
  return aboveZero(p) ? p : undefined;
}

/**
 * The margin fields of the simulator's MARGIN row of a Reality pair (its choice, not the venue's), which a
 * MARGIN backtest lays over a dataset's instrument unless told others.
 */
export const SIM_REALITY_MARGIN_FIELDS = {
  isIsolatedBaseBorrowable: 'true',
  isIsolatedQuotedBorrowable: 'true',
  warningRiskRatio: '0.8',
  liquidationRiskRatio: '1',
  maxCrossedLeverage: '3',
  maxIsolatedLeverage: '3',
  userMinBorrow: '0.00001',
} as const;

/** A margin pair's limits (spec 2.1), as Decimals. */
export interface MarginPairRules {
  readonly maxCrossedLeverage: Decimal;
  readonly userMinBorrow: Decimal;
  /** isIsolatedBaseBorrowable: the simulator applies it to cross margin too (its model). */
  readonly baseBorrowable: boolean;
  readonly quoteBorrowable: boolean;
  readonly warningRiskRatio: Decimal;
  readonly liquidationRiskRatio: Decimal;
}

/** The margin limits of a MARGIN instrument row (absent fields: no leverage, nothing borrowable). */
export function marginPairRules(wire: {
  readonly maxCrossedLeverage?: string | undefined;
  readonly userMinBorrow?: string | undefined;
  readonly isIsolatedBaseBorrowable?: string | undefined;
  readonly isIsolatedQuotedBorrowable?: string | undefined;
  readonly warningRiskRatio?: string | undefined;
  readonly liquidationRiskRatio?: string | undefined;
}): MarginPairRules {
  const d = (s: string | undefined, dflt: string) => new Decimal(s === undefined || s === '' ? dflt : s);
  return {
    maxCrossedLeverage: d(wire.maxCrossedLeverage, '1'),
    userMinBorrow: d(wire.userMinBorrow, '0'),
    baseBorrowable: wire.isIsolatedBaseBorrowable === 'true',
    quoteBorrowable: wire.isIsolatedQuotedBorrowable === 'true',
    warningRiskRatio: d(wire.warningRiskRatio, '0.8'),
    liquidationRiskRatio: d(wire.liquidationRiskRatio, '1'),
  };
}

/**
 * The thresholds a margin account is judged by: the tightest warning and liquidation ratios of the pairs it
 * trades (one pair: that pair's), the simulator's (SIM_REALITY_MARGIN_FIELDS) when it trades none yet.
 */
export function tightestThresholds(rules: readonly MarginPairRules[]): {
  warning: Decimal;
  liquidation: Decimal;
} {
  const all = rules.length > 0 ? rules : [marginPairRules(SIM_REALITY_MARGIN_FIELDS)];
  return {
    warning: Decimal.min(...all.map((r) => r.warningRiskRatio)),
    liquidation: Decimal.min(...all.map((r) => r.liquidationRiskRatio)),
  };
}

/**
 * The cross-margin leverage per coin that `leverage` entries (set-leverage parameters, spec 4.4) set at start:
 * the MARGIN entries with a coin and a leverage. A deployment's bot and a MARGIN backtest read them alike.
 */
export function marginLeverageOf(
  entries:
    | readonly {
        readonly category: string;
        readonly coin?: string | undefined;
        readonly leverage?: string | undefined;
      }[]
    | undefined,
): Map<string, Decimal> {
  const m = new Map<string, Decimal>();
  for (const e of entries ?? [])
    if (e.category === 'MARGIN' && e.coin !== undefined && e.leverage !== undefined)
      m.set(e.coin, new Decimal(e.leverage));
  return m;
}
