// Cross-margin accounts of the matching core: loans a MARGIN order borrows within the leverage set for the
// coin and the pair's limits, their interest, automatic repayment from what a MARGIN order brings in, the
// risk ratio and forced liquidation. All of it is the simulator's model (src/market/margin.ts), which the
// backtest shares through the core.
import { Decimal, ONE, ZERO, aboveZero } from '../market/decimal.js';
import type { Side } from '../market/intent.js';
import {
  DEFAULT_MARGIN_MODEL,
  accrueInterest,
  borrow,
  emptyLoan,
  liquidationPrice,
  maxLiabilities,
  repay,
  riskRatio,
  type Loan,
  type MarginModel,
  type MarginPairRules,
} from '../market/margin.js';
import type { Balance, CoreFill, CoreRefusal, MarketView, PairSpec } from './core-types.js';

/** A forced liquidation of a margin account (the simulator's model, see src/market/margin.ts). */
export interface MarginLiquidation {
  readonly ts: number;
  readonly symbol: string;
  readonly side: Side;
  readonly price: Decimal;
  readonly size: Decimal;
  readonly orderId: string;
  /** The liquidation ratio the account reached. */
  readonly riskRatio: Decimal;
}

/** A margin account as the admin API shows it. */
export interface MarginAccountView {
  readonly loans: readonly Loan[];
  readonly assets: Decimal;
  readonly liabilities: Decimal;
  readonly riskRatio: Decimal;
  readonly leverage: Readonly<Record<string, Decimal>>;
  readonly liquidations: readonly MarginLiquidation[];
}
/** What the margin accounts need of the core. */
export interface MarginHost {
  readonly market: MarketView;
  readonly pair: (symbol: string) => PairSpec | undefined;
  /** An account's balance of a coin, created at zero; the margin accounts change it in place. */
  balance(accountId: string, coin: string): Balance;
  /** An account's balances by coin. */
  balances(accountId: string): Iterable<[string, Balance]>;
  /** Books a liquidation: a market order of the account and its one fill, at `price`. */
  bookLiquidation(
    accountId: string,
    pair: PairSpec,
    side: Side,
    price: Decimal,
    size: Decimal,
    ts: number,
  ): CoreFill;
}

interface MarginState {
  readonly id: string;
  /** Loans by coin (cross margin: one per coin). */
  readonly loans: Map<string, Loan>;
  /** Leverage set per coin (set-leverage); 1, no borrowing, until set. */
  readonly leverage: Map<string, Decimal>;
  /** Symbol each coin was last traded through (its price marks the coin). */
  readonly coinSymbol: Map<string, string>;
  /** Until when the account's liquidation has been looked for. */
  checkedUntil: number;
  readonly liquidations: MarginLiquidation[];
}

interface PendingBorrow {
  readonly accountId: string;
  readonly coin: string;
  /** The base coin (valued at the fill's price) or the quote coin (at 1). */
  readonly base: boolean;
  /** What the account held of the coin toward the order, spent first. */
  held: Decimal;
  /** What it borrowed and its fills have not spent yet. */
  unspent: Decimal;
}

interface LiquidationHit {
  readonly ts: number;
  readonly pair: PairSpec;
  readonly price: Decimal;
  readonly held: Decimal;
}

/** The margin side of every account of one matching core. */
export class MarginAccounts {
  private readonly byId = new Map<string, MarginState>();
  /** Accounts with a loan, looked at for interest and liquidation as time moves. */
  private readonly owing = new Set<MarginState>();
  /** Orders that borrowed, until they end: what their fills spend of the loan gives it its basis. */
  private readonly pending = new Map<string, PendingBorrow>();
  /** Last fill price by symbol: a mark when the market gives none. */
  private readonly lastPrice = new Map<string, Decimal>();

  constructor(
    private readonly host: MarginHost,
    private readonly model: MarginModel = DEFAULT_MARGIN_MODEL,
  ) {}

  private state(id: string): MarginState {
    let s = this.byId.get(id);
    if (!s) {
      s = {
        id,
        loans: new Map(),
        leverage: new Map(),
        coinSymbol: new Map(),
        checkedUntil: 0,
        liquidations: [],
      };
      this.byId.set(id, s);
    }
    return s;
  }

  /** Forgets every account (the core's restore). */
  clear(): void {
    this.byId.clear();
    this.owing.clear();
    this.pending.clear();
  }

  /** A fill of an account: its price marks the pair, its pair marks the base coin. */
  noteFill(accountId: string, pair: PairSpec, price: Decimal): void {
    this.lastPrice.set(pair.symbol, price);
    this.state(accountId).coinSymbol.set(pair.baseCoin, pair.symbol);
  }

  /** Sets an account's cross-margin leverage for a coin (set-leverage, category MARGIN). */
  setLeverage(accountId: string, coin: string, leverage: Decimal): void {
    this.state(accountId).leverage.set(coin, leverage);
  }

  /** Whether any account owes a loan (its interest and liquidation move with time). */
  get hasLoans(): boolean {
    return this.owing.size > 0;
  }

  /** The price that marks a symbol at `now`: its best bid, else its last fill. */
  private markOf(symbol: string, now: number): Decimal {
    for (const lv of this.host.market.levels(symbol, 'sell', now)) return lv.price;
    return this.lastPrice.get(symbol) ?? ZERO;
  }

  /** The quote value of one unit of a coin at `now` (the quote coin is 1; a coin never traded, 0). */
  private coinMark(s: MarginState, coin: string, quoteCoin: string, now: number): Decimal {
    if (coin === quoteCoin) return ONE;
    const symbol = s.coinSymbol.get(coin);
    return symbol === undefined ? ZERO : this.markOf(symbol, now);
  }

  /** Charges every loan's interest up to `now`. */
  private accrue(s: MarginState, now: number): void {
    for (const [coin, loan] of s.loans) s.loans.set(coin, accrueInterest(loan, now, this.model));
  }

  /** Assets and liabilities of an account in `quoteCoin`, each coin valued by `mark` (default: the market at `now`). */
  private valuation(
    s: MarginState,
    quoteCoin: string,
    now: number,
    mark: (coin: string) => Decimal = (c) => this.coinMark(s, c, quoteCoin, now),
  ): { assets: Decimal; liabilities: Decimal } {
    let assets = ZERO;
    for (const [coin, b] of this.host.balances(s.id)) {
      const held = b.available.plus(b.frozen);
      if (aboveZero(held)) assets = assets.plus(held.mul(mark(coin)));
    }
    let liabilities = ZERO;
    for (const [coin, loan] of s.loans)
      liabilities = liabilities.plus(loan.qty.mul(mark(coin))).plus(loan.interest);
    return { assets, liabilities };
  }

  /**
   * Borrows what a MARGIN order's reservation lacks of `coin`, within the pair's limits and the account's
   * leverage (equity x (leverage - 1), see maxLiabilities); answers what it borrowed, or the refusal when it
   * may not. The loan takes its basis from the order's fills (`trackOrder`), not from the market now.
   */
  borrowFor(
    accountId: string,
    pair: PairSpec,
    coin: string,
    reserve: Decimal,
    now: number,
  ): CoreRefusal | Decimal {
    const b = this.host.balance(accountId, coin);
    const lack = reserve.minus(b.available);
    if (!aboveZero(lack)) return ZERO;
    const m = pair.margin;
    if (m === undefined)
      return { ok: false, code: '95403', msg: `${pair.symbol} is not a margin pair: trade it as SPOT` };
    const isBase = coin === pair.baseCoin;
    if (!(isBase ? m.baseBorrowable : m.quoteBorrowable))
      return {
        ok: false,
        code: '95401',
        msg: `${coin} is not borrowable on ${pair.symbol} (${isBase ? 'isIsolatedBaseBorrowable' : 'isIsolatedQuotedBorrowable'} is false): hold the ${lack.toFixed()} ${coin} the order lacks`,
      };
    if (lack.lt(m.userMinBorrow))
      return {
        ok: false,
        code: '95402',
        msg: `the order would borrow ${lack.toFixed()} ${coin}, below userMinBorrow ${m.userMinBorrow.toFixed()}: hold it, or borrow more`,
      };
    const s = this.state(accountId);
    this.accrue(s, now);
    const price = isBase ? this.markOf(pair.symbol, now) : ONE;
    s.coinSymbol.set(pair.baseCoin, pair.symbol);
    const { assets, liabilities } = this.valuation(s, pair.quoteCoin, now);
    const leverage = Decimal.min(s.leverage.get(coin) ?? ONE, m.maxCrossedLeverage);
    const cap = maxLiabilities(assets.minus(liabilities), leverage);
    const after = liabilities.plus(lack.mul(price));
    if (after.gt(cap))
      return {
        ok: false,
        code: '25203',
        msg: `insufficient margin: the order would owe ${after.toFixed()} ${pair.quoteCoin}, above ${cap.toFixed()} at leverage ${leverage.toFixed()} for ${coin} (equity x (leverage - 1)); set-leverage up to ${m.maxCrossedLeverage.toFixed()}, or reduce the order`,
      };
    const loan = s.loans.get(coin) ?? emptyLoan(coin, pair.symbol, now);
    s.loans.set(coin, borrow(accrueInterest(loan, now, this.model), lack, ZERO));
    b.available = b.available.plus(lack);
    if (!this.owing.has(s)) s.checkedUntil = now;
    this.owing.add(s);
    return lack;
  }

  /**
   * Follows an order that borrowed `borrowed` of `coin` for its reservation `reserve`: its fills spend what
   * the account held first, then the loan, whose basis grows by the value of what they spend of it (a
   * base-coin loan at the fill's price, a quote-coin loan at 1), so a bot can know it from its fills.
   */
  trackOrder(
    orderId: string,
    accountId: string,
    pair: PairSpec,
    coin: string,
    reserve: Decimal,
    borrowed: Decimal,
  ): void {
    if (!aboveZero(borrowed)) return;
    const base = coin === pair.baseCoin;
    this.pending.set(orderId, { accountId, coin, base, held: reserve.minus(borrowed), unspent: borrowed });
  }

  /** A fill of a tracked order that spent `spent` of the coin it borrowed (the base sold, or the quote paid). */
  onOrderFill(orderId: string, price: Decimal, spent: Decimal, ts: number): void {
    const p = this.pending.get(orderId);
    if (p === undefined) return;
    const fromHeld = Decimal.min(spent, p.held);
    p.held = p.held.minus(fromHeld);
    const fromLoan = Decimal.min(spent.minus(fromHeld), p.unspent);
    if (!aboveZero(fromLoan)) return;
    p.unspent = p.unspent.minus(fromLoan);
    const s = this.state(p.accountId);
    const loan = s.loans.get(p.coin);
    if (loan === undefined) return;
    const accrued = accrueInterest(loan, ts, this.model);
    s.loans.set(p.coin, { ...accrued, basis: accrued.basis.plus(p.base ? fromLoan.mul(price) : fromLoan) });
  }

  /** A tracked order ended: what it borrowed and did not spend goes back (it never had a basis, so no interest). */
  endOrder(orderId: string): void {
    const p = this.pending.get(orderId);
    if (p === undefined) return;
    this.pending.delete(orderId);
    const s = this.state(p.accountId);
    const loan = s.loans.get(p.coin);
    if (loan === undefined || !aboveZero(p.unspent)) return;
    const back = Decimal.min(p.unspent, loan.qty);
    const b = this.host.balance(p.accountId, p.coin);
    b.available = b.available.minus(back);
    const qty = loan.qty.minus(back);
    if (aboveZero(qty)) s.loans.set(p.coin, { ...loan, qty });
    else s.loans.delete(p.coin);
    if (s.loans.size === 0) this.owing.delete(s);
  }

  /** Repays the account's loans of a pair's coins from their available balances; interest with the last of a loan. */
  repayFrom(accountId: string, pair: PairSpec, now: number): void {
    const s = this.byId.get(accountId);
    if (s === undefined || s.loans.size === 0) return;
    this.accrue(s, now);
    for (const coin of [pair.baseCoin, pair.quoteCoin]) {
      const loan = s.loans.get(coin);
      if (loan === undefined) continue;
      const b = this.host.balance(accountId, coin);
      const r = repay(loan, b.available);
      b.available = b.available.minus(r.repaid);
      if (aboveZero(r.interestDue)) {
        const q = this.host.balance(accountId, pair.quoteCoin);
        q.available = q.available.minus(r.interestDue);
      }
      if (r.loan.qty.isZero()) s.loans.delete(coin);
      else s.loans.set(coin, r.loan);
    }
    if (s.loans.size === 0) this.owing.delete(s);
  }

  /**
   * Looks for each owing account's liquidation up to `now`: the price of each position at which the risk
   * ratio reaches the pair's liquidationRiskRatio (the other marks held), and the first instant the market
   * reaches it (a candle's adverse extreme, or the book). There the position is closed by a market order at
   * that price (or the market's, when it is worse) and the loans repaid. Answers the liquidation fills.
   */
  liquidate(now: number): CoreFill[] {
    const out: CoreFill[] = [];
    for (const s of [...this.owing]) {
      const from = s.checkedUntil;
      if (from >= now) continue;
      s.checkedUntil = now;
      let first: LiquidationHit | undefined;
      const symbols = new Set([...[...s.loans.values()].map((l) => l.symbol), ...s.coinSymbol.values()]);
      for (const symbol of symbols) {
        const pair = this.host.pair(symbol);
        if (pair?.margin === undefined) continue;
        const hit = this.liquidationHit(s, pair, from, now);
        if (hit && (first === undefined || hit.ts < first.ts)) first = hit;
      }
      if (first !== undefined) out.push(this.closeByLiquidation(s, first));
    }
    return out;
  }

  private liquidationHit(
    s: MarginState,
    pair: PairSpec,
    from: number,
    now: number,
  ): LiquidationHit | undefined {
    const m = pair.margin as MarginPairRules;
    const b = this.host.balance(s.id, pair.baseCoin);
    const held = b.available.plus(b.frozen).minus(s.loans.get(pair.baseCoin)?.qty ?? ZERO);
    if (held.isZero()) return undefined;
    this.accrue(s, from);
    // The account without this coin, at the marks of `from`.
    const { assets, liabilities } = this.valuation(s, pair.quoteCoin, from, (c) =>
      c === pair.baseCoin ? ZERO : this.coinMark(s, c, pair.quoteCoin, from),
    );
    const p = liquidationPrice(held, assets, liabilities, m.liquidationRiskRatio);
    if (p === undefined) return undefined;
    const short = held.isNegative();
    const price = p.toDecimalPlaces(pair.pricePrecision ?? 8, short ? Decimal.ROUND_UP : Decimal.ROUND_DOWN);
    const ts = this.host.market.firstTouch(pair.symbol, short ? 'sell' : 'buy', price, from + 1, now);
    return ts === undefined ? undefined : { ts, pair, price, held };
  }

  private closeByLiquidation(s: MarginState, hit: LiquidationHit): CoreFill {
    const { ts, pair, held } = hit;
    this.accrue(s, ts);
    const short = held.isNegative();
    const side: Side = short ? 'buy' : 'sell';
    let price = hit.price;
    for (const lv of this.host.market.levels(pair.symbol, side, ts)) {
      price = short ? Decimal.max(price, lv.price) : Decimal.min(price, lv.price);
      break;
    }
    const { assets, liabilities } = this.valuation(s, pair.quoteCoin, ts, (c) =>
      c === pair.baseCoin ? price : this.coinMark(s, c, pair.quoteCoin, ts),
    );
    const size = held.abs();
    const fill = this.host.bookLiquidation(s.id, pair, side, price, size, ts);
    s.liquidations.push({
      ts,
      symbol: pair.symbol,
      side,
      price,
      size,
      orderId: fill.orderId,
      riskRatio: riskRatio(assets, liabilities),
    });
    this.repayFrom(s.id, pair, ts);
    return fill;
  }

  /** An account's margin at `now` (interest charged up to it). */
  view(accountId: string, quoteCoin: string, now: number): MarginAccountView {
    const s = this.state(accountId);
    this.accrue(s, now);
    const { assets, liabilities } = this.valuation(s, quoteCoin, now);
    return {
      loans: [...s.loans.values()],
      assets,
      liabilities,
      riskRatio: riskRatio(assets, liabilities),
      leverage: Object.fromEntries(s.leverage),
      liquidations: [...s.liquidations],
    };
  }
}
