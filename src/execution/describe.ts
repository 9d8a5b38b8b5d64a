// The pipeline's orders and fills in words, with units: the daemon's log lines and the notifications say
// them the same way. A market buy's qty is a quote-coin amount (the spec's qty rule); everything else
// is in the base coin.
import { baseFromName } from '../market/instrument-rules.js';
import type { TraderFill } from './trader.js';
import type { VenueOrder } from './venue.js';

/** The coins of a symbol: base and quote (AAPLUSDT -> AAPL, USDT). */
export type CoinsOf = (symbol: string) => { base: string; quote: string };

/** The coins of a symbol quoted in `quoteCoin` (the bot's), read off its name. */
export const coinsBySuffix =
  (quoteCoin: string): CoinsOf =>
  (symbol) => ({ base: baseFromName(symbol, quoteCoin) ?? symbol, quote: quoteCoin });

/** The coin of an order's qty. */
export function qtyCoin(order: VenueOrder, coins: CoinsOf): string {
  const c = coins(order.symbol);
  return order.orderType === 'market' && order.side === 'buy' ? c.quote : c.base;
}

/** "buy 2000 USDT of AAPLUSDT at market", "sell 13.17 AAPL of AAPLUSDT at 151.85 USDT". */
export function describeOrder(order: VenueOrder, coins: CoinsOf): string {
  const at =
    order.orderType === 'market' ? 'at market' : `at ${order.price ?? '?'} ${coins(order.symbol).quote}`;
  return `${order.side} ${order.qty} ${qtyCoin(order, coins)} of ${order.symbol} ${at}`;
}

/** The exit that made a fill, when the pipeline tells it (an exit rule's fills carry their reason). */
export const exitReasonOf = (fill: TraderFill): string | undefined =>
  (fill as { readonly exitReason?: string | undefined }).exitReason;

/** "bought 13.17 AAPL at 151.85 USDT (fee 0.2 USDT, taker)". */
export function describeFill(fill: TraderFill): string {
  const verb = fill.side === 'buy' ? 'bought' : 'sold';
  return `${verb} ${fill.size.toFixed()} ${fill.baseCoin} at ${fill.price.toFixed()} ${fill.quoteCoin} (fee ${fill.fee.toFixed()} ${fill.feeCoin}, ${fill.liquidity})`;
}
