// The matching core: accounts and balances, orders, fills and fees, with no HTTP and no clock of its
// own. The simulator's HTTP layer and the backtester both drive it in-process; everything it needs
// from the market comes through the small MarketView port, and time is passed in by the caller.
import { Decimal, ZERO, aboveZero } from '../market/decimal.js';
import type { Side, TradeCategory } from '../market/intent.js';
import type { MarginModel } from '../market/margin.js';
import { record } from '../market/shapes.js';
import { fillFee, type Liquidity } from '../portfolio/fees.js';
import type { Balance, CoreFill, CoreRefusal, MarketView, PairSpec } from './core-types.js';
import { MarginAccounts, type MarginAccountView } from './margin-accounts.js';

export type { Balance, CoreFill, CoreRefusal, Level, MarketView, PairSpec } from './core-types.js';
export type { MarginAccountView, MarginLiquidation } from './margin-accounts.js';

export type { Side };
export type OrderStatus = 'live' | 'partially_filled' | 'filled' | 'cancelled';

/** An order as the core keeps it. `qty` is as placed: quote amount for a market buy, base otherwise. */
export interface CoreOrder {
  readonly orderId: string;
  readonly clientOid: string;
  readonly accountId: string;
  readonly symbol: string;
  readonly side: Side;
  readonly orderType: 'limit' | 'market';
  readonly price: Decimal | undefined;
  readonly qty: Decimal;
  status: OrderStatus;
  /** Base quantity filled. */
  filledQty: Decimal;
  /** Quote value filled (sum of price x size), fees excluded. */
  filledQuote: Decimal;
  /** Fees paid, in the quote coin. */
  fee: Decimal;
  readonly createdAt: number;
  updatedAt: number;
  /** Quote (buy) or base (sell) still reserved for the resting part. */
  reserved: Decimal;
  /** Until when resting fills have been looked for. */
  checkedUntil: number;
  readonly seq: number;
}

export interface AccountSetup {
  /** Fee rate for both maker and taker fills (default 0.001). */
  readonly feeRate?: Decimal | undefined;
  readonly makerFeeRate?: Decimal | undefined;
  readonly takerFeeRate?: Decimal | undefined;
  /** Initial balances by coin. */
  readonly balances?: Readonly<Record<string, Decimal>> | undefined;
}

interface Account {
  readonly id: string;
  readonly maker: Decimal;
  readonly taker: Decimal;
  // Derived once: every order and fill needs them (a fill's reservation is released at these rates).
  /** 1 + taker: the reservation of a market buy per unit of quote. */
  readonly takerReserve: Decimal;
  /** 1 + max(maker, taker): the reservation of a limit buy per unit of notional. */
  readonly limitReserve: Decimal;
  readonly balances: Map<string, Balance>;
  readonly clientOids: Set<string>;
  readonly fills: CoreFill[];
}

export interface PlaceRequest {
  readonly symbol: string;
  readonly side: Side;
  readonly orderType: 'limit' | 'market';
  /** Quote amount for a market buy, base quantity otherwise. */
  readonly qty: Decimal;
  /** Required for a limit order. */
  readonly price?: Decimal | undefined;
  readonly clientOid?: string | undefined;
  /** MARGIN may borrow what the balance lacks (default SPOT). */
  readonly category?: TradeCategory | undefined;
}

export type PlaceResult =
  { readonly ok: true; readonly order: CoreOrder; readonly fills: CoreFill[] } | CoreRefusal;

/** What `MatchingCore.state()` answers and `restore()` takes. */
export interface CoreState {
  readonly orderSeq: number;
  readonly execSeq: number;
  readonly accounts: readonly {
    readonly id: string;
    readonly maker: Decimal;
    readonly taker: Decimal;
    readonly balances: Readonly<Record<string, Balance>>;
    readonly clientOids: readonly string[];
    readonly fills: readonly CoreFill[];
  }[];
  readonly orders: readonly (CoreOrder & { readonly resting: boolean })[];
}

/** Default fee rate of Reality and spot pairs. */
export const DEFAULT_FEE_RATE = new Decimal('0.001');

/**
 * Order ids are 1300000000000000000 + n and execution ids 1400000000000000000 + n (19 digits, as the
 * venue's): the prefix and n written on 17 digits, without BigInt arithmetic per order.
 */
const venueId = (prefix: '13' | '14', n: number): string => `${prefix}${String(n).padStart(17, '0')}`;

/**
 * The matching core.
 *
 * @example
 * const core = new MatchingCore({ market, pair: (s) => pairs.get(s) });
 * core.createAccount('alice', { balances: { USDT: new Decimal('1000') } });
 * const r = core.place('alice', { symbol: 'AAPLUSDT', side: 'buy', orderType: 'market', qty: new Decimal('100') }, now);
 */
export class MatchingCore {
  private readonly accounts = new Map<string, Account>();
  private readonly orders: CoreOrder[] = [];
  private readonly resting: CoreOrder[] = [];
  private orderSeq = 0;
  private execSeq = 0;

  constructor(
    private readonly opts: {
      readonly market: MarketView;
      readonly pair: (symbol: string) => PairSpec | undefined;
      /**
       * Whether every order and fill is kept for `listOrders` and `listFills` (default true: the
       * simulator's history endpoints read them). A backtest's venue hands each fill over as it happens
       * and reads no history: without it, memory does not grow with the orders of a long run.
       */
      readonly history?: boolean | undefined;
      /** Interest of margin loans (default DEFAULT_MARGIN_MODEL). */
      readonly margin?: MarginModel | undefined;
    },
  ) {
    this.history = opts.history !== false;
    this.marginAccounts = new MarginAccounts(
      {
        market: opts.market,
        pair: opts.pair,
        balance: (id, coin) => this.bal(this.account(id), coin),
        balances: (id) => this.account(id).balances,
        bookLiquidation: (id, pair, side, price, size, ts) =>
          this.bookLiquidation(this.account(id), pair, side, price, size, ts),
      },
      opts.margin,
    );
  }
  /** The margin side of the accounts (the simulator's model, src/market/margin.ts). */
  private readonly marginAccounts: MarginAccounts;
  /** Resting MARGIN orders (their fills repay loans). */
  private readonly marginResting = new Set<string>();

  /** Sets an account's cross-margin leverage for a coin (set-leverage, category MARGIN). */
  setLeverage(accountId: string, coin: string, leverage: Decimal): void {
    this.account(accountId);
    this.marginAccounts.setLeverage(accountId, coin, leverage);
  }

  /** Whether any account owes a loan (its interest and liquidation move with time: call `advance`). */
  get hasLoans(): boolean {
    return this.marginAccounts.hasLoans;
  }

  /** An account's margin: loans (interest charged up to `now`), assets, liabilities, risk ratio, liquidations. */
  margin(accountId: string, quoteCoin: string, now: number): MarginAccountView {
    this.account(accountId);
    this.advance(now);
    return this.marginAccounts.view(accountId, quoteCoin, now);
  }

  /** A liquidation's market order and its one fill, at `price`, as a taker. */
  private bookLiquidation(
    acct: Account,
    pair: PairSpec,
    side: Side,
    price: Decimal,
    size: Decimal,
    ts: number,
  ): CoreFill {
    const seq = ++this.orderSeq;
    const order: CoreOrder = {
      orderId: venueId('13', seq),
      clientOid: '',
      accountId: acct.id,
      symbol: pair.symbol,
      side,
      orderType: 'market',
      price: undefined,
      qty: size,
      status: 'live',
      filledQty: ZERO,
      filledQuote: ZERO,
      fee: ZERO,
      createdAt: ts,
      updatedAt: ts,
      reserved: ZERO,
      checkedUntil: ts,
      seq,
    };
    if (this.history) this.orders.push(order);
    const fill = this.applyFill(acct, pair, order, price, size, 'taker', ts);
    order.status = 'filled';
    return fill;
  }
  private readonly history: boolean;

  /** Creates (or replaces) an account. */
  createAccount(id: string, setup: AccountSetup = {}): void {
    const rate = setup.feeRate ?? DEFAULT_FEE_RATE;
    const balances = new Map<string, Balance>();
    for (const [coin, amount] of Object.entries(setup.balances ?? {}))
      balances.set(coin, { available: amount, frozen: ZERO });
    const maker = setup.makerFeeRate ?? rate;
    const taker = setup.takerFeeRate ?? rate;
    const maxRate = Decimal.max(maker, taker);
    // A record, not a literal: the matching code reads it (src/market/shapes.ts).
    this.accounts.set(
      id,
      record({
        id,
        maker,
        taker,
        takerReserve: taker.plus(1),
        limitReserve: maxRate.plus(1),
        balances,
        clientOids: new Set<string>(),
        fills: [] as CoreFill[],
      }),
    );
  }

  hasAccount(id: string): boolean {
    return this.accounts.has(id);
  }

  private account(id: string): Account {
    const a = this.accounts.get(id);
    if (!a) throw new Error(`matching core: unknown account ${id}`);
    return a;
  }

  private bal(a: Account, coin: string): Balance {
    let b = a.balances.get(coin);
    if (!b) {
      b = { available: ZERO, frozen: ZERO };
      a.balances.set(coin, b);
    }
    return b;
  }

  /** Adds (or, negative, removes) an amount to a coin's available balance; refuses to go below zero. */
  fund(accountId: string, coin: string, amount: Decimal): Balance {
    const b = this.bal(this.account(accountId), coin);
    const next = b.available.plus(amount);
    if (next.isNegative())
      throw new Error(`matching core: ${accountId} has only ${b.available.toFixed()} ${coin} available`);
    b.available = next;
    return { ...b };
  }

  /** Balances by coin (copies). */
  balances(accountId: string): Record<string, Balance> {
    const out: Record<string, Balance> = {};
    for (const [coin, b] of this.account(accountId).balances)
      out[coin] = { available: b.available, frozen: b.frozen };
    return out;
  }

  /** The account's fee rates. */
  feeRates(accountId: string): { maker: Decimal; taker: Decimal } {
    const a = this.account(accountId);
    return { maker: a.maker, taker: a.taker };
  }

  /** Whether the account has used this clientOid. */
  hasClientOid(accountId: string, clientOid: string): boolean {
    return this.account(accountId).clientOids.has(clientOid);
  }

  /** Orders of an account (or all), oldest first. */
  listOrders(accountId?: string): CoreOrder[] {
    return this.orders.filter((o) => accountId === undefined || o.accountId === accountId);
  }

  /** Fills of an account, newest first; optionally one symbol and not older than `since`. */
  listFills(accountId: string, symbol?: string, since?: number): CoreFill[] {
    const out: CoreFill[] = [];
    const fills = this.account(accountId).fills;
    for (let i = fills.length - 1; i >= 0; i--) {
      const f = fills[i] as CoreFill;
      if (symbol !== undefined && f.symbol !== symbol) continue;
      if (since !== undefined && f.ts < since) continue;
      out.push(f);
    }
    return out;
  }

  /**
   * Places an order at `now`. Resting orders are first brought up to `now` (call `advance` yourself
   * when time moves without orders). A market order fills at once against the levels (what the
   * levels cannot absorb is cancelled); a limit order takes the levels it crosses as a taker and
   * rests for the rest, filling as a maker at its price when the market reaches it.
   */
  place(accountId: string, req: PlaceRequest, now: number): PlaceResult {
    const acct = this.account(accountId);
    const pair = this.opts.pair(req.symbol);
    if (!pair) return { ok: false, code: '40034', msg: `symbol ${req.symbol} does not exist` };
    if (req.clientOid !== undefined && acct.clientOids.has(req.clientOid)) {
      return {
        ok: false,
        code: '95212',
        msg: `clientOid ${req.clientOid} was already used by an order of this account`,
      };
    }
    if (req.orderType === 'limit' && req.price === undefined)
      throw new Error('matching core: limit order without price');
    this.advance(now);
    // What the order needs reserved up front: the worst case of its fees included.
    let reserve: Decimal;
    if (req.side === 'sell') reserve = req.qty;
    else if (req.orderType === 'market') reserve = req.qty.mul(acct.takerReserve);
    else reserve = (req.price as Decimal).mul(req.qty).mul(acct.limitReserve);
    const coin = req.side === 'buy' ? pair.quoteCoin : pair.baseCoin;
    const from = this.bal(acct, coin);
    const borrowed =
      req.category === 'MARGIN' ? this.marginAccounts.borrowFor(accountId, pair, coin, reserve, now) : ZERO;
    if (!(borrowed instanceof Decimal)) return borrowed;
    if (from.available.lt(reserve)) {
      return {
        ok: false,
        code: '25202',
        msg: `insufficient balance: the order needs ${reserve.toFixed()} ${coin}, ${from.available.toFixed()} is available`,
      };
    }
    // Only a limit order may rest, so only it freezes its reservation; a market order is done before
    // place() returns, and pays its fills straight from the available balance (the same end balances).
    const limit = req.orderType === 'limit';
    if (limit) {
      from.available = from.available.minus(reserve);
      from.frozen = from.frozen.plus(reserve);
    }
    const seq = ++this.orderSeq;
    const order: CoreOrder = {
      orderId: venueId('13', seq),
      clientOid: req.clientOid ?? '',
      accountId,
      symbol: req.symbol,
      side: req.side,
      orderType: req.orderType,
      price: req.price,
      qty: req.qty,
      status: 'live',
      filledQty: ZERO,
      filledQuote: ZERO,
      fee: ZERO,
      createdAt: now,
      updatedAt: now,
      reserved: limit ? reserve : ZERO,
      checkedUntil: now,
      seq,
    };
    if (req.clientOid !== undefined) acct.clientOids.add(req.clientOid);
    if (this.history) this.orders.push(order);
    this.marginAccounts.trackOrder(order.orderId, accountId, pair, coin, reserve, borrowed);
    const fills = this.takeLiquidity(acct, pair, order, now);
    if (order.orderType === 'market' || this.remainingBase(order).isZero()) {
      this.finish(acct, pair, order, now);
      if (req.category === 'MARGIN') this.marginAccounts.repayFrom(accountId, pair, now);
    } else {
      if (req.category === 'MARGIN') this.marginResting.add(order.orderId);
      this.resting.push(order);
    }
    return { ok: true, order, fills };
  }

  private remainingBase(o: CoreOrder): Decimal {
    return o.orderType === 'market' && o.side === 'buy' ? ZERO : o.qty.minus(o.filledQty);
  }

  /** Walks the levels as a taker. */
  private takeLiquidity(acct: Account, pair: PairSpec, order: CoreOrder, now: number): CoreFill[] {
    const fills: CoreFill[] = [];
    const marketBuy = order.orderType === 'market' && order.side === 'buy';
    let remaining = order.qty; // quote for a market buy, base otherwise
    // What the last level took, subtracted only when another level comes (most orders meet one).
    let taken: Decimal | undefined;
    for (const lv of this.opts.market.levels(order.symbol, order.side, now)) {
      if (taken !== undefined) remaining = remaining.minus(taken);
      if (!aboveZero(remaining)) break;
      if (order.price !== undefined) {
        if (order.side === 'buy' ? lv.price.gt(order.price) : lv.price.lt(order.price)) break;
      }
      let size: Decimal;
      if (marketBuy) {
        size =
          lv.unlimited !== true && lv.price.mul(lv.qty).lte(remaining)
            ? lv.qty
            : remaining.div(lv.price).toDecimalPlaces(pair.quantityPrecision, Decimal.ROUND_DOWN);
        if (!aboveZero(size)) break;
        const notional = lv.price.mul(size);
        taken = notional;
        fills.push(this.applyFill(acct, pair, order, lv.price, size, 'taker', now, notional));
      } else {
        size = lv.unlimited === true ? remaining : Decimal.min(lv.qty, remaining);
        taken = size;
        fills.push(this.applyFill(acct, pair, order, lv.price, size, 'taker', now));
      }
    }
    return fills;
  }

  /** Books one fill: balances, fees, the order's totals and the account's fill list. */
  private applyFill(
    acct: Account,
    pair: PairSpec,
    order: CoreOrder,
    price: Decimal,
    size: Decimal,
    liquidity: Liquidity,
    ts: number,
    notional: Decimal = price.mul(size),
  ): CoreFill {
    const fee = fillFee(notional, liquidity, acct);
    const quote = this.bal(acct, pair.quoteCoin);
    const base = this.bal(acct, pair.baseCoin);
    if (order.orderType === 'market') {
      // Nothing was frozen (see place): the fill moves the available balances.
      if (order.side === 'buy') {
        quote.available = quote.available.minus(notional).minus(fee);
        base.available = base.available.plus(size);
      } else {
        base.available = base.available.minus(size);
        quote.available = quote.available.plus(notional).minus(fee);
      }
    } else if (order.side === 'buy') {
      // Release this portion's reservation, then pay what it actually cost.
      const released = (order.price as Decimal).mul(size).mul(acct.limitReserve);
      const rel = Decimal.min(released, order.reserved);
      order.reserved = order.reserved.minus(rel);
      quote.frozen = quote.frozen.minus(rel);
      quote.available = quote.available.plus(rel).minus(notional).minus(fee);
      base.available = base.available.plus(size);
    } else {
      order.reserved = order.reserved.minus(size);
      base.frozen = base.frozen.minus(size);
      quote.available = quote.available.plus(notional).minus(fee);
    }
    order.filledQty = order.filledQty.plus(size);
    order.filledQuote = order.filledQuote.plus(notional);
    order.fee = order.fee.plus(fee);
    order.updatedAt = ts;
    order.status = 'partially_filled';
    const fill: CoreFill = {
      execId: venueId('14', ++this.execSeq),
      orderId: order.orderId,
      clientOid: order.clientOid,
      accountId: acct.id,
      symbol: order.symbol,
      side: order.side,
      price,
      size,
      notional,
      fee,
      feeCoin: pair.quoteCoin,
      liquidity,
      ts,
    };
    if (this.history) acct.fills.push(fill);
    this.marginAccounts.noteFill(acct.id, pair, price);
    this.marginAccounts.onOrderFill(
      order.orderId,
      price,
      order.side === 'buy' ? notional.plus(fee) : size,
      ts,
    );
    return fill;
  }

  /** Closes an order: what is still reserved goes back to available. */
  private finish(acct: Account, pair: PairSpec, order: CoreOrder, now: number): void {
    if (!order.reserved.isZero()) {
      const b = this.bal(acct, order.side === 'buy' ? pair.quoteCoin : pair.baseCoin);
      b.frozen = b.frozen.minus(order.reserved);
      b.available = b.available.plus(order.reserved);
      order.reserved = ZERO;
    }
    const complete =
      order.orderType === 'limit' ? this.remainingBase(order).isZero() : aboveZero(order.filledQty);
    order.status = complete ? 'filled' : 'cancelled';
    if (order.orderType === 'market' && order.side === 'sell' && order.filledQty.lt(order.qty))
      order.status = 'cancelled';
    order.updatedAt = Math.max(order.updatedAt, now);
    this.marginAccounts.endOrder(order.orderId);
  }

  /** Whether any limit order is resting (lets a caller skip `advance` on its hot path). */
  get hasResting(): boolean {
    return this.resting.length > 0;
  }

  /**
   * Brings resting limit orders up to `now`: each fills in full at its price, as a maker, at the first
   * instant the market reaches it. Fills are applied in time order (then placement order), so the
   * outcome does not depend on how often this is called.
   */
  advance(now: number): CoreFill[] {
    const liquidated = this.marginAccounts.hasLoans ? this.marginAccounts.liquidate(now) : [];
    if (this.resting.length === 0) return liquidated;
    const hits: { order: CoreOrder; ts: number }[] = [];
    for (const o of this.resting) {
      if (o.checkedUntil >= now) continue;
      const ts = this.opts.market.firstTouch(o.symbol, o.side, o.price as Decimal, o.checkedUntil + 1, now);
      o.checkedUntil = now;
      if (ts !== undefined) hits.push({ order: o, ts });
    }
    hits.sort((a, b) => a.ts - b.ts || a.order.seq - b.order.seq);
    const fills: CoreFill[] = liquidated;
    for (const { order, ts } of hits) {
      const acct = this.account(order.accountId);
      const pair = this.opts.pair(order.symbol) as PairSpec;
      fills.push(
        this.applyFill(acct, pair, order, order.price as Decimal, this.remainingBase(order), 'maker', ts),
      );
      this.finish(acct, pair, order, ts);
      this.resting.splice(this.resting.indexOf(order), 1);
      if (this.marginResting.delete(order.orderId)) this.marginAccounts.repayFrom(acct.id, pair, ts);
    }
    return fills;
  }

  /**
   * Everything the core holds, as copies: accounts (balances, used clientOids, fills), orders (the
   * resting ones marked) and the id counters. `restore` on a core over the same pairs gives it back
   * exactly (the paper venue journals it after each change).
   */
  state(): CoreState {
    return {
      orderSeq: this.orderSeq,
      execSeq: this.execSeq,
      accounts: [...this.accounts.values()].map((a) => ({
        id: a.id,
        maker: a.maker,
        taker: a.taker,
        balances: Object.fromEntries([...a.balances].map(([c, b]) => [c, { ...b }])),
        clientOids: [...a.clientOids],
        fills: [...a.fills],
      })),
      orders: this.orders.map((o) => ({ ...o, resting: this.resting.includes(o) })),
    };
  }

  /** Replaces everything the core holds with a `state()` taken before (see there). */
  restore(s: CoreState): void {
    this.accounts.clear();
    this.marginAccounts.clear(); // loans are not in a state (the paper venue trades SPOT)
    for (const a of s.accounts) {
      this.createAccount(a.id, { makerFeeRate: a.maker, takerFeeRate: a.taker });
      const acct = this.account(a.id);
      for (const [coin, b] of Object.entries(a.balances))
        acct.balances.set(coin, { available: b.available, frozen: b.frozen });
      for (const c of a.clientOids) acct.clientOids.add(c);
      acct.fills.push(...a.fills);
    }
    this.orders.length = 0;
    this.resting.length = 0;
    for (const { resting, ...o } of s.orders) {
      const order: CoreOrder = { ...o };
      this.orders.push(order);
      if (resting) this.resting.push(order);
    }
    this.orderSeq = s.orderSeq;
    this.execSeq = s.execSeq;
  }

  /** Cancels a resting order (admin operation); answers whether it was resting. */
  cancel(orderId: string, now: number): boolean {
    const o = this.resting.find((x) => x.orderId === orderId);
    if (!o) return false;
    this.advance(now);
    if (!this.resting.includes(o)) return false;
    const acct = this.account(o.accountId);
    const pair = this.opts.pair(o.symbol) as PairSpec;
    this.finish(acct, pair, o, now);
    o.status = 'cancelled';
    this.resting.splice(this.resting.indexOf(o), 1);
    return true;
  }
}
