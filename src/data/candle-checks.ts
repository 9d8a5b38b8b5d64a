// The checks every candle reader applies to each candle (CSV, JSONL, Arrow, Parquet), so a file is refused for
// the same reasons, in the same words, whatever its format.
import type { CandleInterval } from '../api/index.js';

/** A time in a refusal: the number, and the instant beside it (a file from another tool may write dates). */
const at = (x: number) =>
  Math.abs(x) <= 8.64e15 ? `${x} (${new Date(x).toISOString().replace('.000Z', 'Z')})` : String(x);

/** What is wrong with one candle given the previous open time and the interval's step, or undefined. */
export function candleProblem(
  t: number,
  o: number,
  h: number,
  l: number,
  c: number,
  v: number,
  q: number,
  prev: number,
  step: number,
  interval: CandleInterval,
): string | undefined {
  if (!Number.isSafeInteger(t)) return `openTime ${t} must be whole Unix milliseconds`;
  if (t <= prev)
    return t === prev
      ? `duplicate openTime ${at(t)}`
      : `openTime ${at(t)} is before the previous ${at(prev)}: the file must be sorted`;
  if (Math.floor(t / step) * step !== t) return `openTime ${at(t)} is not on a ${interval} boundary`;
  if (!(o > 0 && h > 0 && l > 0 && c > 0 && Number.isFinite(o + h + l + c)))
    return 'open, high, low and close must be positive';
  if (!(v >= 0 && q >= 0 && Number.isFinite(v + q))) return 'volume and turnover must be zero or more';
  if (h < Math.max(o, c) || l > Math.min(o, c) || l > h)
    return 'high must be >= open, close and low; low must be <= open and close';
  return undefined;
}
