// Wire records for tests that need a well-formed answer and care about one or two of its fields.
import type { Ticker } from '../../src/api/index.js';

/** A SPOT ticker of AAPLUSDT with every price and size "1" (change "0"), its fields overridden by `over`. */
export function wireTicker(over: Partial<Ticker> = {}): Ticker {
  return {
    symbol: 'AAPLUSDT',
    category: 'SPOT',
    lastPrice: '1',
    openPrice24h: '1',
    highPrice24h: '1',
    lowPrice24h: '1',
    ask1Price: '1',
    bid1Price: '1',
    ask1Size: '1',
    bid1Size: '1',
    price24hPcnt: '0',
    volume24h: '0',
    turnover24h: '0',
    ts: '0',
    ...over,
  };
}
