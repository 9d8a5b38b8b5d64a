// The simulated venue without HTTP: instruments, market, Reality data, accounts, the matching core,
// withdrawals and leverage, answering each catalogue endpoint with its data or a venue error. The
// HTTP gateway and the admin API sit on top; tests and the demo may also drive it in code.
import type {
  CandleInterval,
  Category,
  EndpointName,
  Instrument,
  ParamsOut,
  Permission,
  RealityFill,
  RpiSymbol,
  Ticker,
  WireCandle,
} from '../api/index.js';
import { INTERVAL_MS, effectiveLeverage, isFuturesCategory, withdrawalKey } from '../api/index.js';
import type { Clock } from '../feeds/clock.js';
import { liveClock } from '../feeds/clock.js';
import { Decimal, ZERO, toWire } from '../market/decimal.js';
import { isEasternDst, usSessionAt } from '../market/sessions.js';
import { US_SESSIONS, US_SPECIFIC_CLOSURES, US_WEEKLY_CLOSURES } from '../market/us-calendar.js';
import { CandleFillModel, type CandleBar } from './candle-fills.js';
import type { SimCredentials } from './auth.js';
import type { FaultConfig } from './faults.js';
import { FaultInjector } from './faults.js';
import type { SimInstrument } from './instruments.js';
import { DEFAULT_SUSPENDED_CODES, simInstruments } from './instruments.js';
import type { InstrumentMarket, ReplayCandle, ReplaySource } from './market-model.js';
import { MarketModel, formatUnits } from './market-model.js';
import type { Balance, CoreFill, CoreOrder, Level, MarketView, PairSpec } from './matching.js';
import { MatchingCore } from './matching.js';
import { RealityData, isRealityCode } from './reality-data.js';
import { SimClock } from './sim-clock.js';

/** A venue error raised by a handler: a catalogue code and a message naming the cause. */
export class SimError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'SimError';
  }
}

/** Permissions an account can hold. */
export type AccountPermission = Exclude<Permission, 'none'>;
export const ALL_PERMISSIONS: readonly AccountPermission[] = [
  'trade-read',
  'trade-read-write',
  'management',
  'withdrawal',
];

/** An account of the simulator. */
export interface SimAccountOptions {
  readonly apiKey: string;
  readonly apiSecret: string;
  readonly passphrase: string;
  /** Default: all four. */
  readonly permissions?: readonly AccountPermission[] | undefined;
  /** Whitelist access (reality-fills, the higher order rate). Default false. */
  readonly whitelisted?: boolean | undefined;
  /** Starting balances by coin, decimal strings. Default 100000 USDT. */
  readonly balances?: Readonly<Record<string, string>> | undefined;
  /** Fee rate of Reality and spot fills, maker and taker (default 0.001). */
  readonly feeRate?: string | undefined;
  readonly makerFeeRate?: string | undefined;
  readonly takerFeeRate?: string | undefined;
  /** The account's UID (default derived from its position). */
  readonly uid?: string | undefined;
}

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
  /** Replace the instrument table (default `simInstruments(startTime)`). */
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

/** The default demo account. */
export const DEMO_ACCOUNT: SimAccountOptions = {
  apiKey: 'sim-key',
  apiSecret: 'sim-secret',
  passphrase: 'sim-passphrase',
};

export type WithdrawalStatus = 'cooling' | 'processing' | 'cancelled';

/** A withdrawal created through the admin API (fields beyond the spec's, which shows none). */
export interface SimWithdrawal {
  readonly orderId: string;
  readonly clientOid: string;
  readonly uid: string;
  readonly coin: string;
  readonly amount: string;
  readonly createdAt: number;
  readonly coolingEndsAt: number;
  status: WithdrawalStatus;
}

const DAY = 86_400_000;
const THREE_MONTHS = 90 * DAY;
const decimals = (s: string): number => (s.split('.')[1] ?? '').replace(/0+$/, '').length;

/**
 * Wire form of an account fill: the spec's five fields (2.13), plus, when `fillIds` is on, the
 * simulator's orderId/clientOid extension, which the venue does not give.
 */
export interface SimRealityFill extends RealityFill {
  readonly orderId?: string;
  readonly clientOid?: string;
}

/**
 * Whether reality-fills carries orderId and clientOid when `fillIds` is not given: off, as on the
 * venue, which gives only the five fields of spec 2.13 (the daemon attributes fills without them, see
 * `src/execution/fill-router.ts`). On only as an explicit debug option that no daemon test uses.
 */
export const DEFAULT_FILL_IDS = false;

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
  private readonly bySymbol = new Map<string, SimInstrument>();
  private readonly initialAccounts: readonly SimAccountOptions[];
  private core!: MatchingCore;
  private accounts = new Map<string, SimCredentials>();
  private byUid = new Map<string, SimCredentials>();
  private withdrawals: SimWithdrawal[] = [];
  private withdrawalSeq = 0;
  private leverage = new Map<string, Map<string, string>>();
  private suspended: Set<string>;
  private readonly initialSuspended: readonly string[];
  private readonly bookCadenceMs: number;
  private candleFills: { model: CandleFillModel; symbols: ReadonlySet<string> } | undefined;
  private readonly fillIds: boolean;

  constructor(opts: EngineOptions = {}) {
    this.fillIds = opts.fillIds ?? DEFAULT_FILL_IDS;
    if (opts.clock === undefined && opts.startTime === undefined && process.env[REQUIRE_PINNED_START] === '1')
      throw new Error(UNPINNED_START);
    const base = opts.clock ?? liveClock;
    const start = opts.startTime ?? base.now();
    this.seed = opts.seed ?? 42;
    this.clock = new SimClock(base, start, opts.speed ?? 1);
    this.instruments = opts.instruments ?? simInstruments(start);
    for (const i of this.instruments) this.bySymbol.set(`${i.wire.category}:${i.wire.symbol}`, i);
    this.bookCadenceMs = opts.bookCadenceMs ?? 1000;
    const replay = Object.fromEntries(Object.entries(opts.replay ?? {}).map(([k, v]) => [k, [...v]]));
    this.market = new MarketModel(this.instruments, this.seed, replay, this.bookCadenceMs);
    if (opts.candleFills !== undefined) this.candleFills = this.candleFillModel(replay, opts.candleFills);
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
    this.core = new MatchingCore({ market: this.marketView(), pair: (s) => this.pairSpec(s) });
    this.accounts = new Map();
    this.byUid = new Map();
    this.withdrawals = [];
    this.withdrawalSeq = 0;
    this.leverage = new Map();
    this.suspended = new Set(this.initialSuspended);
    for (const a of this.initialAccounts) this.addAccount(a);
  }

  /** Resets accounts, orders, fills, withdrawals, leverage and suspensions to the start state (the clock keeps running). */
  reset(): void {
    this.resetState();
  }

  /** Adds an account; answers its UID. */
  addAccount(a: SimAccountOptions): string {
    if (this.accounts.has(a.apiKey)) throw new Error(`an account with apiKey ${a.apiKey} already exists`);
    const uid = a.uid ?? String(1_000_000_000 + this.accounts.size + 1);
    const cred: SimCredentials = {
      uid,
      apiKey: a.apiKey,
      apiSecret: a.apiSecret,
      passphrase: a.passphrase,
      permissions: new Set(a.permissions ?? ALL_PERMISSIONS),
      whitelisted: a.whitelisted ?? false,
    };
    const balances: Record<string, Decimal> = {};
    for (const [coin, amount] of Object.entries(a.balances ?? { USDT: '100000' }))
      balances[coin] = new Decimal(amount);
    const d = (s: string | undefined) => (s === undefined ? undefined : new Decimal(s));
    this.core.createAccount(uid, {
      feeRate: d(a.feeRate),
      makerFeeRate: d(a.makerFeeRate),
      takerFeeRate: d(a.takerFeeRate),
      balances,
    });
    this.accounts.set(a.apiKey, cred);
    this.byUid.set(uid, cred);
    return uid;
  }

  /** Credentials by API key (for the gateway). */
  get credentials(): ReadonlyMap<string, SimCredentials> {
    return this.accounts;
  }

  private uidOf(apiKey: string): string {
    const a = this.accounts.get(apiKey);
    if (!a) throw new SimError('90006', `no account with apiKey ${apiKey}`);
    return a.uid;
  }

  /** Public view of the accounts (no secrets). */
  listAccounts(): { uid: string; apiKey: string; permissions: AccountPermission[]; whitelisted: boolean }[] {
    return [...this.accounts.values()].map((a) => ({
      uid: a.uid,
      apiKey: a.apiKey,
      permissions: [...a.permissions],
      whitelisted: a.whitelisted,
    }));
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
    const uid = this.uidOf(w.apiKey);
    if (
      w.clientOid !== undefined &&
      this.withdrawals.some((x) => x.uid === uid && x.clientOid === w.clientOid)
    ) {
      throw new SimError('95212', `a withdrawal with clientOid ${w.clientOid} already exists`);
    }
    const amount = new Decimal(w.amount);
    if (!amount.gt(0)) throw new SimError('90017', 'amount must be greater than zero');
    try {
      this.core.fund(uid, w.coin, amount.neg());
    } catch {
      throw new SimError('25202', `insufficient ${w.coin} balance for a withdrawal of ${w.amount}`);
    }
    const now = this.now();
    const wd: SimWithdrawal = {
      orderId: String(1_500_000_000_000 + ++this.withdrawalSeq),
      clientOid: w.clientOid ?? '',
      uid,
      coin: w.coin,
      amount: toWire(amount),
      createdAt: now,
      coolingEndsAt: now + this.withdrawalCoolingMs,
      status: 'cooling',
    };
    this.withdrawals.push(wd);
    return wd;
  }

  /** Withdrawals (optionally of one account), with their status brought up to now. */
  listWithdrawals(apiKey?: string): SimWithdrawal[] {
    const uid = apiKey === undefined ? undefined : this.uidOf(apiKey);
    const now = this.now();
    for (const w of this.withdrawals)
      if (w.status === 'cooling' && now >= w.coolingEndsAt) w.status = 'processing';
    return this.withdrawals.filter((w) => uid === undefined || w.uid === uid);
  }

  /** Leverage settings of an account, by `category:symbolOrCoin:marginMode:side`. */
  leverageOf(apiKey: string): Record<string, string> {
    return Object.fromEntries(this.leverage.get(this.uidOf(apiKey)) ?? []);
  }

  /** Suspends or resumes a Reality code. */
  setSuspended(code: string, suspended: boolean): void {
    if (!isRealityCode(code)) throw new SimError('40034', `Reality code ${code} does not exist`);
    if (suspended) this.suspended.add(code);
    else this.suspended.delete(code);
  }

  suspendedCodes(): string[] {
    return [...this.suspended];
  }

  // ---- lookups --------------------------------------------------------------------------------

  /** The instrument of a category and symbol (MARGIN pairs answer their own row). */
  instrument(category: Category, symbol: string): SimInstrument | undefined {
    return this.bySymbol.get(`${category}:${symbol}`);
  }

  private need(category: Category, symbol: string): SimInstrument {
    const i = this.instrument(category, symbol);
    if (!i) throw new SimError('40034', `symbol ${symbol} does not exist in category ${category}`);
    return i;
  }

  /** Whether a symbol is a Reality stock pair (for the catalogue's candle rules). */
  isRealitySymbol = (symbol: string): boolean => this.instrument('SPOT', symbol)?.wire.isReality === 'yes';

  /** The market of a spot symbol or `CATEGORY:SYMBOL`. */
  marketOf(symbol: string, category: Category = 'SPOT'): InstrumentMarket {
    return this.market.of(this.need(category, symbol));
  }

  private pairSpec(symbol: string): PairSpec | undefined {
    const i = this.instrument('SPOT', symbol);
    return i
      ? {
          symbol,
          baseCoin: i.wire.baseCoin,
          quoteCoin: i.wire.quoteCoin,
          quantityPrecision: Number(i.wire.quantityPrecision),
        }
      : undefined;
  }

  private candleFillModel(
    replay: Readonly<Record<string, readonly ReplayCandle[]>>,
    o: { readonly slippageBps?: number | undefined },
  ): { model: CandleFillModel; symbols: ReadonlySet<string> } {
    const bars = new Map<string, Map<number, CandleBar>>();
    for (const [symbol, candles] of Object.entries(replay)) {
      const m = new Map<number, CandleBar>();
      for (const c of candles)
        m.set(c.openTime, {
          t: c.openTime,
          open: Number(c.open),
          high: Number(c.high),
          low: Number(c.low),
          close: Number(c.close),
        });
      bars.set(symbol, m);
    }
    const model = new CandleFillModel({
      slippageBps: o.slippageBps,
      intervalMs: 60_000,
      pricePrecision: (s) => Number(this.need('SPOT', s).wire.pricePrecision),
      barAt: (s, t) => bars.get(s)?.get(t - (t % 60_000)),
    });
    return { model, symbols: new Set(bars.keys()) };
  }

  private marketView(): MarketView {
    const book = this.bookMarketView();
    return {
      levels: (symbol, side, now) =>
        this.candleFills?.symbols.has(symbol)
          ? this.candleFills.model.levels(symbol, side, now)
          : book.levels(symbol, side, now),
      firstTouch: (symbol, side, price, from, to) =>
        this.candleFills?.symbols.has(symbol)
          ? this.candleFills.model.firstTouch(symbol, side, price, from, to)
          : book.firstTouch(symbol, side, price, from, to),
    };
  }

  private bookMarketView(): MarketView {
    const marketFor = (symbol: string) => this.market.of(this.need('SPOT', symbol));
    return {
      levels: function* (symbol: string, side: 'buy' | 'sell', now: number): Iterable<Level> {
        const m = marketFor(symbol);
        const book = m.book(now, 1000);
        for (const lv of side === 'buy' ? book.asks : book.bids)
          yield { price: m.priceOf(lv.price), qty: m.qtyOf(lv.qty) };
      },
      firstTouch: (symbol, side, price, from, to) => {
        const m = marketFor(symbol);
        const ticks = m.ticksOf(price.toFixed());
        if (ticks === undefined) return undefined;
        return m.firstTouch(side === 'buy' ? 'below' : 'above', ticks, from, to);
      },
    };
  }

  private realityCode(code: string): string {
    if (!isRealityCode(code))
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

  /** Answers one endpoint with validated parameters. Throws SimError for a venue error. */
  handle<N extends EndpointName>(name: N, params: ParamsOut<N>, ctx: CallContext = {}): HandlerResult {
    const h = this.handlers[name] as Handler<N> | undefined;
    if (h === undefined) throw new SimError('90404', `no handler for ${String(name)}`);
    return h(params, ctx, this.now());
  }

  /** One handler per endpoint of the catalogue; the type makes a missing one a compile error. */
  private readonly handlers: { readonly [N in EndpointName]: Handler<N> } = {
    instruments: (p) => ({ data: this.instrumentsOf(p.category as Category, p.symbol) }),
    rpiSymbols: () => ({ data: this.rpiSymbols() }),
    tickers: (p, _c, now) => ({ data: this.tickers(p.category as Category, p.symbol, now) }),
    orderbook: (p, _c, now) => ({
      raw: this.bookJson(p.category as Category, p.symbol, p.limit, false, now),
    }),
    rpiOrderbook: (p, _c, now) => ({
      raw: this.bookJson(p.category as Category, p.symbol, p.limit, true, now),
    }),
    fills: (p, _c, now) => ({
      data: this.market.of(this.need(p.category as Category, p.symbol)).publicFills(now, p.limit),
    }),
    candles: (p, _c, now) => ({ data: this.candles(p, now) }),
    historyCandles: (p, _c, now) => ({ data: this.candles(p, now, true) }),
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
    marketStates: (_p, _c, now) => ({ data: this.marketStates(now) }),
    marketCalendar: () => ({ data: this.marketCalendar() }),
    placeRealityOrder: (p, ctx, now) => ({ data: this.placeRealityOrder(p, this.needAccount(ctx), now) }),
    realityFills: (p, ctx, now) => ({ data: this.realityFills(p, this.needAccount(ctx), now) }),
    setLeverage: (p, ctx) => ({ data: this.setLeverage(p, this.needAccount(ctx)) }),
    cancelWithdrawal: (p, ctx, now) => ({ data: this.cancelWithdrawal(p, this.needAccount(ctx), now) }),
  };

  private needAccount(ctx: CallContext): SimCredentials {
    if (!ctx.account) throw new SimError('90001', 'ACCESS_KEY cannot be empty');
    return ctx.account;
  }

  private instrumentsOf(category: Category, symbol: string | undefined): Instrument[] {
    if (symbol !== undefined) return [this.need(category, symbol).wire];
    return this.instruments.filter((i) => i.wire.category === category).map((i) => i.wire);
  }

  private rpiSymbols(): RpiSymbol[] {
    return this.instruments
      .filter((i) => i.rpi && i.wire.category !== 'MARGIN')
      .map((i) => ({ category: i.wire.category.toLowerCase(), symbol: i.wire.symbol }));
  }

  /** Delivery status of a delivery contract at an instant (spec 3.2). */
  static deliveryStatus(wire: Instrument, now: number): string | undefined {
    if (wire.deliveryTime === undefined || wire.deliveryStartTime === undefined) return undefined;
    const start = Number(wire.deliveryStartTime);
    const time = Number(wire.deliveryTime);
    if (now < start) return 'delivery_config_period';
    if (now < time - 10 * 60_000) return 'delivery_normal';
    if (now < time) return 'delivery_before';
    return 'delivery_period';
  }

  private tickers(category: Category, symbol: string | undefined, now: number): Ticker[] {
    const list =
      symbol !== undefined
        ? [this.need(category, symbol)]
        : this.instruments.filter((i) => i.wire.category === category);
    return list.map((inst) => {
      const m = this.market.of(inst);
      const extra: Partial<Ticker> = {};
      if (isFuturesCategory(category)) Object.assign(extra, m.futuresFields(now));
      const status = SimEngine.deliveryStatus(inst.wire, now);
      if (status !== undefined) {
        Object.assign(extra, {
          deliveryStartTime: inst.wire.deliveryStartTime,
          deliveryTime: inst.wire.deliveryTime,
          deliveryStatus: status,
        });
      }
      const t = m.ticker(now, extra);
      if (inst.wire.isReality === 'yes') t.platformTurnover24h = t.turnover24h;
      return { ...t, category: inst.wire.category };
    });
  }

  private bookJson(category: Category, symbol: string, limit: number, rpi: boolean, now: number): string {
    const m = this.market.of(this.need(category, symbol));
    const { asks, bids } = m.book(now, limit);
    // Levels are JSON numbers on the wire (spec 2.4): written as raw literals from exact decimal strings.
    const lv = (l: { price: number; qty: number; rpiQty: number }): string =>
      rpi
        ? `[${formatUnits(l.price, m.pp)},${formatUnits(l.qty, m.qp)},${formatUnits(l.rpiQty, m.qp)}]`
        : `[${formatUnits(l.price, m.pp)},${formatUnits(l.qty, m.qp)}]`;
    return `{"a":[${asks.map(lv).join(',')}],"b":[${bids.map(lv).join(',')}],"ts":"${now}"}`;
  }

  /**
   * Candles newest-anchored: the latest `limit` open times up to endTime (or now). History candles
   * follow spec 4.1 rule 1 as the venue does: startTime bounds the first open time, except that when
   * endTime passes an interval boundary (is not a multiple of the interval) the answer starts one
   * interval earlier. Clients must drop what they did not ask for (client/candles-range.ts does).
   */
  private candles(p: ParamsOut<'candles'>, now: number, history = false): WireCandle[] {
    const m = this.market.of(this.need(p.category, p.symbol));
    const interval = p.interval as CandleInterval;
    const step = INTERVAL_MS[interval];
    const end = Math.min(p.endTime ?? now, now);
    const lastOpen = Math.floor(end / step) * step;
    const extra = history && p.endTime !== undefined && p.endTime % step !== 0 ? step : 0;
    const firstAllowed =
      p.startTime === undefined
        ? -Infinity
        : history
          ? Math.ceil(p.startTime / step) * step - extra
          : Math.floor(p.startTime / step) * step;
    if (lastOpen < firstAllowed) return [];
    const count = Math.min(
      p.limit,
      Math.floor((lastOpen - Math.max(firstAllowed, lastOpen - (p.limit - 1) * step)) / step) + 1,
    );
    const firstOpen = lastOpen - (count - 1) * step;
    const type = m.inst.wire.category === 'SPOT' || m.inst.wire.category === 'MARGIN' ? 'market' : p.type;
    return m.candles(interval, firstOpen, lastOpen, now, type);
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

  private marketStates(now: number) {
    return [
      {
        market: 'US',
        daylightType: isEasternDst(now) ? 'dst' : 'standard',
        stateList: US_SESSIONS.map((s) => ({
          state: s.state,
          timeZone: 'ET',
          startTime: s.startTime,
          endTime: s.endTime,
        })),
      },
    ];
  }

  private marketCalendar() {
    return {
      timeZone: 'EST',
      // Holidays (00:00-23:59) and early closes (13:00-20:00), from the one list the client's
      // built-in calendar is made of.
      specificConfig: US_SPECIFIC_CLOSURES.map((c) => ({ ...c })),
      regularConfig: [...US_WEEKLY_CLOSURES],
    };
  }

  private placeRealityOrder(
    p: ParamsOut<'placeRealityOrder'>,
    acct: SimCredentials,
    now: number,
  ): { orderId: string; clientOid: string } {
    const inst = this.instrument('SPOT', p.symbol);
    if (!inst) throw new SimError('40034', `symbol ${p.symbol} does not exist`);
    const w = inst.wire;
    if (w.isReality !== 'yes')
      throw new SimError(
        '95249',
        `${p.symbol} is not a Reality stock pair; place-reality-order supports only pairs with isReality yes`,
      );
    if (p.clientOid !== undefined && this.core.hasClientOid(acct.uid, p.clientOid)) {
      throw new SimError(
        '95212',
        `Duplicate clientOid: ${p.clientOid} was already used by an order of this account`,
      );
    }
    if (w.status !== 'online')
      throw new SimError('95248', `${p.symbol} has status ${w.status}; only online pairs accept orders`);
    const code = inst.realityCode ?? w.baseCoin;
    if (this.suspended.has(code))
      throw new SimError('95247', `${code} is suspended; see suspension-resumption-info`);
    const session = usSessionAt(now);
    if (session.session === 'closed') {
      throw new SimError(
        '95246',
        `the US market is closed${session.closure ? ` (${session.closure})` : ''}; it opens at ${new Date(session.nextChange).toISOString()}`,
      );
    }
    const pp = Number(w.pricePrecision);
    const qp = Number(w.quantityPrecision);
    const quoteP = Number(w.quotePrecision ?? w.pricePrecision);
    const marketBuy = p.orderType === 'market' && p.side === 'buy';
    if (p.orderType === 'limit' && p.price !== undefined && decimals(p.price) > pp) {
      throw new SimError('95244', `price ${p.price} has more than pricePrecision ${pp} decimals`);
    }
    if (marketBuy ? decimals(p.qty) > quoteP : decimals(p.qty) > qp) {
      throw new SimError(
        '95210',
        marketBuy
          ? `qty ${p.qty} (quote amount of a market buy) has more than quotePrecision ${quoteP} decimals`
          : `qty ${p.qty} has more than quantityPrecision ${qp} decimals`,
      );
    }
    const qty = new Decimal(p.qty);
    const m = this.market.of(inst);
    const last = new Decimal(m.lastPrice(now));
    const minQty = w.minOrderQty ? new Decimal(w.minOrderQty) : ZERO;
    if (!marketBuy && qty.lt(minQty))
      throw new SimError('95207', `qty ${p.qty} is below the minimum quantity ${w.minOrderQty}`);
    const minAmount = w.minOrderAmount ? new Decimal(w.minOrderAmount) : ZERO;
    const amount = marketBuy
      ? qty
      : qty.mul(p.price !== undefined && p.orderType === 'limit' ? new Decimal(p.price) : last);
    if (amount.lt(minAmount))
      throw new SimError(
        '95208',
        `order amount ${amount.toFixed()} ${w.quoteCoin} is below the minimum ${w.minOrderAmount}`,
      );
    if (p.orderType === 'limit' && p.price !== undefined) {
      const price = new Decimal(p.price);
      const buyMax = last.mul(new Decimal(w.buyLimitPriceRatio ?? '1').plus(1));
      const sellMin = last.mul(new Decimal(1).minus(w.sellLimitPriceRatio ?? '1'));
      if (p.side === 'buy' && price.gt(buyMax)) {
        throw new SimError(
          '95245',
          `buy price ${p.price} is above last price ${last.toFixed()} x (1 + buyLimitPriceRatio ${w.buyLimitPriceRatio})`,
        );
      }
      if (p.side === 'sell' && price.lt(sellMin)) {
        throw new SimError(
          '95245',
          `sell price ${p.price} is below last price ${last.toFixed()} x (1 - sellLimitPriceRatio ${w.sellLimitPriceRatio})`,
        );
      }
    }
    const r = this.core.place(
      acct.uid,
      {
        symbol: p.symbol,
        side: p.side,
        orderType: p.orderType,
        qty,
        price: p.orderType === 'limit' && p.price !== undefined ? new Decimal(p.price) : undefined,
        clientOid: p.clientOid,
      },
      now,
    );
    if (!r.ok) throw new SimError(r.code, r.msg);
    return { orderId: r.order.orderId, clientOid: r.order.clientOid };
  }

  private realityFills(p: ParamsOut<'realityFills'>, acct: SimCredentials, now: number): SimRealityFill[] {
    const inst = this.instrument('SPOT', p.symbol);
    if (!inst || inst.wire.isReality !== 'yes')
      throw new SimError(
        '95249',
        `${p.symbol} is not a Reality stock pair; reality-fills supports only Reality pairs`,
      );
    this.core.advance(now);
    return this.core
      .listFills(acct.uid, p.symbol, now - THREE_MONTHS)
      .slice(0, p.limit)
      .map((f) => ({
        execId: f.execId,
        price: toWire(f.price),
        size: toWire(f.size),
        side: f.side,
        ts: String(f.ts),
        ...(this.fillIds ? { orderId: f.orderId, clientOid: f.clientOid } : {}),
      }));
  }

  private setLeverage(p: ParamsOut<'setLeverage'>, acct: SimCredentials): 'success' {
    const eff = effectiveLeverage(p);
    let target: string;
    let min = new Decimal(1);
    let max: Decimal;
    if (p.category === 'MARGIN') {
      const coin = p.coin as string;
      const inst = this.instruments.find(
        (i) => i.wire.category === 'MARGIN' && (i.wire.baseCoin === coin || i.wire.quoteCoin === coin),
      );
      if (!inst) throw new SimError('40034', `coin ${coin} is not a margin coin of this venue`);
      target = coin;
      max = new Decimal(inst.wire.maxCrossedLeverage ?? '1');
    } else {
      const inst = this.need(p.category, p.symbol as string);
      target = inst.wire.symbol;
      min = new Decimal(inst.wire.minLeverage ?? '1');
      max = new Decimal(inst.wire.maxLeverage ?? '1');
    }
    for (const [side, value] of Object.entries(eff)) {
      const field =
        side === 'long' && p.longLeverage !== undefined
          ? 'longLeverage'
          : side === 'short' && p.shortLeverage !== undefined
            ? 'shortLeverage'
            : 'leverage';
      const v = new Decimal(value);
      if (v.lt(min) || v.gt(max))
        throw new SimError(
          '90017',
          `${field} ${value} is outside ${min.toFixed()} to ${max.toFixed()} for ${target}`,
        );
    }
    let map = this.leverage.get(acct.uid);
    if (!map) {
      map = new Map();
      this.leverage.set(acct.uid, map);
    }
    for (const [side, value] of Object.entries(eff))
      map.set(`${p.category}:${target}:${p.marginMode}:${side}`, value);
    return 'success';
  }

  private cancelWithdrawal(p: ParamsOut<'cancelWithdrawal'>, acct: SimCredentials, now: number): 'success' {
    const key = withdrawalKey(p);
    const w = this.withdrawals.find(
      (x) => x.uid === acct.uid && (key.by === 'orderId' ? x.orderId === key.id : x.clientOid === key.id),
    );
    if (!w) throw new SimError('95301', `withdrawal ${key.by} ${key.id} does not exist`);
    if (w.status === 'cancelled') throw new SimError('95303', `withdrawal ${w.orderId} is already cancelled`);
    if (now >= w.coolingEndsAt) {
      w.status = 'processing';
      throw new SimError(
        '95302',
        `the cooling period of withdrawal ${w.orderId} ended at ${new Date(w.coolingEndsAt).toISOString()}; it cannot be cancelled`,
      );
    }
    w.status = 'cancelled';
    this.core.fund(acct.uid, w.coin, new Decimal(w.amount));
    return 'success';
  }
}
