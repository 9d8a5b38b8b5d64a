// The fills of one order together: a venue reports an order's fills one by one, and every comparison of two
// runs (a paper run against its backtest, live against the drift monitor's replay) reads them as executions.
import { Decimal } from './decimal.js';

/** What grouping reads of a fill: its time, the key of its order, its price and size. */
export interface GroupedFill {
  readonly ts: number;
  readonly key: string;
  readonly price: Decimal;
  readonly size: Decimal;
}

/** One order's fills, oldest first, with their total size and size-weighted price (the first's price when empty). */
export interface FillGroup<F extends GroupedFill> {
  readonly fills: readonly F[];
  readonly first: F;
  readonly size: Decimal;
  readonly price: Decimal;
}

/** Fills grouped by `key`, in the order of each group's first fill. */
export function groupFills<F extends GroupedFill>(fills: readonly F[]): FillGroup<F>[] {
  const groups = new Map<string, F[]>();
  for (const f of [...fills].sort((a, b) => a.ts - b.ts)) {
    const g = groups.get(f.key);
    if (g === undefined) groups.set(f.key, [f]);
    else g.push(f);
  }
  return [...groups.values()].map((g) => {
    const first = g[0] as F;
    const size = g.reduce((a, f) => a.plus(f.size), new Decimal(0));
    const notional = g.reduce((a, f) => a.plus(f.price.mul(f.size)), new Decimal(0));
    return { fills: g, first, size, price: size.isZero() ? first.price : notional.div(size) };
  });
}
