// One table row per risk rule, each with an approving and a denying case; the checks' stages and the
// README's order of them.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Instrument } from '../../../src/api/index.js';
import { Decimal } from '../../../src/market/decimal.js';
import { parseInstrument } from '../../../src/market/instrument-rules.js';
import { usSessionAt } from '../../../src/market/sessions.js';
import { Portfolio } from '../../../src/portfolio/index.js';
import {
  RISK_CHECKS,
  RiskGate,
  RiskLimitsSchema,
  type NORMALISE_STEPS,
  type RiskContext,
  type RiskLimitsInput,
  type RiskStage,
} from '../../../src/risk/index.js';
import type { OrderIntent } from '../../../src/strategy/intent.js';

const NOW = Date.UTC(2026, 10, 23, 15, 0); // Monday 10:00 ET, regular session
const D = (s: string | number) => new Decimal(String(s));
const wire: Instrument = {
  category: 'SPOT',
  symbol: 'AAPLUSDT',
  isReality: 'yes',
  baseCoin: 'AAPL',
  quoteCoin: 'USDT',
  status: 'online',
  pricePrecision: '2',
  quantityPrecision: '2',
  quotePrecision: '2',
  minOrderQty: '0.1',
  minOrderAmount: '5',
  buyLimitPriceRatio: '0.05',
  sellLimitPriceRatio: '0.05',
  maxOrderQty: '1000',
  maxMarketOrderQty: '500',
};
const buy = (qty: string, price = '100'): OrderIntent => ({
  type: 'limit',
  symbol: 'AAPLUSDT',
  category: 'SPOT',
  side: 'buy',
  quantity: D(qty),
  price: D(price),
  tag: 't',
  reason: 'r',
});
const sell = (qty: string, price = '100'): OrderIntent =>
  ({ ...buy(qty, price), side: 'sell' }) as OrderIntent;
const mbuy = (amount: string): OrderIntent => ({
  type: 'market',
  symbol: 'AAPLUSDT',
  category: 'SPOT',
  side: 'buy',
  quoteAmount: D(amount),
  tag: 't',
  reason: 'r',
});

function ctx(
  over: Partial<RiskContext> & { held?: string; cash?: string; wire?: Partial<Instrument> } = {},
): RiskContext {
  const p = new Portfolio({ quoteCoin: 'USDT', cash: { USDT: over.cash ?? '100000' } });
  if (over.held)
    p.applyFill({
      symbol: 'AAPLUSDT',
      baseCoin: 'AAPL',
      quoteCoin: 'USDT',
      side: 'buy',
      price: '100',
      size: over.held,
      fee: '0',
      feeCoin: 'USDT',
      ts: NOW - 1,
    });
  return {
    now: NOW,
    rules: parseInstrument({ ...wire, ...over.wire }),
    market: { last: D(100), bid: D('99.99'), ask: D('100.01'), ts: NOW - 1000 },
    session: usSessionAt(NOW),
    portfolio: p,
    tradingState: 'ACTIVE',
    recentOrderTimes: [],
    ...over,
  };
}
// MARGIN: a margin pair's row, 1000 USDT and leverage 3 for AAPL (equity 1000 may owe 2000).
const marginWire: Partial<Instrument> = {
  category: 'MARGIN',
  isIsolatedBaseBorrowable: 'true',
  isIsolatedQuotedBorrowable: 'true',
  maxCrossedLeverage: '3',
  userMinBorrow: '0.5',
  warningRiskRatio: '0.8',
  liquidationRiskRatio: '1',
};
const margin = (i: OrderIntent): OrderIntent => ({ ...i, category: 'MARGIN' });
const short = (qty: string): OrderIntent => margin(sell(qty));
const mctx = (over: Parameters<typeof ctx>[0] = {}): RiskContext =>
  ctx({
    cash: '1000',
    wire: marginWire,
    margin: { leverage: (c) => (c === 'AAPL' || c === 'USDT' ? D(3) : undefined), interest: D(0) },
    ...over,
  });
const gate = (limits: RiskLimitsInput = {}) => new RiskGate(RiskLimitsSchema.parse(limits));

interface Row {
  rule: string;
  code: string;
  approve: () => ReturnType<RiskGate['check']>;
  deny: () => ReturnType<RiskGate['check']>;
}

const rows: Row[] = [
  {
    rule: 'halted state',
    code: 'TRADING_HALTED',
    approve: () => gate().check(buy('1'), ctx()),
    deny: () => gate().check(buy('1'), ctx({ tradingState: 'HALTED' })),
  },
  {
    rule: 'paused by the operator (a reducing sell still runs)',
    code: 'PAUSED',
    approve: () => gate().check(sell('1'), ctx({ held: '3', tradingState: 'PAUSED' })),
    deny: () => gate().check(buy('1'), ctx({ held: '3', tradingState: 'PAUSED' })),
  },
  {
    rule: 'unknown instrument',
    code: 'UNKNOWN_INSTRUMENT',
    approve: () => gate().check(buy('1'), ctx()),
    deny: () => gate().check(buy('1'), ctx({ rules: undefined })),
  },
  {
    rule: 'offline status',
    code: 'INSTRUMENT_STATUS',
    approve: () => gate().check(buy('1'), ctx()),
    deny: () => gate().check(buy('1'), ctx({ wire: { status: 'offline' } })),
  },
  {
    rule: 'limit_open allows only reducing',
    code: 'INSTRUMENT_STATUS',
    approve: () => gate().check(sell('1'), ctx({ held: '2', wire: { status: 'limit_open' } })),
    deny: () => gate().check(buy('1'), ctx({ held: '2', wire: { status: 'limit_open' } })),
  },
  {
    rule: 'limit_close allows only opening',
    code: 'INSTRUMENT_STATUS',
    approve: () => gate().check(buy('1'), ctx({ held: '2', wire: { status: 'limit_close' } })),
    deny: () => gate().check(sell('1'), ctx({ held: '2', wire: { status: 'limit_close' } })),
  },
  {
    rule: 'delivery state',
    code: 'DELIVERY_STATE',
    approve: () => gate().check(buy('1'), ctx({ deliveryStatus: 'delivery_normal' })),
    deny: () => gate().check(buy('1'), ctx({ deliveryStatus: 'delivery_before' })),
  },
  {
    // Spec 3.2: during delivery no position may be opened or closed, so even a reducing sell is refused.
    rule: 'delivery period (a reducing sell too)',
    code: 'DELIVERY_STATE',
    approve: () => gate().check(sell('1'), ctx({ held: '2', deliveryStatus: 'delivery_normal' })),
    deny: () => gate().check(sell('1'), ctx({ held: '2', deliveryStatus: 'delivery_period' })),
  },
  {
    rule: 'suspension',
    code: 'SUSPENDED',
    approve: () => gate().check(buy('1'), ctx({ suspended: false })),
    deny: () => gate().check(buy('1'), ctx({ suspended: true })),
  },
  {
    rule: 'calendar closure (Thanksgiving)',
    code: 'CALENDAR_CLOSED',
    approve: () => gate().check(buy('1'), ctx()),
    deny: () => gate().check(buy('1'), ctx({ session: usSessionAt(Date.UTC(2026, 10, 26, 15)) })),
  },
  {
    rule: 'session not allowed',
    code: 'SESSION_NOT_ALLOWED',
    approve: () =>
      gate({ allowedSessions: ['regular', 'pre_market'] }).check(
        buy('1'),
        ctx({ session: usSessionAt(Date.UTC(2026, 10, 23, 12)) }),
      ),
    deny: () => gate().check(buy('1'), ctx({ session: usSessionAt(Date.UTC(2026, 10, 23, 12)) })),
  },
  {
    rule: 'a Reality pair before the session is known',
    code: 'SESSION_UNKNOWN',
    approve: () => gate().check(buy('1'), ctx()),
    deny: () => gate().check(buy('1'), ctx({ session: undefined })),
  },
  {
    rule: 'no market price',
    code: 'NO_MARKET_PRICE',
    approve: () => gate().check(buy('1'), ctx()),
    deny: () => gate().check(buy('1'), ctx({ market: undefined })),
  },
  {
    rule: 'stale data',
    code: 'STALE_DATA',
    approve: () => gate({ maxDataAgeMs: 5000 }).check(buy('1'), ctx()),
    deny: () => gate({ maxDataAgeMs: 500 }).check(buy('1'), ctx()),
  },
  {
    rule: 'a limit order while fills are estimated (no whitelist access)',
    code: 'LIMIT_WITHOUT_FILLS',
    approve: () => gate().check(mbuy('100'), ctx({ fillsEstimated: true })),
    deny: () => gate().check(buy('1'), ctx({ fillsEstimated: true })),
  },
  {
    rule: 'stale signal (a candle replayed after a gap)',
    code: 'STALE_SIGNAL',
    approve: () => gate().check(buy('1'), ctx({ signal: { time: NOW - 60_000, maxAgeMs: 90_000 } })),
    deny: () => gate().check(buy('1'), ctx({ signal: { time: NOW - 120_000, maxAgeMs: 90_000 } })),
  },
  {
    rule: 'reducing state',
    code: 'REDUCING_ONLY',
    approve: () => gate().check(sell('1'), ctx({ held: '3', tradingState: 'REDUCING' })),
    deny: () => gate().check(buy('1'), ctx({ held: '3', tradingState: 'REDUCING' })),
  },
  {
    rule: 'size rounds to zero',
    code: 'PRECISION_ZERO_AFTER_ROUNDING',
    approve: () => gate().check(buy('0.10'), ctx()),
    deny: () => gate().check(buy('0.001'), ctx()),
  },
  {
    rule: 'minimum quantity',
    code: 'BELOW_MIN_QTY',
    approve: () => gate().check(buy('0.1'), ctx()),
    deny: () => gate().check(buy('0.09'), ctx()),
  },
  {
    rule: 'maximum limit quantity',
    code: 'ABOVE_MAX_QTY',
    approve: () => gate().check(buy('900'), ctx()),
    deny: () => gate().check(buy('1001'), ctx()),
  },
  {
    rule: 'maximum market quantity',
    code: 'ABOVE_MAX_MARKET_QTY',
    approve: () => gate().check(mbuy('40000'), ctx()),
    deny: () => gate().check(mbuy('60000'), ctx()),
  },
  {
    rule: 'minimum amount',
    code: 'BELOW_MIN_AMOUNT',
    approve: () => gate().check(mbuy('5'), ctx()),
    deny: () => gate().check(mbuy('4.99'), ctx()),
  },
  {
    rule: 'buy limit above buyLimitPriceRatio',
    code: 'LIMIT_PRICE_RATIO',
    approve: () => gate().check(buy('1', '105'), ctx()),
    deny: () => gate().check(buy('1', '105.01'), ctx()),
  },
  {
    rule: 'sell limit below sellLimitPriceRatio',
    code: 'LIMIT_PRICE_RATIO',
    approve: () => gate().check(sell('1', '95'), ctx({ held: '1' })),
    deny: () => gate().check(sell('1', '94.99'), ctx({ held: '1' })),
  },
  {
    rule: 'cash',
    code: 'INSUFFICIENT_CASH',
    approve: () => gate().check(buy('1'), ctx({ cash: '100' })),
    deny: () => gate().check(buy('1.01'), ctx({ cash: '100' })),
  },
  {
    rule: 'cash held by resting limit buys',
    code: 'HELD_BY_ORDERS',
    approve: () =>
      gate().check(
        buy('1'),
        ctx({ cash: '1000', heldByOrders: { quote: D(900), buys: 2, base: D(0), sells: 0 } }),
      ),
    deny: () =>
      gate().check(
        buy('1.01'),
        ctx({ cash: '1000', heldByOrders: { quote: D(900), buys: 2, base: D(0), sells: 0 } }),
      ),
  },
  {
    // An exit the bot's own resting limit sells leave no room for: EXIT_BLOCKED, naming the order (issue 30).
    rule: 'base held by resting limit sells',
    code: 'EXIT_BLOCKED',
    approve: () =>
      gate().check(
        sell('1'),
        ctx({ held: '3', heldByOrders: { quote: D(0), buys: 0, base: D(2), sells: 1 } }),
      ),
    deny: () =>
      gate().check(
        sell('1.5'),
        ctx({ held: '3', heldByOrders: { quote: D(0), buys: 0, base: D(2), sells: 1 } }),
      ),
  },
  {
    rule: 'protection lock on entries (exits pass)',
    code: 'PROTECTION_LOCK',
    approve: () => gate().check(sell('1'), ctx({ held: '2', entryLock: 'cooldown' })),
    deny: () => gate().check(buy('1'), ctx({ entryLock: 'cooldown' })),
  },
  {
    rule: 'spot oversell',
    code: 'OVERSELL',
    approve: () => gate().check(sell('2'), ctx({ held: '2' })),
    deny: () => gate().check(sell('2.01'), ctx({ held: '2' })),
  },
  {
    rule: 'a MARGIN order borrows only on a margin pair',
    code: 'MARGIN_NOT_MARGIN_PAIR',
    approve: () => gate().check(margin(buy('20')), mctx({ wire: marginWire })),
    deny: () => gate().check(margin(buy('20')), mctx({ wire: { category: 'SPOT' } })),
  },
  {
    rule: 'a MARGIN short borrows only a borrowable coin (a sell of what is held passes)',
    code: 'MARGIN_NOT_BORROWABLE',
    approve: () =>
      gate().check(
        short('1'),
        mctx({ held: '1', wire: { ...marginWire, isIsolatedBaseBorrowable: 'false' } }),
      ),
    deny: () =>
      gate().check(short('1'), mctx({ wire: { ...marginWire, isIsolatedBaseBorrowable: 'false' } })),
  },
  {
    rule: 'a MARGIN short borrows at least userMinBorrow',
    code: 'MARGIN_BELOW_MIN_BORROW',
    approve: () => gate().check(short('1.5'), mctx({ held: '1' })),
    deny: () => gate().check(short('1.4'), mctx({ held: '1' })),
  },
  {
    rule: "a MARGIN short owes at most equity x (leverage - 1), at the coin's leverage",
    code: 'MARGIN_LEVERAGE',
    approve: () => gate().check(short('20'), mctx()),
    deny: () => gate().check(short('20.01'), mctx()),
  },
  {
    rule: 'a MARGIN short counts the interest owed in what the account would owe',
    code: 'MARGIN_LEVERAGE',
    approve: () => gate().check(short('20'), mctx()),
    // owes 2000 + 0.01 of interest; equity 3000 - 2000.01 may owe 1999.98 at leverage 3
    deny: () => gate().check(short('20'), mctx({ margin: { leverage: () => D(3), interest: D('0.01') } })),
  },
  {
    rule: 'a MARGIN short leaves the risk ratio below warningRiskRatio less marginSafety',
    code: 'MARGIN_RISK_RATIO',
    approve: () => gate({ marginSafety: '0.5' }).check(short('4'), mctx()),
    deny: () => gate({ marginSafety: '0.5' }).check(short('5'), mctx()),
  },
  {
    rule: 'order notional',
    code: 'MAX_NOTIONAL_ORDER',
    approve: () => gate({ maxOrderNotional: '500' }).check(buy('5'), ctx()),
    deny: () => gate({ maxOrderNotional: '500' }).check(buy('5.01'), ctx()),
  },
  {
    rule: 'position quantity',
    code: 'MAX_POSITION',
    approve: () => gate({ maxPositionQty: '3' }).check(buy('1'), ctx({ held: '2' })),
    deny: () => gate({ maxPositionQty: '3' }).check(buy('1.01'), ctx({ held: '2' })),
  },
  {
    rule: 'position notional',
    code: 'MAX_NOTIONAL_POSITION',
    approve: () => gate({ maxPositionNotional: '300' }).check(buy('1'), ctx({ held: '2' })),
    deny: () => gate({ maxPositionNotional: '300' }).check(buy('1.5'), ctx({ held: '2' })),
  },
  {
    rule: 'gross exposure',
    code: 'MAX_GROSS_EXPOSURE',
    approve: () => gate({ maxGrossExposure: '1000' }).check(buy('10'), ctx()),
    deny: () => gate({ maxGrossExposure: '1000' }).check(buy('10.01'), ctx()),
  },
  {
    rule: 'order rate 5/s',
    code: 'ORDER_RATE',
    approve: () =>
      gate().check(
        buy('1'),
        ctx({ recentOrderTimes: [NOW - 100, NOW - 200, NOW - 300, NOW - 400, NOW - 1500] }),
      ),
    deny: () =>
      gate().check(
        buy('1'),
        ctx({ recentOrderTimes: [NOW - 100, NOW - 200, NOW - 300, NOW - 400, NOW - 500] }),
      ),
  },
  {
    rule: 'order rate 30/s when whitelisted',
    code: 'ORDER_RATE',
    approve: () =>
      gate({ whitelisted: true }).check(buy('1'), ctx({ recentOrderTimes: Array(29).fill(NOW - 10) })),
    deny: () =>
      gate({ whitelisted: true }).check(buy('1'), ctx({ recentOrderTimes: Array(30).fill(NOW - 10) })),
  },
];

describe('the sentence of a denial by resting orders', () => {
  it('names the free cash, the orders and what they hold, with thousands separators', () => {
    const d = gate().check(
      mbuy('200'),
      ctx({ cash: '10000', heldByOrders: { quote: D('9879.50'), buys: 4, base: D(0), sells: 0 } }),
    );
    expect(d.ok ? '' : d.message).toBe(
      'order needs 200.00 USDT: cash 120.50 USDT free, 4 limit orders hold 9,879.50 USDT (the venue has no cancel: wait for them to fill, or quote smaller)',
    );
  });
});

describe('risk gate rules', () => {
  for (const r of rows) {
    it(`approves within the rule and denies ${r.rule} with ${r.code}`, () => {
      const a = r.approve();
      expect(a.ok ? 'ok' : `${a.code}: ${a.message}`).toBe('ok');
      const d = r.deny();
      expect(d.ok ? 'ok' : d.code).toBe(r.code);
      if (!d.ok) expect(d.message.length).toBeGreaterThan(10);
    });
  }

  it('names the resting sell that blocks an exit, in the sentence and as blockedBy', () => {
    const d = gate().check(
      sell('1.5'),
      ctx({ held: '3', heldByOrders: { quote: D(0), buys: 0, base: D(2), sells: 2, firstSell: 'tb-tp-1' } }),
    );
    expect(d.ok ? 'ok' : [d.code, d.blockedBy]).toEqual(['EXIT_BLOCKED', 'tb-tp-1']);
    if (!d.ok)
      expect(d.message).toBe(
        'exit blocked: sell of 1.5 AAPL (t): 1 AAPL free, 2 resting limit sells hold 2 AAPL, first tb-tp-1 (the venue has no cancel: the position cannot be sold until they fill; see docs/strategies.md, "Exits behind resting orders")',
      );
  });

  it('approves a normalised order and its wire form', () => {
    const d = gate().check(buy('1.239', '100.129'), ctx());
    expect(d.ok).toBe(true);
    if (d.ok)
      expect(d.order).toEqual({
        category: 'SPOT',
        symbol: 'AAPLUSDT',
        side: 'buy',
        orderType: 'limit',
        qty: '1.23',
        price: '100.12',
      });
  });

  it('sends a market buy as a quote amount', () => {
    const d = gate().check(mbuy('250.999'), ctx());
    expect(d.ok && d.order).toEqual({
      category: 'SPOT',
      symbol: 'AAPLUSDT',
      side: 'buy',
      orderType: 'market',
      qty: '250.99',
    });
  });
});

describe('the order of the checks', () => {
  const RANK: Record<RiskStage, number> = { intent: 0, instrument: 1, market: 2, order: 3 };
  // The normalising step that establishes each stage, taken before the stage's first check.
  const STEP: Record<Exclude<RiskStage, 'intent'>, keyof typeof NORMALISE_STEPS> = {
    instrument: 'instrument',
    market: 'marketPrice',
    order: 'precision',
  };
  /** Every step and check by name, in the order the gate takes them. */
  const inOrder = (): string[] => {
    const out: string[] = [];
    let stage = 0;
    for (const c of RISK_CHECKS) {
      for (const s of ['instrument', 'market', 'order'] as const)
        if (RANK[s] > stage && RANK[s] <= RANK[c.needs]) out.push(STEP[s]);
      stage = Math.max(stage, RANK[c.needs]);
      out.push(c.name);
    }
    return out;
  };

  it("runs each stage's checks after the previous stage's (a check never reads what is not established)", () => {
    const ranks = RISK_CHECKS.map((c) => RANK[c.needs]);
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
  });

  it('is the order the README lists', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(
      readme.indexOf('## The risk gate'),
      readme.indexOf('## The simulated exchange'),
    );
    const names = new Set(inOrder());
    const listed = [...section.matchAll(/`([A-Za-z]+)`/g)].map((m) => m[1]).filter((n) => names.has(n ?? ''));
    expect(listed).toEqual(inOrder());
  });

  it('tells a halted bot to re-arm, not to resume (resume does not lift a halt)', () => {
    const d = gate().check(buy('1'), ctx({ tradingState: 'HALTED' }));
    const message = d.ok ? '' : d.message;
    expect(message).toMatch(/re-armed .*POST \/api\/bots\/<name>\/rearm/);
    expect(message).not.toMatch(/resume the bot/);
  });

  it('denies in that order: a halted bot on an unknown instrument is TRADING_HALTED', () => {
    const d = gate().check(
      buy('0.001'),
      ctx({ tradingState: 'HALTED', rules: undefined, market: undefined }),
    );
    expect(d.ok ? 'ok' : d.code).toBe('TRADING_HALTED');
    const closed = ctx({ session: usSessionAt(Date.UTC(2026, 10, 26, 15)), market: undefined });
    const c = gate().check(buy('0.001'), closed);
    expect(c.ok ? 'ok' : c.code).toBe('CALENDAR_CLOSED');
    const z = gate().check(buy('0.001'), ctx({ tradingState: 'REDUCING' }));
    expect(z.ok ? 'ok' : z.code).toBe('REDUCING_ONLY');
  });
});
