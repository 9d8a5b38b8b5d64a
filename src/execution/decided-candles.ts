// The candles a live bot decides on, journaled as it saw them (OHLCV as text), when (venue time), and whether
// a signal on one may trade: the drift monitor's side of the journal (src/drift). No commit of its own: the
// row waits in the journal's deferred writes for the next commit (the candle mark's, an order's).
import { closeTimeOf, type Candle } from '../market/candle.js';
import type { DecisionPhase, Store } from '../store/index.js';

/** `warm_up` when not traded (warm-up, decided before a restart); `replay` when older than signals may be; else `live`. */
export function decisionPhase(
  warmUp: boolean,
  age: number,
  maxSignalAgeMs: number | undefined,
): DecisionPhase {
  if (warmUp) return 'warm_up';
  return maxSignalAgeMs !== undefined && maxSignalAgeMs > 0 && age > maxSignalAgeMs ? 'replay' : 'live';
}

/** Defers the journal row of a decided candle to the journal's next commit. */
export function journalDecidedCandle(
  store: Store,
  o: {
    readonly bot: string;
    readonly candle: Candle;
    readonly now: number;
    readonly warmUp: boolean;
    readonly maxSignalAgeMs: number | undefined;
  },
): void {
  const c = o.candle;
  const row = {
    bot: o.bot,
    symbol: c.symbol,
    interval: c.interval,
    openTime: c.openTime,
    open: String(c.open),
    high: String(c.high),
    low: String(c.low),
    close: String(c.close),
    volume: String(c.volume),
    decidedTs: o.now,
    phase: decisionPhase(o.warmUp, o.now - closeTimeOf(c), o.maxSignalAgeMs),
  };
  store.deferWrite(`decided:${o.bot}:${c.symbol}:${c.openTime}:${o.now}`, () => store.decided.record(row));
}
