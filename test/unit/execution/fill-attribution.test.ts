// Attributing fills that carry only the spec's five fields to the bots' open orders: one table row per
// part of the rule, a property (never more than an order's remainder; the same answer whatever the
// input order), the baseline that keeps the account's earlier fills out, and the fee estimate.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  attributeFills,
  createFillBaseline,
  excludeBaseline,
  metaBaselineStore,
  venueExecId,
  type AttributableOrder,
  type FillPart,
  type VenueFill,
} from '../../../src/execution/fill-attribution.js';
import { Decimal } from '../../../src/market/decimal.js';
import { fillFee, liquidityOf } from '../../../src/portfolio/fees.js';
import { openStore } from '../../../src/store/index.js';

const D = (s: string | number) => new Decimal(String(s));
const fill = (execId: string, side: string, size: string, ts: number, price = '100'): VenueFill => ({
  execId,
  side,
  size: D(size),
  price: D(price),
  ts,
});
const order = (o: Partial<AttributableOrder> & Pick<AttributableOrder, 'clientOid'>): AttributableOrder => ({
  bot: 'a',
  side: 'buy',
  orderType: 'limit',
  placedAt: 1000,
  size: D(10),
  sizeUnit: 'base',
  filled: D(0),
  ...o,
});
/** A part by its journal execId, with its size when it is not the whole fill. */
const partName = (p: FillPart) => (p.size.eq(p.fill.size) ? p.execId : `${p.execId} ${p.size.toFixed()}`);
const owners = (fills: VenueFill[], orders: AttributableOrder[]) => {
  const r = attributeFills(fills, orders);
  return {
    to: Object.fromEntries(r.assignments.map((x) => [partName(x), `${x.bot}/${x.clientOid}`])),
    not: Object.fromEntries(r.unattributed.map((x) => [partName(x), x.reason])),
  };
};

describe('attributeFills', () => {
  const rows: { rule: string; fills: VenueFill[]; orders: AttributableOrder[]; to: object; not: object }[] = [
    {
      rule: 'matches the side',
      fills: [fill('f1', 'sell', '1', 2000)],
      orders: [order({ clientOid: 'b1', side: 'buy' }), order({ clientOid: 's1', bot: 'b', side: 'sell' })],
      to: { f1: 'b/s1' },
      not: {},
    },
    {
      rule: 'never gives a fill to an order placed after it',
      fills: [fill('f1', 'buy', '1', 999)],
      orders: [order({ clientOid: 'o1', placedAt: 1000 })],
      to: {},
      not: { f1: 'no_matching_order' },
    },
    {
      rule: 'takes a fill at the placement instant',
      fills: [fill('f1', 'buy', '1', 1000)],
      orders: [order({ clientOid: 'o1', placedAt: 1000 })],
      to: { f1: 'a/o1' },
      not: {},
    },
    {
      rule: 'is first placed, first filled among limit orders (FIFO)',
      fills: [fill('f1', 'buy', '4', 5000), fill('f2', 'buy', '4', 5001)],
      orders: [
        order({ clientOid: 'late', bot: 'b', placedAt: 2000, size: D(4) }),
        order({ clientOid: 'early', placedAt: 1000, size: D(4) }),
      ],
      to: { f1: 'a/early', f2: 'b/late' },
      not: {},
    },
    {
      rule: 'orders two sends within one clock tick by the process send order, not by clientOid',
      fills: [fill('f1', 'sell', '0.8462', 5000), fill('f2', 'sell', '1.2975', 5001)],
      orders: [
        // Same placedAt; "c"'s clientOid sorts first, but "a" was sent first: its order took the first fill.
        order({ clientOid: 'tb18', side: 'sell', orderType: 'market', sent: 7, size: D('0.8462') }),
        order({ clientOid: 'tb0m', bot: 'c', side: 'sell', orderType: 'market', sent: 8, size: D('1.2975') }),
      ],
      to: { f1: 'a/tb18', f2: 'c/tb0m' },
      not: {},
    },
    {
      rule: 'puts an order tracked after a restart before the ones sent since',
      fills: [fill('f1', 'buy', '4', 5000)],
      orders: [
        order({ clientOid: 'new', bot: 'b', placedAt: 900, sent: 1, size: D(4) }),
        order({ clientOid: 'old', placedAt: 1000, size: D(4) }),
      ],
      to: { f1: 'a/old' },
      not: {},
    },
    {
      rule: 'prefers a market order over a resting limit order',
      fills: [fill('f1', 'buy', '2', 3000)],
      orders: [
        order({ clientOid: 'lim', placedAt: 1000 }),
        order({
          clientOid: 'mkt',
          bot: 'b',
          orderType: 'market',
          placedAt: 3000,
          size: D(500),
          sizeUnit: 'quote',
        }),
      ],
      to: { f1: 'b/mkt' },
      not: {},
    },
    {
      rule: 'gives a resting limit only fills at its own price (a maker), and before it rested any fitting one',
      fills: [
        fill('early', 'buy', '1', 1200, '99'),
        fill('late', 'buy', '1', 2000, '99'),
        fill('maker', 'buy', '1', 2500, '100'),
      ],
      orders: [
        order({ clientOid: 'lim', bot: 'b', limitPrice: D(100), restingSince: 1500 }),
        order({ clientOid: 'mkt', orderType: 'market', placedAt: 1900, size: D(1) }),
      ],
      // 'early' (before the ack: it may have crossed the book) and 'maker' go to the limit; 'late', at 99 after
      // the limit rested at 100, only the market order can take.
      to: { early: 'b/lim', late: 'a/mkt', maker: 'b/lim' },
      not: {},
    },
    {
      rule: "counts a market buy's remainder in quote coin",
      fills: [fill('f1', 'buy', '3', 3000), fill('f2', 'buy', '3', 3001)],
      orders: [order({ clientOid: 'mkt', orderType: 'market', size: D(500), sizeUnit: 'quote' })],
      // 500 quote: 300 for f1, 200 (2 of f2's 3) left; the third unit is the deployment's.
      to: { f1: 'a/mkt', 'f2/1 2': 'a/mkt' },
      not: { 'f2 1': 'exceeds_remaining' },
    },
    {
      rule: 'respects the limit price',
      fills: [fill('f1', 'buy', '1', 2000, '101'), fill('f2', 'sell', '1', 2000, '99')],
      orders: [
        order({ clientOid: 'b', limitPrice: D(100) }),
        order({ clientOid: 's', side: 'sell', limitPrice: D(100) }),
      ],
      to: {},
      not: { f1: 'no_matching_order', f2: 'no_matching_order' },
    },
    {
      rule: 'uses what is already filled, and splits a fill no one order can hold across the candidates',
      fills: [fill('f1', 'buy', '3', 2000), fill('f2', 'buy', '2', 2001)],
      orders: [
        order({ clientOid: 'o1', size: D(5), filled: D(3) }),
        order({ clientOid: 'o2', bot: 'b', size: D(1), placedAt: 900 }),
      ],
      // f1 (3) fits neither (2 and 1 left): o2, placed first, takes 1, o1 its 2; f2 finds both full.
      to: { 'f1/1 1': 'b/o2', 'f1 2': 'a/o1' },
      not: { f2: 'exceeds_remaining' },
    },
    {
      rule: 'skips a full order for the next in line',
      fills: [fill('f1', 'buy', '2', 2000)],
      orders: [
        order({ clientOid: 'full', placedAt: 500, size: D(2), filled: D(2) }),
        order({ clientOid: 'next', bot: 'b' }),
      ],
      to: { f1: 'b/next' },
      not: {},
    },
    {
      rule: 'leaves a fill of an unknown side',
      fills: [fill('f1', 'cross', '1', 2000)],
      orders: [order({ clientOid: 'o1' })],
      to: {},
      not: { f1: 'unknown_side' },
    },
  ];
  for (const r of rows) {
    it(r.rule, () => {
      expect(owners(r.fills, r.orders)).toEqual({ to: r.to, not: r.not });
    });
  }

  it('refuses two orders with one clientOid', () => {
    expect(() => attributeFills([], [order({ clientOid: 'x' }), order({ clientOid: 'x' })])).toThrow(/x/);
  });

  const arbOrder = fc.record({
    bot: fc.constantFrom('a', 'b', 'c'),
    side: fc.constantFrom('buy' as const, 'sell' as const),
    orderType: fc.constantFrom('limit' as const, 'market' as const),
    placedAt: fc.integer({ min: 0, max: 100 }),
    size: fc.integer({ min: 1, max: 50 }),
    filled: fc.integer({ min: 0, max: 50 }),
    limit: fc.option(fc.integer({ min: 90, max: 110 }), { nil: undefined }),
    quote: fc.integer({ min: 1, max: 3000 }),
    resting: fc.option(fc.integer({ min: 0, max: 120 }), { nil: undefined }),
  });
  const arbFill = fc.record({
    side: fc.constantFrom('buy', 'sell'),
    // Sizes in thousandths and prices in hundredths: a market buy's quote remainder seldom divides evenly.
    size: fc.integer({ min: 1, max: 20_000 }),
    price: fc.integer({ min: 9_000, max: 11_000 }),
    ts: fc.integer({ min: 0, max: 120 }),
  });

  it('books every fill exactly once, never more to an order than it has left, the same whatever the input order', () => {
    fc.assert(
      fc.property(
        fc.array(arbOrder, { maxLength: 8 }),
        fc.array(arbFill, { maxLength: 25 }),
        fc.integer(),
        (os, fs, seed) => {
          const orders = os.map((o, i) =>
            order({
              clientOid: `o${i}`,
              bot: o.bot,
              side: o.side,
              orderType: o.orderType,
              placedAt: o.placedAt,
              size: D(o.orderType === 'market' && o.side === 'buy' ? o.quote : o.size),
              filled: D(Math.min(o.filled, o.orderType === 'market' && o.side === 'buy' ? o.quote : o.size)),
              sizeUnit: o.orderType === 'market' && o.side === 'buy' ? 'quote' : 'base',
              limitPrice: o.orderType === 'limit' && o.limit !== undefined ? D(o.limit) : undefined,
              restingSince: o.orderType === 'limit' ? o.resting : undefined,
            }),
          );
          const fills = fs.map((f, i) =>
            fill(`e${i}`, f.side, D(f.size).div(1000).toFixed(), f.ts, D(f.price).div(100).toFixed()),
          );
          const r = attributeFills(fills, orders);
          // Conservation: every fill booked exactly once, its parts (to bots or the deployment) summing to
          // its size, under distinct journal execIds, its own for its last part.
          const ids = r.parts.map((p) => p.execId);
          expect(new Set(ids).size).toBe(ids.length);
          for (const f of fills) {
            const mine = r.parts.filter((p) => venueExecId(p.execId) === f.execId);
            expect(mine.reduce((s, p) => s.plus(p.size), D(0)).toFixed()).toBe(f.size.toFixed());
            expect(mine.at(-1)?.execId).toBe(f.execId);
            for (const p of mine) expect(p.size.gt(0)).toBe(true);
            // Exact only when it had one candidate, which took it whole.
            for (const p of mine) if (p.exact) expect([mine.length, p.candidates.length]).toEqual([1, 1]);
          }
          for (const o of orders) {
            const used = r.assignments
              .filter((a) => a.clientOid === o.clientOid)
              .reduce((s, a) => s.plus(o.sizeUnit === 'quote' ? a.fill.price.mul(a.size) : a.size), D(0));
            expect(used.lte(o.size.minus(o.filled))).toBe(true);
            expect(r.remaining.get(o.clientOid)?.toFixed()).toBe(
              Decimal.max(o.size.minus(o.filled), 0).minus(used).toFixed(),
            );
          }
          for (const a of r.assignments) {
            const o = orders.find((x) => x.clientOid === a.clientOid)!;
            expect(o.side).toBe(a.fill.side);
            expect(o.placedAt).toBeLessThanOrEqual(a.fill.ts);
          }
          // Shuffled inputs, same answer.
          const shuffle = <T>(xs: T[]) =>
            xs
              .map((x, i) => ({ x, k: Math.imul(i + 1, seed | 1) >>> 0 }))
              .sort((p, q) => p.k - q.k)
              .map((p) => p.x);
          const again = attributeFills(shuffle([...fills]), shuffle([...orders]));
          const shape = (x: typeof r) =>
            x.parts.map((p) => [p.execId, p.size.toFixed(), p.clientOid ?? null]);
          expect(shape(again)).toEqual(shape(r));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('fill baseline', () => {
  it('never books a fill at or before the first start, nor one the account already had then', () => {
    const firstStart = 10_000;
    const baseline = createFillBaseline(firstStart, [{ execId: 'manual-2' }]);
    const fills = [
      fill('manual-1', 'buy', '1', 9_000),
      fill('at-start', 'buy', '1', 10_000),
      fill('manual-2', 'buy', '1', 10_050), // seen at the first start although its ts is later (skew)
      fill('bot-1', 'buy', '1', 10_001),
    ];
    const r = excludeBaseline(fills, baseline);
    expect(r.bookable.map((f) => f.execId)).toEqual(['bot-1']);
    expect(r.baseline.map((f) => f.execId)).toEqual(['manual-1', 'at-start', 'manual-2']);
  });

  it('is kept in the journal (SQLite): read back after a restart, and read from the file once per symbol', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tradebot-baseline-'));
    const path = join(dir, 'j.db');
    try {
      const first = openStore(path);
      metaBaselineStore(first.meta).set('AAPLUSDT', createFillBaseline(10_000, [{ execId: 'manual-2' }]));
      first.close();
      const store = openStore(path);
      let reads = 0;
      const baselines = metaBaselineStore({
        get: (k) => (reads++, store.meta.get(k)),
        set: (k, v) => store.meta.set(k, v),
      });
      const b = baselines.get('AAPLUSDT');
      expect(b?.firstStartedAt).toBe(10_000);
      expect([...(b?.execIds ?? [])]).toEqual(['manual-2']);
      // Every fills read asks for it: the file is read once.
      for (let i = 0; i < 5; i++) expect(baselines.get('AAPLUSDT')).toBe(b);
      expect(reads).toBe(1);
      expect(baselines.get('TSLAUSDT')).toBeUndefined();
      store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('fees by liquidity', () => {
  const rates = { maker: new Decimal('0.0008'), taker: new Decimal('0.001') };
  it('charges the taker rate for a market order', () => {
    const l = liquidityOf({ orderType: 'market', side: 'buy' });
    expect([l, fillFee(new Decimal('190').times('2'), l, rates).toFixed()]).toEqual(['taker', '0.38']);
  });
  it('charges the maker rate for a limit order that rested', () => {
    const l = liquidityOf({
      orderType: 'limit',
      side: 'buy',
      limitPrice: '190',
      bookAtPlacement: { bid: '189.9', ask: '190.1' },
      ackedAt: 1000,
      fillTs: 5000,
    });
    expect([l, fillFee(new Decimal('190').times('2'), l, rates).toFixed()]).toEqual(['maker', '0.304']);
  });
  it('takes a limit order that crossed the book at placement as taker', () => {
    expect(
      liquidityOf({ orderType: 'limit', side: 'buy', limitPrice: '191', bookAtPlacement: { ask: '190.1' } }),
    ).toBe('taker');
    expect(
      liquidityOf({ orderType: 'limit', side: 'sell', limitPrice: '189', bookAtPlacement: { bid: '189.9' } }),
    ).toBe('taker');
    expect(
      liquidityOf({ orderType: 'limit', side: 'sell', limitPrice: '191', bookAtPlacement: { bid: '189.9' } }),
    ).toBe('maker');
  });
  it('takes a limit fill stamped before the acknowledgement arrived as taker (it matched on arrival)', () => {
    expect(
      liquidityOf({ orderType: 'limit', side: 'sell', limitPrice: '191', ackedAt: 5000, fillTs: 4990 }),
    ).toBe('taker');
  });
});
