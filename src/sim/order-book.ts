// The synthetic order book around a market's last price (its levels redrawn every cadence, from the
// seed) and the public fills drawn from the per-second price path.
import type { PublicFill } from '../api/index.js';
import type { DayBlock, Units } from './day-block.js';
import { formatUnits, locate, pathAt } from './day-block.js';
import { hashInts, unitHash } from './rng.js';

/** An order-book level in integer units. */
export interface BookLevel {
  readonly price: number;
  readonly qty: number;
  readonly rpiQty: number;
}

/** What shapes a market's book and its public fills. */
export interface BookShape {
  /** The market's hash of the seed and its path key. */
  readonly key: number;
  readonly units: Units;
  /** Typical base-coin volume per minute. */
  readonly minuteVolume: number;
  /** Whether the market offers RPI liquidity. */
  readonly rpi: boolean;
  /** How often the levels change, simulated ms. */
  readonly cadenceMs: number;
}

const halfSpread = (last: number): number => Math.max(1, Math.round(last * 0.00005));

/** Order book at an instant: asks ascending from above the last price (ticks), bids descending below it. */
export function bookAround(
  s: BookShape,
  last: number,
  now: number,
  depth: number,
): { asks: BookLevel[]; bids: BookLevel[] } {
  const sec = Math.floor(now / s.cadenceMs);
  const hsp = halfSpread(last);
  const step = Math.max(1, Math.round(last * 0.00002));
  const baseQty = Math.max(1, s.minuteVolume * s.units.qScale * 0.15);
  const level = (side: number, j: number, price: number): BookLevel => {
    const u = unitHash(s.key, sec, side, j);
    const qty = Math.max(1, Math.round(baseQty * (0.2 + 1.6 * u) * (1 + j * 0.02)));
    const rpiQty = s.rpi ? Math.round(qty * 0.3 * unitHash(s.key, sec, side + 2, j)) : 0;
    return { price, qty, rpiQty };
  };
  const asks: BookLevel[] = [];
  const bids: BookLevel[] = [];
  for (let j = 0; j < depth; j++) asks.push(level(0, j, last + hsp + j * step));
  for (let j = 0; j < depth; j++) {
    const price = last - hsp - j * step;
    if (price < 1) break;
    bids.push(level(1, j, price));
  }
  return { asks, bids };
}

/** Recent public fills up to `now`, newest first, from the per-second price path of `blockOf`'s days. */
export function publicFillsUpTo(
  s: BookShape,
  blockOf: (day: number) => DayBlock,
  now: number,
  limit: number,
): PublicFill[] {
  const out: PublicFill[] = [];
  const nowSec = Math.floor(now / 1000);
  const unit = Math.max(1, Math.round(s.minuteVolume * s.units.qScale * 0.02));
  for (let sec = nowSec; out.length < limit && sec > nowSec - 3600; sec--) {
    const h = hashInts(s.key, 31, sec);
    if (h % 3 === 0) continue;
    const ts = sec * 1000 + (h % 1000);
    if (ts > now) continue;
    const { day, i, sec: inMinute } = locate(ts);
    const b = blockOf(day);
    if (b.v[i] === 0) continue; // nothing traded in this minute (a closed market, a replay gap)
    const price = pathAt(b, i, inMinute);
    const size = Math.max(1, Math.round(unit * (0.1 + 3 * unitHash(s.key, 32, sec))));
    out.push({
      execId: `${sec}${String(h % 100000).padStart(5, '0')}`,
      execLinkId: `${sec}${String(hashInts(s.key, 33, sec) % 100000).padStart(5, '0')}`,
      price: formatUnits(price, s.units.pp),
      size: formatUnits(size, s.units.qp),
      side: (h >>> 8) % 2 === 0 ? 'buy' : 'sell',
      ts: String(ts),
      isRPI: s.rpi && (h >>> 12) % 10 === 0 ? 'yes' : 'no',
    });
  }
  return out;
}
