// The simulated venue without HTTP: instruments, market, Reality data, accounts, the matching core,
// withdrawals and leverage, answering each catalogue endpoint with its data or a venue error. The
// HTTP gateway and the admin API sit on top; tests and the demo may also drive it in code. This class
// holds the state and routes each endpoint; the answers live beside it (market-answers.ts,
// reality-orders.ts, accounts.ts, withdrawals.ts, leverage.ts).
import type { Category, EndpointName, Instrument, ParamsOut } from '../api/index.js';
import type { Clock } from '../feeds/clock.js';
import { liveClock } from '../feeds/clock.js';
import { Decimal, toWire } from '../market/decimal.js';
import { marginPairRules, type MarginModel } from '../market/margin.js';
import type { AccountPermission, SimAccountOptions } from './accounts.js';
import { DEMO_ACCOUNT, SimAccounts } from './accounts.js';
import type { SimCredentials } from './auth.js';
import type { CandleFills } from './core-market-view.js';
import { candleFillsOf, coreMarketView } from './core-market-view.js';
import type { FaultConfig } from './faults.js';
import { FaultInjector } from './faults.js';
import { InstrumentTable } from './instrument-table.js';
import type { SimInstrument } from './instruments.js';
import { DEFAULT_SUSPENDED_CODES, isSyntheticRealityCode, simInstruments } from './instruments.js';
import { LeverageSettings } from './leverage.js';
import {
  bookJson,
  candlesJson,
  deliveryStatus,
  instrumentsOf,
  marketCalendar,
  marketStates,
  rpiSymbols,
  TickerLists,
} from './market-answers.js';
import type { InstrumentMarket, ReplaySource } from './market-model.js';
import { MarketModel } from './market-model.js';
import type { Balance, CoreFill, CoreOrder, MarginAccountView, PairSpec } from './matching.js';
import { MatchingCore } from './matching.js';
import { RealityData, isRealityCode } from './reality-data.js';
import type { OrderDesk } from './reality-orders.js';
import { DEFAULT_FILL_IDS, placeRealityOrder, realityFills } from './reality-orders.js';
import { SimClock } from './sim-clock.js';
import { SimError } from './sim-error.js';
import type { SimWithdrawal } from './withdrawals.js';
import { Withdrawals } from './withdrawals.js';

/** Options of the engine (the market, the accounts and the rules). */
export interface EngineOptions {
  /** Seed of the market, the company data and the faults (default 42). */
  readonly seed?: number | undefined;
  /** Simulated ms per real ms (default 1). */
  readonly speed?: number | undefined;
  /** Simulated start time, Unix ms (default: the base clock's now). */
  readonly startTime?: number | undefined;
  /** Base clock (default real time); tests pass a VirtualClock. */
  readonly clock?: Clock | undefined;
  /** Accounts (default one demo account: sim-key / sim-secret / sim-passphrase, all permissions). */
  readonly accounts?: readonly SimAccountOptions[] | undefined;
  /** Fault injection (default none). */
  readonly faults?: FaultConfig | undefined;
  /** Recorded 1m candles to replay instead of the generated market, per symbol. */
  readonly replay?: ReplaySource | undefined;
  /** Cooling period of a withdrawal in simulated ms (default 5 minutes). */
  readonly withdrawalCoolingMs?: number | undefined;
  /** How often the synthetic order book changes, simulated ms (default 1000). */
  readonly bookCadenceMs?: number | undefined;
  /** Enforce the rate limits of spec section 8 (default true). */
  readonly rateLimits?: boolean | undefined;
  /** Reality codes suspended at start (default GOOGL). */
  readonly suspendedCodes?: readonly string[] | undefined;
  /**
   * Synthetic Reality pairs listed beside the real ones, with the same rules (XAAAUSDT, XAABUSDT, ...;
   * 0 to MAX_EXTRA_PAIRS, default 0): benches of many symbols. Ignored when `instruments` is given.
   */
  readonly extraPairs?: number | undefined;
  /** Replace the instrument table (default `simInstruments(startTime, extraPairs)`). */
  readonly instruments?: readonly SimInstrument[] | undefined;
  /**
   * Fill orders of replayed symbols by the backtester's candle fill model (`candle-fills.ts`) instead of
   * the simulated order book, so paper trading on replayed candles fills exactly as a backtest does.
   */
  readonly candleFills?: { readonly slippageBps?: number | undefined } | undefined;
  /**
   * Add orderId and clientOid to each reality-fill (an extension; the venue gives five fields).
   * Default `DEFAULT_FILL_IDS`.
   */
  readonly fillIds?: boolean | undefined;
  /**
   * The margin model (interest rate and period) of MARGIN loans: the simulator's, not the venue's
   * (default `DEFAULT_MARGIN_MODEL`, src/market/margin.ts; docs/margin.md).
   */
  readonly margin?: MarginModel | undefined;
}

/**
 * Set to 1, a simulator started without a `startTime` or an injected clock refuses to start. The test suite
 * sets it (vitest.config.ts): a simulator on the wall clock makes a test pass on a Tuesday and fail on a
 * Saturday or a holiday, when the US market is closed.
 */
export const REQUIRE_PINNED_START = 'TRADEBOT_REQUIRE_PINNED_START';
const UNPINNED_START =
  `${REQUIRE_PINNED_START}=1 and the simulator was started on the wall clock: pin it with a startTime ` +
  `(startSimulator({ startTime: Date.UTC(2026, 10, 23, 15) }), venue.startTime in YAML, --start-time on the ` +
  `command line) or an injected VirtualClock, so the run is the same on any day`;

/** What an endpoint answers: data to serialise, or data already serialised (raw JSON numbers). */
export type HandlerResult = { readonly data: unknown } | { readonly raw: string };

/** The simulator's answer to one endpoint, with its validated parameters. */
type Handler<N extends EndpointName> = (params: ParamsOut<N>, ctx: CallContext, now: number) => HandlerResult;

export interface CallContext {
  readonly account?: SimCredentials | undefined;
  readonly locale?: string | undefined;
}

/** The simulated venue. */
export class SimEngine {
  readonly clock: SimClock;
  readonly seed: number;
  readonly instruments: readonly SimInstrument[];
  readonly market: MarketModel;
  readonly faults: FaultInjector;
  readonly rateLimits: boolean;
  readonly withdrawalCoolingMs: number;
  private readonly reality: RealityData;
  private readonly table: InstrumentTable;
  private readonly tickerLists: TickerLists;
  private readonly initialAccounts: readonly SimAccountOptions[];
  private core!: MatchingCore;
  private accounts!: SimAccounts;
  private withdrawals!: Withdrawals;
  private leverage!: LeverageSettings;
  private suspended: Set<string>;
  private readonly initialSuspended: readonly string[];
  private readonly bookCadenceMs: number;
  private candleFills: CandleFills | undefined;
  private readonly fillIds: boolean;
  private readonly syntheticCodes = new Set<string>();
  private readonly marginModel: MarginModel | undefined;

  constructor(opts: EngineOptions = {}) {
    this.fillIds = opts.fillIds ?? DEFAULT_FILL_IDS;
    this.marginModel = opts.margin;
    if (opts.clock === undefined && opts.startTime === undefined && process.env[REQUIRE_PINNED_START] === '1')
      throw new Error(UNPINNED_START);
    const base = opts.clock ?? liveClock;
    const start = opts.startTime ?? base.now();
    this.seed = opts.seed ?? 42;
    this.clock = new SimClock(base, start, opts.speed ?? 1);
    this.instruments = opts.instruments ?? simInstruments(start, opts.extraPairs ?? 0);
    // The table's synthetic codes have company data too: a bot on their pairs asks for their suspension.
    for (const i of this.instruments)
      if (i.realityCode !== undefined && isSyntheticRealityCode(i.realityCode))
        this.syntheticCodes.add(i.realityCode);
    this.bookCadenceMs = opts.bookCadenceMs ?? 1000;
    const replay = Object.fromEntries(Object.entries(opts.replay ?? {}).map(([k, v]) => [k, [...v]]));
    this.market = new MarketModel(this.instruments, this.seed, replay, this.bookCadenceMs);
    this.table = new InstrumentTable(this.instruments, this.market);
    this.tickerLists = new TickerLists(this.table, this.bookCadenceMs);
    if (opts.candleFills !== undefined)
      this.candleFills = candleFillsOf(this.table, replay, opts.candleFills);
    this.reality = new RealityData(this.seed, (code, ms) => this.realityPriceOnDay(code, ms));
    this.faults = new FaultInjector(this.seed, opts.faults ?? {});
    this.rateLimits = opts.rateLimits ?? true;
    this.withdrawalCoolingMs = opts.withdrawalCoolingMs ?? 5 * 60_000;
    this.initialSuspended = opts.suspendedCodes ?? DEFAULT_SUSPENDED_CODES;
    this.suspended = new Set(this.initialSuspended);
    this.initialAccounts = [...(opts.accounts ?? [DEMO_ACCOUNT])];
    this.resetState();
  }

  /** Current simulated time, Unix ms. */
  now(): number {
    return this.clock.now();
  }

  // ---- accounts and admin operations --------------------------------------------------------

  private resetState(): void {
    this.core = new MatchingCore({
      market: coreMarketView(this.table, this.candleFills),
      pair: (s) => this.pairSpec(s),
      margin: this.marginModel,
    });
    this.accounts = new SimAccounts(this.core);
    this.withdrawals = new Withdrawals(this.core, this.clock, this.withdrawalCoolingMs);
    this.leverage = new LeverageSettings();
    this.suspended = new Set(this.initialSuspended);
    for (const a of this.initialAccounts) this.accounts.add(a);
  }

  /** Resets accounts, orders, fills, withdrawals, leverage and suspensions to the start state (the clock keeps running). */
  reset(): void {
    this.resetState();
  }

  /** Adds an account; answers its UID. */
  addAccount(a: SimAccountOptions): string {
    return this.accounts.add(a);
  }

  /** Credentials by API key (for the gateway). */
  get credentials(): ReadonlyMap<string, SimCredentials> {
    return this.accounts.credentials;
  }

  private uidOf(apiKey: string): string {
    return this.accounts.uidOf(apiKey);
  }

  /** Public view of the accounts (no secrets). */
  listAccounts(): { uid: string; apiKey: string; permissions: AccountPermission[]; whitelisted: boolean }[] {
    return this.accounts.list();
  }

  /** Adds (negative: removes) funds. */
  fund(apiKey: string, coin: string, amount: string): { available: string; frozen: string } {
    const b = this.core.fund(this.uidOf(apiKey), coin, new Decimal(amount));
    return { available: toWire(b.available), frozen: toWire(b.frozen) };
  }

  /** Balances by coin as decimal strings. */
  balances(apiKey: string): Record<string, { available: string; frozen: string }> {
    this.core.advance(this.now());
    const out: Record<string, { available: string; frozen: string }> = {};
    for (const [coin, b] of Object.entries(this.core.balances(this.uidOf(apiKey)))) {
      out[coin] = { available: toWire(b.available), frozen: toWire(b.frozen) };
    }
    return out;
  }

  /** Raw Decimal balances (for in-process checks). */
  balancesDecimal(apiKey: string): Record<string, Balance> {
    this.core.advance(this.now());
    return this.core.balances(this.uidOf(apiKey));
  }

  /** Orders of an account, or of all accounts. */
  orders(apiKey?: string): CoreOrder[] {
    this.core.advance(this.now());
    return this.core.listOrders(apiKey === undefined ? undefined : this.uidOf(apiKey));
  }

  /** Fills of an account, newest first. */
  fills(apiKey: string, symbol?: string): CoreFill[] {
    this.core.advance(this.now());
    return this.core.listFills(this.uidOf(apiKey), symbol);
  }

  /** Cancels a resting order (admin). */
  cancelOrder(orderId: string): boolean {
    return this.core.cancel(orderId, this.now());
  }

  /** Creates a withdrawal in its cooling period; the amount leaves the available balance at once. */
  createWithdrawal(w: {
    apiKey: string;
    coin: string;
    amount: string;
    clientOid?: string | undefined;
  }): SimWithdrawal {
    return this.withdrawals.create(this.uidOf(w.apiKey), w);
  }

  /** Withdrawals (optionally of one account), with their status brought up to now. */
  listWithdrawals(apiKey?: string): SimWithdrawal[] {
    return this.withdrawals.list(apiKey === undefined ? undefined : this.uidOf(apiKey));
  }

  /** An account's margin: loans, interest, assets, liabilities, risk ratio and liquidations (admin API). */
  margin(apiKey: string): MarginAccountView {
    return this.core.margin(this.uidOf(apiKey), 'USDT', this.now());
  }

  /** Leverage settings of an account, by `category:symbolOrCoin:marginMode:side`. */
  leverageOf(apiKey: string): Record<string, string> {
    return this.leverage.of(this.uidOf(apiKey));
  }

  /** Suspends or resumes a Reality code. */
  setSuspended(code: string, suspended: boolean): void {
    if (!this.isCode(code)) throw new SimError('40034', `Reality code ${code} does not exist`);
    if (suspended) this.suspended.add(code);
    else this.suspended.delete(code);
  }

  suspendedCodes(): string[] {
    return [...this.suspended];
  }

  // ---- lookups --------------------------------------------------------------------------------

  /** The instrument of a category and symbol (MARGIN pairs answer their own row). */
  instrument(category: Category, symbol: string): SimInstrument | undefined {
    return this.table.get(category, symbol);
  }

  /** Whether a symbol is a Reality stock pair (for the catalogue's candle rules). */
  isRealitySymbol = (symbol: string): boolean => this.instrument('SPOT', symbol)?.wire.isReality === 'yes';

  /** The market of a spot symbol or `CATEGORY:SYMBOL`. */
  marketOf(symbol: string, category: Category = 'SPOT'): InstrumentMarket {
    return this.table.marketOf(this.table.need(category, symbol));
  }

  private pairSpec(symbol: string): PairSpec | undefined {
    const i = this.instrument('SPOT', symbol);
    const marginRow = this.instrument('MARGIN', symbol);
    return i
      ? {
          symbol,
          baseCoin: i.wire.baseCoin,
          quoteCoin: i.wire.quoteCoin,
          quantityPrecision: Number(i.wire.quantityPrecision),
          pricePrecision: Number(i.wire.pricePrecision),
          margin: marginRow === undefined ? undefined : marginPairRules(marginRow.wire),
        }
      : undefined;
  }

  /** What orders are placed on and checked against, as of now (a reset replaces the core). */
  private get desk(): OrderDesk {
    return { table: this.table, core: this.core, suspended: this.suspended };
  }

  /** Whether a code is a Reality company of this venue: a real one, or a synthetic pair of its table. */
  private isCode(code: string): boolean {
    return isRealityCode(code) || this.syntheticCodes.has(code);
  }

  private realityCode(code: string): string {
    if (!this.isCode(code))
      throw new SimError('40034', `code ${code} is not a Reality company code of this venue`);
    return code;
  }

  /** The price of a company's pair on the UTC day of `ms`, fixed per seed (for dated records). */
  private realityPriceOnDay(code: string, ms: number): Decimal {
    const inst = this.instrument('SPOT', `${code}USDT`);
    return inst ? this.market.of(inst).priceOnDay(ms) : new Decimal(100);
  }

  private realityPrice(code: string, now: number): Decimal {
    const inst = this.instrument('SPOT', `${code}USDT`);
    return inst ? new Decimal(this.market.of(inst).lastPrice(now)) : new Decimal(100);
  }

  // ---- endpoint handlers ----------------------------------------------------------------------

  /**
   * Answers one endpoint with validated parameters, at `now` (default the clock's; the gateway passes the
   * instant its envelope states). Throws SimError for a venue error.
   */
  handle<N extends EndpointName>(
    name: N,
    params: ParamsOut<N>,
    ctx: CallContext = {},
    now = this.now(),
  ): HandlerResult {
    const h = this.handlers[name] as Handler<N> | undefined;
    if (h === undefined) throw new SimError('90404', `no handler for ${String(name)}`);
    return h(params, ctx, now);
  }

  /** One handler per endpoint of the catalogue; the type makes a missing one a compile error. */
  private readonly handlers: { readonly [N in EndpointName]: Handler<N> } = {
    instruments: (p) => ({ data: instrumentsOf(this.table, p.category as Category, p.symbol) }),
    rpiSymbols: () => ({ data: rpiSymbols(this.table) }),
    tickers: (p, _c, now) => ({ raw: this.tickerLists.json(p.category as Category, p.symbol, now) }),
    orderbook: (p, _c, now) => ({
      raw: bookJson(this.table, p.category as Category, p.symbol, p.limit, false, now),
    }),
    rpiOrderbook: (p, _c, now) => ({
      raw: bookJson(this.table, p.category as Category, p.symbol, p.limit, true, now),
    }),
    fills: (p, _c, now) => ({
      data: this.marketOf(p.symbol, p.category as Category).publicFills(now, p.limit),
    }),
    candles: (p, _c, now) => ({ raw: candlesJson(this.table, p, now) }),
    historyCandles: (p, _c, now) => ({ raw: candlesJson(this.table, p, now, true) }),
    innerTrades: (p, _c, now) => ({ data: this.page('innerTrades', p.code, p.limit, p.cursor, now) }),
    dividends: (p, _c, now) => ({ data: this.page('dividends', p.code, p.limit, p.cursor, now) }),
    shareholdDetail: (p, _c, now) => ({ data: this.page('shareholdDetail', p.code, p.limit, p.cursor, now) }),
    valuationIndicators: (p, _c, now) => {
      const code = this.realityCode(p.code);
      return { data: this.reality.valuation(code, this.realityPrice(code, now), now) };
    },
    earningsForecast: (p, _c, now) => {
      const code = this.realityCode(p.code);
      return { data: this.reality.earningsForecast(code, this.realityPrice(code, now), now) };
    },
    suspensionResumptionInfo: (p, ctx, now) => {
      const code = this.realityCode(p.code);
      return {
        data: this.reality.suspension(
          code,
          this.suspended.has(code),
          this.realityPrice(code, now),
          now,
          ctx.locale,
        ),
      };
    },
    companyOverview: (p, _c, now) => {
      const code = this.realityCode(p.code);
      return { data: this.reality.overview(code, this.realityPrice(code, now)) };
    },
    marketStates: (_p, _c, now) => ({ data: marketStates(now) }),
    marketCalendar: () => ({ data: marketCalendar() }),
    placeRealityOrder: (p, ctx, now) => ({
      data: placeRealityOrder(this.desk, p, this.needAccount(ctx), now),
    }),
    realityFills: (p, ctx, now) => ({
      data: realityFills(this.desk, p, this.needAccount(ctx), now, this.fillIds),
    }),
    setLeverage: (p, ctx) => {
      const uid = this.needAccount(ctx).uid;
      const data = this.leverage.set(this.table, p, uid);
      // Cross-margin leverage of a coin bounds what MARGIN orders may borrow (the matching core's model).
      if (p.category === 'MARGIN' && p.coin !== undefined && p.leverage !== undefined)
        this.core.setLeverage(uid, p.coin, new Decimal(p.leverage));
      return { data };
    },
    cancelWithdrawal: (p, ctx, now) => ({ data: this.withdrawals.cancel(p, this.needAccount(ctx).uid, now) }),
  };

  private needAccount(ctx: CallContext): SimCredentials {
    if (!ctx.account) throw new SimError('90001', 'ACCESS_KEY cannot be empty');
    return ctx.account;
  }

  /** Delivery status of a delivery contract at an instant (spec 3.2). */
  static deliveryStatus(wire: Instrument, now: number): string | undefined {
    return deliveryStatus(wire, now);
  }

  private page(
    name: 'innerTrades' | 'dividends' | 'shareholdDetail',
    codeIn: string,
    limit: number,
    cursor: string | undefined,
    now: number,
  ): { list: unknown[]; cursor: string } {
    const code = this.realityCode(codeIn);
    const bad = () =>
      new SimError(
        '90017',
        `cursor ${JSON.stringify(cursor)} is not a cursor returned by a previous response; omit it to start again`,
      );
    const given = cursor !== undefined && cursor !== '';
    if (given && !/^\d+$/.test(cursor)) throw bad();
    if (name === 'shareholdDetail') {
      // A fixed list: the cursor is an offset into it.
      const all = this.reality.shareholders(code);
      const offset = given ? Number(cursor) : 0;
      if (offset > all.length) throw bad();
      const next = offset + limit < all.length ? String(offset + limit) : '';
      return { list: all.slice(offset, offset + limit), cursor: next };
    }
    // A growing history, newest first: the cursor is the index (oldest = 0) below which the next page
    // starts, so records announced between two page requests do not shift the pages.
    const all: readonly unknown[] =
      name === 'innerTrades' ? this.reality.insiderTrades(code, now) : this.reality.dividends(code, now);
    const end = given ? Number(cursor) : all.length;
    if (end > all.length) throw bad();
    const start = Math.max(0, end - limit);
    return { list: all.slice(start, end).reverse(), cursor: start > 0 ? String(start) : '' };
  }
}
