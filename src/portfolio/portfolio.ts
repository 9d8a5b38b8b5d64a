// Positions, cash and PnL from fills, all in Decimal. The live daemon and the backtester apply fills
// through the same class, and a restart rebuilds it from the fill journal (`Portfolio.fromFills`).
import { z } from 'zod';
import { SIGNED_DECIMAL_RE } from '../api/index.js';
import {
  Decimal,
  ONE,
  ZERO,
  aboveZero,
  belowZero,
  dec,
  toWire,
  type DecimalLike,
} from '../market/decimal.js';
import type { Side } from '../market/intent.js';
import type { MarginModel } from '../market/margin.js';
import { LoanBook } from './loan-book.js';
import type { MarginFigures, PortfolioView, PositionView } from './view.js';

/** One execution as the portfolio needs it (a `StoredFill` of the journal is one). */
export interface PortfolioFill {
  readonly symbol: string;
  readonly baseCoin: string;
  readonly quoteCoin: string;
  readonly side: Side;
  readonly price: DecimalLike;
  readonly size: DecimalLike;
  /** price x size when the caller worked it out already (the pipeline does, for the fee); else computed. */
  readonly notional?: Decimal | undefined;
  /** In `feeCoin`, which must be the quote coin (tradebot's fee convention, see fees.ts). */
  readonly fee: DecimalLike;
  readonly feeCoin: string;
  readonly ts: number;
  /** A MARGIN bot's position closed by the venue's liquidation: it repays loans and borrows nothing (LoanBook). */
  readonly liquidation?: boolean | undefined;
}

/** A position with everything the portfolio knows about it. */
export interface Position extends PositionView {
  readonly baseCoin: string;
  readonly quoteCoin: string;
  /** Signed cost basis of the open quantity (quote coin; negative for a short). avgPrice = cost / quantity. */
  readonly cost: Decimal;
  /** Fees paid on this symbol (quote coin). `realisedPnl` is before fees. */
  readonly fees: Decimal;
  /** Last mark (or the first fill price until a mark is given); undefined when never traded nor marked. */
  readonly mark: Decimal | undefined;
  /** quantity x mark - cost; zero when flat. */
  readonly unrealisedPnl: Decimal;
  /** Time of the last fill applied, 0 when none. */
  readonly lastFillTs: number;
}

/** Construction options. */
export interface PortfolioOptions {
  /** The coin equity is counted in (e.g. "USDT"); every traded symbol must quote in it. */
  readonly quoteCoin: string;
  /** Starting balances per coin (decimal strings). */
  readonly cash?: Readonly<Record<string, DecimalLike>> | undefined;
  /**
   * A MARGIN bot's margin model (src/market/margin.ts): every fill is then a MARGIN order's, which borrows
   * what cash lacks and repays loans from what it brings in, as the simulator does; `margin(now)` answers
   * the loans. Absent: a SPOT portfolio (`margin()` is undefined).
   */
  readonly margin?: MarginModel | undefined;
}

/** One point of the in-memory equity series. */
export interface EquitySample {
  readonly ts: number;
  readonly equity: Decimal;
}

/** Plain-JSON form of a portfolio (decimal strings), for `Portfolio.restore`. */
export interface PortfolioSnapshot {
  readonly version: 1;
  readonly quoteCoin: string;
  readonly cash: Record<string, string>;
  readonly positions: {
    readonly symbol: string;
    readonly baseCoin: string;
    readonly quoteCoin: string;
    readonly quantity: string;
    readonly cost: string;
    readonly realisedPnl: string;
    readonly fees: string;
    readonly mark?: string;
    readonly lastFillTs: number;
  }[];
  readonly equitySeries: { readonly ts: number; readonly equity: string }[];
  /** Marks of symbols not traded yet. */
  readonly marks: Record<string, string>;
}

interface PositionState {
  readonly symbol: string;
  readonly baseCoin: string;
  readonly quoteCoin: string;
  qty: Decimal;
  cost: Decimal;
  realised: Decimal;
  fees: Decimal;
  mark: Decimal | undefined;
  lastFillTs: number;
  /**
   * The average price when a fill set it without a division: the price of the fill that opened the
   * position from flat (or flipped it through zero), whose cost basis is that price x size exactly.
   * Undefined once another fill changes the basis (the average is then cost / quantity, worked out when read).
   */
  avg: Decimal | undefined;
  /**
   * The last `position()` answer, until a fill or a mark changes it (strategy and gate ask per order).
   * Set (undefined) where a state is built, never added later: one shape of state in every run.
   */
  view: Position | undefined;
}

/**
 * Decimal places of the cost basis a partial close releases (half-even): beyond any venue's quote
 * precision, and few enough that cash, cost basis and PnL never need more than decimal.js' 40 digits.
 */
const RELEASED_PLACES = 18;

const decimalString = (field: string) =>
  z.string().regex(SIGNED_DECIMAL_RE, { error: `${field} must be a plain decimal string such as "12.5"` });

const SnapshotSchema = z.object({
  version: z.literal(1, { error: 'version must be 1' }),
  quoteCoin: z.string().min(1, { error: 'quoteCoin must be a coin such as "USDT"' }),
  cash: z.record(z.string(), decimalString('cash balance')),
  positions: z.array(
    z.object({
      symbol: z.string().min(1),
      baseCoin: z.string().min(1),
      quoteCoin: z.string().min(1),
      quantity: decimalString('quantity'),
      cost: decimalString('cost'),
      realisedPnl: decimalString('realisedPnl'),
      fees: decimalString('fees'),
      mark: decimalString('mark').optional(),
      lastFillTs: z.number().int().nonnegative(),
    }),
  ),
  equitySeries: z.array(z.object({ ts: z.number().int().nonnegative(), equity: decimalString('equity') })),
  marks: z.record(z.string(), decimalString('mark')).default({}),
});

/**
 * The portfolio: signed positions with weighted average entry (reset when flat, flips handled), realised
 * PnL (before fees), unrealised PnL at marks, fees, cash per coin and equity in the quote coin.
 *
 * Accounting: a buy moves quote cash by -(price x size + fee) and base by +size; a sell the reverse with
 * +(price x size - fee). Only the average price involves a division, so cash, fees and equity are exact.
 *
 * @example
 * const p = new Portfolio({ quoteCoin: 'USDT', cash: { USDT: '10000' } });
 * p.applyFill({ symbol: 'AAPLUSDT', baseCoin: 'AAPL', quoteCoin: 'USDT', side: 'buy', price: '190', size: '2',
 *   fee: feeFor('190', '2', '0.001'), feeCoin: 'USDT', ts });
 * p.mark('AAPLUSDT', dec('191'));
 * p.equity(); // 10000 - 0.38 + 2 = 10001.62
 */
export class Portfolio implements PortfolioView {
  readonly quoteCoin: string;
  private readonly balances = new Map<string, Decimal>();
  private readonly book = new Map<string, PositionState>();
  private readonly series: EquitySample[] = [];
  // Marks of symbols not traded yet; moved into the position at its first fill.
  private readonly marks = new Map<string, Decimal>();
  // A MARGIN bot's loans (undefined: SPOT).
  private readonly loanBook: LoanBook | undefined;

  constructor(options: PortfolioOptions) {
    if (typeof options.quoteCoin !== 'string' || options.quoteCoin === '') {
      throw new TypeError('quoteCoin must be the coin equity is counted in, such as "USDT"');
    }
    this.quoteCoin = options.quoteCoin;
    this.loanBook = options.margin === undefined ? undefined : new LoanBook(options.margin);
    for (const [coin, amount] of Object.entries(options.cash ?? {}))
      this.balances.set(coin, dec(amount, `cash.${coin}`));
  }

  /** Rebuilds a portfolio by applying `fills` in order to the starting balances (a restart from the journal). */
  static fromFills(fills: Iterable<PortfolioFill>, options: PortfolioOptions): Portfolio {
    const p = new Portfolio(options);
    for (const f of fills) p.applyFill(f);
    return p;
  }

  /** Restores a `snapshot()` (validated: a snapshot may come from a file). */
  static restore(snapshot: unknown): Portfolio {
    const parsed = SnapshotSchema.safeParse(snapshot);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new TypeError(
        `portfolio snapshot is invalid at ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`,
      );
    }
    const s = parsed.data;
    const p = new Portfolio({ quoteCoin: s.quoteCoin, cash: s.cash });
    for (const ps of s.positions) {
      const qty = new Decimal(ps.quantity);
      const cost = new Decimal(ps.cost);
      p.book.set(ps.symbol, {
        symbol: ps.symbol,
        baseCoin: ps.baseCoin,
        quoteCoin: ps.quoteCoin,
        qty,
        cost,
        realised: new Decimal(ps.realisedPnl),
        fees: new Decimal(ps.fees),
        mark: ps.mark === undefined ? undefined : new Decimal(ps.mark),
        lastFillTs: ps.lastFillTs,
        avg: undefined,
        view: undefined,
      });
    }
    for (const e of s.equitySeries) p.series.push({ ts: e.ts, equity: new Decimal(e.equity) });
    for (const [symbol, m] of Object.entries(s.marks)) p.marks.set(symbol, new Decimal(m));
    return p;
  }

  /** Applies one fill: cash, position, average price, realised PnL and fees. */
  applyFill(fill: PortfolioFill): void {
    const price = dec(fill.price, 'fill.price');
    const size = dec(fill.size, 'fill.size');
    const fee = dec(fill.fee, 'fill.fee');
    if (!aboveZero(price))
      throw new RangeError(`fill.price must be positive, got ${price.toFixed()} (${fill.symbol})`);
    if (!aboveZero(size))
      throw new RangeError(`fill.size must be positive, got ${size.toFixed()} (${fill.symbol})`);
    if (belowZero(fee))
      throw new RangeError(`fill.fee must not be negative, got ${fee.toFixed()} (${fill.symbol})`);
    if (fill.side !== 'buy' && fill.side !== 'sell') {
      throw new TypeError(`fill.side must be "buy" or "sell", got ${JSON.stringify(fill.side)}`);
    }
    if (fill.quoteCoin !== this.quoteCoin) {
      throw new TypeError(
        `fill of ${fill.symbol} quotes in ${fill.quoteCoin} but this portfolio counts equity in ${this.quoteCoin}`,
      );
    }
    if (fill.feeCoin !== fill.quoteCoin && !fee.isZero()) {
      throw new TypeError(
        `fill of ${fill.symbol} charges its fee in ${fill.feeCoin}; tradebot charges fees in the quote coin ` +
          `${fill.quoteCoin} (fee = price x size x rate, see feeFor)`,
      );
    }
    const pos = this.state(fill.symbol, fill.baseCoin, fill.quoteCoin);
    pos.view = undefined;
    const notional = fill.notional ?? price.times(size);
    const buy = fill.side === 'buy';
    const signed = buy ? size : size.neg();
    const quoteMove = buy ? notional.plus(fee).neg() : notional.minus(fee);
    const baseBefore = this.cash(fill.baseCoin);
    const quoteBefore = this.cash(fill.quoteCoin);

    this.addCash(fill.quoteCoin, quoteMove);
    this.addCash(fill.baseCoin, signed);
    pos.fees = pos.fees.plus(fee);
    if (this.loanBook !== undefined) {
      const f = { ...fill, price, baseMove: signed, quoteMove, baseBefore, quoteBefore };
      this.addCash(fill.quoteCoin, this.loanBook.book(f).neg());
    }

    const q = pos.qty;
    if (q.isZero()) {
      // Opening: the cost basis is the exact notional, so the average is the fill's price.
      pos.cost = buy ? notional : notional.neg();
      pos.qty = signed;
      pos.avg = price;
    } else if (aboveZero(q) === buy) {
      // Adding: the cost basis grows by the exact notional.
      pos.cost = pos.cost.plus(buy ? notional : notional.neg());
      pos.qty = q.plus(signed);
      pos.avg = undefined;
    } else {
      const open = q.abs();
      const closing = Decimal.min(open, size);
      // The closed share of the cost basis; a full close releases all of it, so no rounding is left behind.
      // A partial share is a quotient, rounded to RELEASED_PLACES: the realised PnL reads -3.413771, not
      // -3.4137709999999999999999999999999999991, and every later sum stays exact.
      const released = closing.eq(open)
        ? pos.cost
        : pos.cost.times(closing).div(open).toDecimalPlaces(RELEASED_PLACES, Decimal.ROUND_HALF_EVEN);
      const closedSigned = aboveZero(q) ? closing : closing.neg();
      pos.realised = pos.realised.plus(closedSigned.times(price)).minus(released);
      pos.cost = pos.cost.minus(released);
      pos.qty = q.plus(signed);
      const rest = size.minus(closing);
      pos.avg = undefined;
      if (aboveZero(rest)) {
        // Flipped through zero: the rest opens a position at the fill's price.
        pos.cost = buy ? rest.times(price) : rest.times(price).neg();
        pos.avg = price;
      }
    }
    if (pos.qty.isZero()) pos.cost = ZERO;
    if (pos.mark === undefined) pos.mark = price;
    if (fill.ts > pos.lastFillTs) pos.lastFillTs = fill.ts;
  }

  /** Whether a MARGIN bot owes a loan now (false for a SPOT portfolio); `margin(now)` values them. */
  get owesLoan(): boolean {
    return this.loanBook?.owing === true;
  }

  /**
   * A MARGIN bot's loans with their interest accrued up to venue time `now` (the model's accrueInterest),
   * and its risk ratio at the marks; undefined for a SPOT portfolio (see LoanBook).
   */
  margin(now: number): MarginFigures | undefined {
    return this.loanBook?.figures(now, this.balances, (coin) => {
      if (coin === this.quoteCoin) return ONE;
      for (const s of this.book.values()) if (s.baseCoin === coin) return s.mark ?? ZERO;
      return ZERO;
    });
  }

  /** Sets the mark price of a symbol (e.g. the last trade or the candle close). */
  mark(symbol: string, price: DecimalLike): void {
    const p = dec(price, `mark of ${symbol}`);
    const pos = this.book.get(symbol);
    if (pos !== undefined) {
      pos.mark = p;
      pos.view = undefined;
    } else this.marks.set(symbol, p);
  }

  /** Mark of a symbol, if known. */
  markOf(symbol: string): Decimal | undefined {
    return this.book.get(symbol)?.mark ?? this.marks.get(symbol);
  }

  position(symbol: string): Position {
    const s = this.book.get(symbol);
    if (s === undefined) {
      // A record like a traded symbol's (one shape for the callers: a flat literal here made the strategy's
      // and the gate's code see two, and a second run in one process threw their compiled code away).
      return toPosition({
        symbol,
        baseCoin: '',
        quoteCoin: this.quoteCoin,
        qty: ZERO,
        cost: ZERO,
        realised: ZERO,
        fees: ZERO,
        mark: this.marks.get(symbol),
        lastFillTs: 0,
        avg: ZERO,
        view: undefined,
      });
    }
    return (s.view ??= toPosition(s));
  }

  /** Every symbol ever traded (flat ones included, they carry realised PnL), sorted by symbol. */
  positions(): Position[] {
    return [...this.book.keys()].sort().map((k) => toPosition(this.book.get(k) as PositionState));
  }

  cash(coin: string): Decimal {
    return this.balances.get(coin) ?? ZERO;
  }

  /** All balances, sorted by coin. */
  allCash(): Record<string, Decimal> {
    const out: Record<string, Decimal> = {};
    for (const k of [...this.balances.keys()].sort()) out[k] = this.balances.get(k) as Decimal;
    return out;
  }

  /**
   * Quote-coin cash + sum of quantity x mark over positions. Balances of other coins that no fill
   * explains (e.g. a starting base-coin balance) are not valued.
   */
  equity(): Decimal {
    let e = this.cash(this.quoteCoin);
    for (const s of this.book.values())
      if (!s.qty.isZero() && s.mark !== undefined) e = e.plus(s.qty.times(s.mark));
    return e;
  }

  /** Sum of realised PnL over symbols (before fees). */
  realisedPnl(): Decimal {
    let t = ZERO;
    for (const s of this.book.values()) t = t.plus(s.realised);
    return t;
  }

  /** Sum of unrealised PnL at the marks. */
  unrealisedPnl(): Decimal {
    let t = ZERO;
    for (const s of this.book.values()) t = t.plus(unrealisedAt(s.qty, s.mark, s.cost));
    return t;
  }

  /** Sum of fees paid (quote coin). */
  fees(): Decimal {
    let t = ZERO;
    for (const s of this.book.values()) t = t.plus(s.fees);
    return t;
  }

  /** Appends the current equity at `ts` to the series and returns it. */
  recordEquity(ts: number): Decimal {
    const equity = this.equity();
    this.series.push({ ts, equity });
    return equity;
  }

  /** The recorded equity series, oldest first. */
  equitySeries(): readonly EquitySample[] {
    return this.series;
  }

  /** Plain JSON (decimal strings, sorted keys) that `Portfolio.restore` takes back exactly. */
  snapshot(): PortfolioSnapshot {
    const cash: Record<string, string> = {};
    for (const [k, v] of Object.entries(this.allCash())) cash[k] = toWire(v);
    return {
      version: 1,
      quoteCoin: this.quoteCoin,
      cash,
      positions: [...this.book.keys()].sort().map((k) => {
        const s = this.book.get(k) as PositionState;
        return {
          symbol: s.symbol,
          baseCoin: s.baseCoin,
          quoteCoin: s.quoteCoin,
          quantity: toWire(s.qty),
          cost: toWire(s.cost),
          realisedPnl: toWire(s.realised),
          fees: toWire(s.fees),
          ...(s.mark === undefined ? {} : { mark: toWire(s.mark) }),
          lastFillTs: s.lastFillTs,
        };
      }),
      equitySeries: this.series.map((e) => ({ ts: e.ts, equity: toWire(e.equity) })),
      marks: Object.fromEntries(
        [...this.marks.keys()].sort().map((k) => [k, toWire(this.marks.get(k) as Decimal)]),
      ),
    };
  }

  private state(symbol: string, baseCoin: string, quoteCoin: string): PositionState {
    let s = this.book.get(symbol);
    if (s === undefined) {
      if (!baseCoin) throw new TypeError(`fill of ${symbol} needs its baseCoin`);
      s = {
        symbol,
        baseCoin,
        quoteCoin,
        qty: ZERO,
        cost: ZERO,
        realised: ZERO,
        fees: ZERO,
        mark: this.marks.get(symbol),
        lastFillTs: 0,
        avg: undefined,
        view: undefined,
      };
      this.marks.delete(symbol);
      this.book.set(symbol, s);
    } else if (s.baseCoin !== baseCoin || s.quoteCoin !== quoteCoin) {
      throw new TypeError(
        `fill of ${symbol} says ${baseCoin}/${quoteCoin} but earlier fills said ${s.baseCoin}/${s.quoteCoin}`,
      );
    }
    return s;
  }

  private addCash(coin: string, delta: Decimal): void {
    this.balances.set(coin, (this.balances.get(coin) ?? ZERO).plus(delta));
  }
}

/** quantity x mark - cost; zero when flat or never marked. */
function unrealisedAt(qty: Decimal, mark: Decimal | undefined, cost: Decimal): Decimal {
  return qty.isZero() || mark === undefined ? ZERO : qty.times(mark).minus(cost);
}

/**
 * A position as read at one moment. Its average price and unrealised PnL (a division, a product) are
 * worked out when read: a strategy that asks for the quantity at every candle pays for neither.
 */
class PositionRecord implements Position {
  readonly symbol: string;
  readonly baseCoin: string;
  readonly quoteCoin: string;
  readonly quantity: Decimal;
  readonly realisedPnl: Decimal;
  readonly cost: Decimal;
  readonly fees: Decimal;
  readonly mark: Decimal | undefined;
  readonly lastFillTs: number;
  private avg: Decimal | undefined;
  private unrealised: Decimal | undefined = undefined;

  constructor(s: PositionState) {
    this.symbol = s.symbol;
    this.baseCoin = s.baseCoin;
    this.quoteCoin = s.quoteCoin;
    this.quantity = s.qty;
    this.realisedPnl = s.realised;
    this.cost = s.cost;
    this.fees = s.fees;
    this.mark = s.mark;
    this.lastFillTs = s.lastFillTs;
    this.avg = s.avg;
  }

  get avgPrice(): Decimal {
    return (this.avg ??= this.quantity.isZero() ? ZERO : this.cost.div(this.quantity));
  }

  get unrealisedPnl(): Decimal {
    return (this.unrealised ??= unrealisedAt(this.quantity, this.mark, this.cost));
  }

  /** Plain fields, as before the record had getters (JSON, spreads in tests and logs). */
  toJSON(): Position {
    return {
      symbol: this.symbol,
      baseCoin: this.baseCoin,
      quoteCoin: this.quoteCoin,
      quantity: this.quantity,
      avgPrice: this.avgPrice,
      realisedPnl: this.realisedPnl,
      cost: this.cost,
      fees: this.fees,
      mark: this.mark,
      unrealisedPnl: this.unrealisedPnl,
      lastFillTs: this.lastFillTs,
    };
  }
}

function toPosition(s: PositionState): Position {
  return new PositionRecord(s);
}
