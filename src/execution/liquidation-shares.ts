// A margin liquidation's fill among the account's fills: the venue closes a MARGIN position by force with a
// market order of its own, so its fill names no order of any bot (the public fill row has five fields; the
// simulator's in-process fill an order id no bot journaled). The fill router asks here, before it books a fill
// no order explains to the deployment, whether it is the liquidation of bots' positions (docs/margin.md).
import { Decimal } from '../market/decimal.js';
import { partExecId, venueExecId } from './fill-attribution.js';
import type { VenueFill } from './venue.js';

/** What a liquidation asks of a bot's fill sink (FillSink.liquidatable). */
export interface LiquidatableSink {
  readonly bot: string;
  /** What of the bot's position on the symbol a liquidation's fill of `side` would close. */
  liquidatable(symbol: string, side: string): Decimal;
}

/** One bot's share of a liquidation's fill: the fill (or its part) to book to it. */
export interface LiquidationShare<S extends LiquidatableSink> {
  readonly sink: S;
  readonly fill: VenueFill;
}

/**
 * A fill no order of a bot explains, of the side that closes MARGIN bots' positions while they owe a loan, is
 * the venue's liquidation of them: shared among those bots, the largest position first, each at most its
 * position (parts `<execId>/<n>`, the last keeping the fill's execId, as split fills are journaled). Not one
 * (undefined, the router books it to the deployment): a fill larger than their positions together, or a part
 * of a venue fill that more than one bot would have to share.
 */
export function liquidationShares<S extends LiquidatableSink>(
  symbol: string,
  f: VenueFill,
  sinks: readonly S[],
): LiquidationShare<S>[] | undefined {
  const size = f.exact?.size ?? new Decimal(f.size);
  const held = sinks
    .map((sink) => ({ sink, q: sink.liquidatable(symbol, f.side) }))
    .filter((x) => x.q.gt(0))
    .sort((a, b) => b.q.cmp(a.q) || (a.sink.bot < b.sink.bot ? -1 : 1));
  const total = held.reduce((a, x) => a.plus(x.q), new Decimal(0));
  const first = held[0];
  if (first === undefined || total.lt(size)) return undefined;
  if (first.q.gte(size)) return [{ sink: first.sink, fill: f }];
  if (venueExecId(f.execId) !== f.execId) return undefined;
  const sizes: { sink: S; size: Decimal }[] = [];
  let left = size;
  for (const x of held) {
    if (!left.gt(0)) break;
    const take = Decimal.min(x.q, left);
    sizes.push({ sink: x.sink, size: take });
    left = left.minus(take);
  }
  return sizes.map(({ sink, size: part }, i) => ({
    sink,
    fill: {
      ...f,
      execId: i === sizes.length - 1 ? f.execId : partExecId(f.execId, i + 1),
      size: part.toFixed(),
      exact: f.exact === undefined ? undefined : { price: f.exact.price, size: part, ts: f.exact.ts },
    },
  }));
}
