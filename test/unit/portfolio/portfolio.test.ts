import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal, dec } from '../../../src/market/decimal.js';
import { Portfolio, feeFor, type PortfolioFill } from '../../../src/portfolio/index.js';

const RATE = '0.001';
let ts = 1_700_000_000_000;
function fill(side: 'buy' | 'sell', size: string, price: string, symbol = 'AAPLUSDT'): PortfolioFill {
  return {
    symbol,
    baseCoin: symbol.replace(/USDT$/, ''),
    quoteCoin: 'USDT',
    side,
    price,
    size,
    fee: feeFor(price, size, RATE),
    feeCoin: 'USDT',
    ts: ts++,
  };
}
const s = (d: Decimal): string => d.toFixed();

describe('feeFor', () => {
  it('is price x size x rate, exact and unrounded', () => {
    expect(s(feeFor('189.40', '0.125', '0.001'))).toBe('0.023675');
    expect(s(feeFor('0.00000123', '7', '0.0002'))).toBe('0.000000001722');
  });
  it('refuses a negative rate and a JS number', () => {
    expect(() => feeFor('1', '1', '-0.001')).toThrow(/must not be negative/);
    expect(() => feeFor(1 as unknown as string, '1', '0.001')).toThrow(/price must be a decimal string/);
  });
});

describe('Portfolio (hand-computed)', () => {
  it('averages the entry price across buys, realises PnL on partial sells, flips through zero', () => {
    const p = new Portfolio({ quoteCoin: 'USDT', cash: { USDT: '10000' } });

    p.applyFill(fill('buy', '2', '100'));
    expect(s(p.cash('USDT'))).toBe('9799.8');
    expect(s(p.cash('AAPL'))).toBe('2');
    expect(s(p.position('AAPLUSDT').avgPrice)).toBe('100');

    p.applyFill(fill('buy', '1', '103'));
    expect(s(p.cash('USDT'))).toBe('9696.697');
    expect(p.position('AAPLUSDT')).toMatchObject({
      quantity: dec('3'),
      avgPrice: dec('101'),
      cost: dec('303'),
    });

    p.applyFill(fill('sell', '1', '110'));
    expect(s(p.cash('USDT'))).toBe('9806.587');
    const afterPartial = p.position('AAPLUSDT');
    expect(s(afterPartial.quantity)).toBe('2');
    expect(s(afterPartial.avgPrice)).toBe('101');
    expect(s(afterPartial.realisedPnl)).toBe('9');

    p.mark('AAPLUSDT', '105');
    expect(s(p.position('AAPLUSDT').unrealisedPnl)).toBe('8');
    // A position read before the mark keeps what it saw; its JSON carries every field.
    expect(s(afterPartial.unrealisedPnl)).toBe('-2'); // 2 x 100 (the first fill's price, the mark until one is given) - 202
    expect(JSON.parse(JSON.stringify(p.position('AAPLUSDT')))).toMatchObject({
      symbol: 'AAPLUSDT',
      quantity: '2',
      avgPrice: '101',
      unrealisedPnl: '8',
      realisedPnl: '9',
    });
    expect(s(p.equity())).toBe('10016.587');
    expect(s(p.fees())).toBe('0.413');

    // Sell 5 against a long of 2: closes 2 at 100 (realised -2), opens a short of 3 at 100.
    p.applyFill(fill('sell', '5', '100'));
    const short = p.position('AAPLUSDT');
    expect(s(short.quantity)).toBe('-3');
    expect(s(short.avgPrice)).toBe('100');
    expect(s(short.realisedPnl)).toBe('7');
    expect(s(short.unrealisedPnl)).toBe('-15'); // still marked at 105
    expect(s(p.cash('USDT'))).toBe('10306.087');
    expect(s(p.cash('AAPL'))).toBe('-3');
    expect(s(p.equity())).toBe('9991.087');

    // Buy 3 at 90 covers the short: +30.
    p.applyFill(fill('buy', '3', '90'));
    const flat = p.position('AAPLUSDT');
    expect(s(flat.quantity)).toBe('0');
    expect(s(flat.avgPrice)).toBe('0'); // reset when flat
    expect(s(flat.cost)).toBe('0');
    expect(s(flat.realisedPnl)).toBe('37');
    expect(s(flat.fees)).toBe('1.183');
    expect(s(p.equity())).toBe('10035.817');
    expect(s(p.equity())).toBe(s(dec('10000').plus(p.realisedPnl()).minus(p.fees())));
  });

  it('realises exact PnL on a full close even when the average price does not terminate', () => {
    const p = new Portfolio({ quoteCoin: 'USDT', cash: { USDT: '1000' } });
    p.applyFill(fill('buy', '1', '100'));
    p.applyFill(fill('buy', '2', '101'));
    expect(p.position('AAPLUSDT').avgPrice.eq(new Decimal(302).div(3))).toBe(true);
    p.applyFill(fill('sell', '3', '102'));
    expect(s(p.position('AAPLUSDT').realisedPnl)).toBe('4');
  });

  it("releases a partial close's share of a non-terminating cost basis rounded to 18 places, half-even", () => {
    const p = new Portfolio({ quoteCoin: 'USDT', cash: { USDT: '1000' } });
    p.applyFill(fill('buy', '1', '100'));
    p.applyFill(fill('buy', '2', '101'));
    // 302 x 1/3 = 100.666...: released 100.666666666666666667, realised 102 - that.
    p.applyFill(fill('sell', '1', '102'));
    const partial = p.position('AAPLUSDT');
    expect(s(partial.realisedPnl)).toBe('1.333333333333333333');
    expect(s(partial.cost)).toBe('201.333333333333333333');
    // The rest of the basis goes with the rest of the position: the round trip's PnL is exact.
    p.applyFill(fill('sell', '2', '102'));
    expect(s(p.position('AAPLUSDT').realisedPnl)).toBe('4');
  });

  it('counts equity as quote cash plus position x mark, per symbol', () => {
    const p = new Portfolio({ quoteCoin: 'USDT', cash: { USDT: '5000' } });
    p.applyFill(fill('buy', '10', '20', 'TSLAUSDT'));
    p.applyFill(fill('buy', '0.5', '3000', 'ETHUSDT'));
    p.mark('TSLAUSDT', '21.5');
    p.mark('ETHUSDT', '2990');
    // cash 5000 - 200.2 - 1501.5 = 3298.3; positions 215 + 1495
    expect(s(p.cash('USDT'))).toBe('3298.3');
    expect(s(p.equity())).toBe('5008.3');
    expect(s(p.unrealisedPnl())).toBe('10');
    expect(p.positions().map((x) => x.symbol)).toEqual(['ETHUSDT', 'TSLAUSDT']);
    expect(s(p.recordEquity(1))).toBe('5008.3');
    expect(p.equitySeries().map((e) => s(e.equity))).toEqual(['5008.3']);
  });

  it('values an unmarked position at its first fill price and keeps a mark given before the first fill', () => {
    const p = new Portfolio({ quoteCoin: 'USDT', cash: { USDT: '1000' } });
    p.mark('ETHUSDT', '3100');
    p.applyFill(fill('buy', '1', '100'));
    p.applyFill(fill('buy', '0.1', '3000', 'ETHUSDT'));
    expect(s(p.position('AAPLUSDT').mark ?? dec('0'))).toBe('100');
    expect(s(p.position('ETHUSDT').mark ?? dec('0'))).toBe('3100');
  });

  it('answers position() from the latest fill and mark (the view is cached only between them)', () => {
    const p = new Portfolio({ quoteCoin: 'USDT', cash: { USDT: '1000' } });
    const fill = (side: 'buy' | 'sell', price: string, size: string): PortfolioFill => ({
      symbol: 'AAPLUSDT',
      baseCoin: 'AAPL',
      quoteCoin: 'USDT',
      side,
      price,
      size,
      fee: '0',
      feeCoin: 'USDT',
      ts: 1,
    });
    p.applyFill(fill('buy', '100', '2'));
    const first = p.position('AAPLUSDT');
    expect(p.position('AAPLUSDT')).toBe(first); // nothing changed: the same answer
    p.mark('AAPLUSDT', dec('110'));
    expect(p.position('AAPLUSDT').unrealisedPnl.toFixed()).toBe('20');
    p.applyFill(fill('buy', '120', '2'));
    const after = p.position('AAPLUSDT');
    expect([after.quantity.toFixed(), after.avgPrice.toFixed(), after.unrealisedPnl.toFixed()]).toEqual([
      '4',
      '110',
      '0',
    ]);
    p.applyFill(fill('sell', '130', '4'));
    expect(p.position('AAPLUSDT').quantity.isZero()).toBe(true);
    expect(p.position('AAPLUSDT').realisedPnl.toFixed()).toBe('80');
    expect(first.quantity.toFixed()).toBe('2'); // an earlier answer is never changed under its holder
  });

  it('answers a zero position for a symbol never traded', () => {
    const p = new Portfolio({ quoteCoin: 'USDT' });
    expect(p.position('XUSDT')).toMatchObject({
      quantity: dec('0'),
      avgPrice: dec('0'),
      realisedPnl: dec('0'),
    });
    expect(s(p.cash('USDT'))).toBe('0');
    expect(p.positions()).toEqual([]);
  });

  it('refuses fills it cannot account for, naming the problem', () => {
    const p = new Portfolio({ quoteCoin: 'USDT', cash: { USDT: '1000' } });
    expect(() => p.applyFill({ ...fill('buy', '1', '1'), quoteCoin: 'USDC', symbol: 'AUSDC' })).toThrow(
      /counts equity in USDT/,
    );
    expect(() => p.applyFill({ ...fill('buy', '1', '1'), feeCoin: 'AAPL' })).toThrow(
      /fees in the quote coin/,
    );
    expect(() => p.applyFill(fill('buy', '0', '1'))).toThrow(/fill.size must be positive/);
    expect(() => p.applyFill({ ...fill('buy', '1', '1'), price: 1 as unknown as string })).toThrow(
      /fill.price must be a decimal/,
    );
    p.applyFill(fill('buy', '1', '1'));
    expect(() => p.applyFill({ ...fill('buy', '1', '1'), baseCoin: 'APPL' })).toThrow(
      /earlier fills said AAPL\/USDT/,
    );
  });

  it('restores a snapshot exactly, and refuses a malformed one', () => {
    const p = new Portfolio({ quoteCoin: 'USDT', cash: { USDT: '1000', AAPL: '0.5' } });
    p.applyFill(fill('buy', '1', '100'));
    p.applyFill(fill('buy', '2', '101'));
    p.mark('AAPLUSDT', '99.99');
    p.mark('TSLAUSDT', '250');
    p.recordEquity(7);
    const snap = JSON.parse(JSON.stringify(p.snapshot())) as unknown;
    const r = Portfolio.restore(snap);
    expect(r.snapshot()).toEqual(p.snapshot());
    expect(r.position('AAPLUSDT').avgPrice.eq(p.position('AAPLUSDT').avgPrice)).toBe(true);
    expect(() => Portfolio.restore({ ...p.snapshot(), cash: { USDT: 12 } })).toThrow(/cash\.USDT/);
  });
});

// Prices with 2 decimals and sizes with 3, as a Reality pair would have.
const priceArb = fc.integer({ min: 1, max: 1_000_000 }).map((n) => new Decimal(n).div(100).toFixed());
const sizeArb = fc.integer({ min: 1, max: 100_000 }).map((n) => new Decimal(n).div(1000).toFixed());
const fillArb = fc
  .record({
    side: fc.constantFrom<'buy' | 'sell'>('buy', 'sell'),
    size: sizeArb,
    price: priceArb,
    sym: fc.constantFrom('AAPLUSDT', 'TSLAUSDT'),
  })
  .map((f) => fill(f.side, f.size, f.price, f.sym));

describe('Portfolio (properties)', () => {
  it('buying then selling the same size at the same price costs exactly the two fees', () => {
    fc.assert(
      fc.property(priceArb, sizeArb, (price, size) => {
        const p = new Portfolio({ quoteCoin: 'USDT', cash: { USDT: '1000000' } });
        p.applyFill(fill('buy', size, price));
        p.applyFill(fill('sell', size, price));
        const twoFees = feeFor(price, size, RATE).times(2);
        expect(s(p.cash('USDT'))).toBe(s(dec('1000000').minus(twoFees)));
        expect(p.position('AAPLUSDT').quantity.isZero()).toBe(true);
        expect(p.position('AAPLUSDT').realisedPnl.isZero()).toBe(true);
        expect(s(p.equity())).toBe(s(p.cash('USDT')));
      }),
    );
  });

  it('equity = starting cash + realised + unrealised - fees, and base cash = position', () => {
    fc.assert(
      fc.property(fc.array(fillArb, { maxLength: 40 }), priceArb, (fills, last) => {
        const p = new Portfolio({ quoteCoin: 'USDT', cash: { USDT: '50000' } });
        for (const f of fills) p.applyFill(f);
        p.mark('AAPLUSDT', last);
        const identity = dec('50000').plus(p.realisedPnl()).plus(p.unrealisedPnl()).minus(p.fees());
        // The partial-close share of the cost basis is rounded to 18 places: what it rounds away moves
        // between realised and unrealised, and every sum after it is exact, so the identity holds exactly.
        expect(s(p.equity())).toBe(s(identity));
        for (const pos of p.positions()) expect(s(p.cash(pos.baseCoin))).toBe(s(pos.quantity));
      }),
    );
  });

  it('the average price is always cost / quantity (also where a fill sets it without dividing)', () => {
    fc.assert(
      fc.property(fc.array(fillArb, { minLength: 1, maxLength: 40 }), (fills) => {
        const p = new Portfolio({ quoteCoin: 'USDT', cash: { USDT: '50000' } });
        for (const f of fills) {
          p.applyFill(f);
          const pos = p.position(f.symbol);
          const expected = pos.quantity.isZero() ? dec('0') : pos.cost.div(pos.quantity);
          expect(s(pos.avgPrice)).toBe(s(expected));
        }
      }),
    );
  });

  it('rebuilding from the fill list equals the live portfolio (also across a snapshot/restore)', () => {
    fc.assert(
      fc.property(fc.array(fillArb, { maxLength: 40 }), fc.nat(40), priceArb, (fills, cut, last) => {
        const opts = { quoteCoin: 'USDT', cash: { USDT: '50000' } } as const;
        let live = new Portfolio(opts);
        fills.forEach((f, i) => {
          if (i === cut) live = Portfolio.restore(JSON.parse(JSON.stringify(live.snapshot())));
          live.applyFill(f);
          live.mark(f.symbol, f.price);
        });
        const rebuilt = Portfolio.fromFills(fills, opts);
        for (const sym of ['AAPLUSDT', 'TSLAUSDT']) {
          live.mark(sym, last);
          rebuilt.mark(sym, last);
        }
        expect({ ...rebuilt.snapshot(), equitySeries: [] }).toEqual({ ...live.snapshot(), equitySeries: [] });
        expect(s(rebuilt.equity())).toBe(s(live.equity()));
      }),
    );
  });
});
