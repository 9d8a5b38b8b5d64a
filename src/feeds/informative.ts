// The live side of informative timeframes: a closed-candle stream of one symbol, with the higher candles
// resampled from it (the one resampler, src/market/resample.ts) put in just before the base candle that
// closes them. The backtester runs the same resampler over its replayed candles.
import { Observable, type OperatorFunction } from 'rxjs';
import type { CandleInterval } from '../api/index.js';
import type { Candle } from '../market/candle.js';
import { InformativeCandles } from '../market/resample.js';

/** Adds the `informative` candles of one symbol, each once it has closed, to its closed base candles. */
export function withInformative(
  symbol: string,
  base: CandleInterval,
  informative: readonly CandleInterval[],
): OperatorFunction<Candle, Candle> {
  return (source) =>
    informative.length === 0
      ? source
      : new Observable<Candle>((sub) => {
          const candles = new InformativeCandles(symbol, base, informative);
          const out = (c: Candle): void => sub.next(c);
          return source.subscribe({
            next: (c) => candles.push(c, out),
            error: (e: unknown) => sub.error(e),
            complete: () => sub.complete(),
          });
        });
}
