// Conversion of wire strings to Decimal where a caller asks for it.
import type { OrderBook, PublicFill, RealityFill, Ticker } from '../api/index.js';
import { Decimal } from '../market/decimal.js';

const d = (s: string | undefined): Decimal | undefined =>
  s === undefined || s === '' ? undefined : new Decimal(s);

export interface TickerDecimals {
  readonly symbol: string;
  readonly last: Decimal;
  readonly bid: Decimal;
  readonly ask: Decimal;
  readonly high24h: Decimal;
  readonly low24h: Decimal;
  readonly volume24h: Decimal;
  readonly markPrice?: Decimal | undefined;
  readonly ts: number;
}

export function tickerDecimals(t: Ticker): TickerDecimals {
  return {
    symbol: t.symbol,
    last: new Decimal(t.lastPrice),
    bid: new Decimal(t.bid1Price),
    ask: new Decimal(t.ask1Price),
    high24h: new Decimal(t.highPrice24h),
    low24h: new Decimal(t.lowPrice24h),
    volume24h: new Decimal(t.volume24h),
    markPrice: d(t.markPrice),
    ts: Number(t.ts),
  };
}

export function orderBookDecimals(b: OrderBook): {
  asks: [Decimal, Decimal][];
  bids: [Decimal, Decimal][];
  ts: number;
} {
  const conv = (l: [string, string]): [Decimal, Decimal] => [new Decimal(l[0]), new Decimal(l[1])];
  return { asks: b.a.map(conv), bids: b.b.map(conv), ts: Number(b.ts) };
}

export function fillDecimals<F extends PublicFill | RealityFill>(
  f: F,
): Omit<F, 'price' | 'size'> & { price: Decimal; size: Decimal } {
  return { ...f, price: new Decimal(f.price), size: new Decimal(f.size) };
}
