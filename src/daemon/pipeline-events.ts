// The daemon's subscriber of the trading pipeline's events: log lines and Prometheus metrics. It is one
// listener per bot; the pipeline knows nothing of logs or metrics. Log lines keep a stable message for
// machines and carry `what`, the sentence with units a person reads (the pretty format shows it).
import type { TraderEvent, TraderFill, TraderListener } from '../execution/trader.js';
import type { Logger } from './logger.js';
import type { DaemonMetrics } from './metrics.js';

/** The coins of a symbol: base and quote (AAPLUSDT -> AAPL, USDT). */
export type CoinsOf = (symbol: string) => { base: string; quote: string };

/** The coins of a symbol quoted in `quoteCoin` (the bot's), read off its name. */
export const coinsBySuffix =
  (quoteCoin: string): CoinsOf =>
  (symbol) => ({
    base:
      symbol.endsWith(quoteCoin) && symbol.length > quoteCoin.length
        ? symbol.slice(0, -quoteCoin.length)
        : symbol,
    quote: quoteCoin,
  });

type OrderEvent = Extract<TraderEvent, { type: 'order' }>;

/** The coin of an order's qty: the spec's rule sizes a market buy in the quote coin, the rest in the base. */
export function qtyCoin(order: OrderEvent['order'], coins: CoinsOf): string {
  const c = coins(order.symbol);
  return order.orderType === 'market' && order.side === 'buy' ? c.quote : c.base;
}

/** "buy 2000 USDT of AAPLUSDT at market", "sell 13.17 AAPL of AAPLUSDT at 151.85 USDT". */
export function describeOrder(order: OrderEvent['order'], coins: CoinsOf): string {
  const at =
    order.orderType === 'market' ? 'at market' : `at ${order.price ?? '?'} ${coins(order.symbol).quote}`;
  return `${order.side} ${order.qty} ${qtyCoin(order, coins)} of ${order.symbol} ${at}`;
}

/** The exit that made a fill, when the pipeline tells it (an exit rule's fills carry their reason). */
export const exitReasonOf = (fill: TraderFill): string | undefined =>
  (fill as { readonly exitReason?: string | undefined }).exitReason;

/** "bought 13.17 AAPL at 151.85 USDT (fee 0.2 USDT, taker)", with the exit's reason when it was one. */
export function describeFill(fill: TraderFill): string {
  const verb = fill.side === 'buy' ? 'bought' : 'sold';
  const reason = exitReasonOf(fill);
  return (
    `filled: ${verb} ${fill.size.toFixed()} ${fill.baseCoin} at ${fill.price.toFixed()} ${fill.quoteCoin}` +
    ` (fee ${fill.fee.toFixed()} ${fill.feeCoin}, ${fill.liquidity})${reason === undefined ? '' : `, exit: ${reason}`}`
  );
}

export function pipelineEvents(logger: Logger, metrics: DaemonMetrics, coins: CoinsOf): TraderListener {
  return (e) => {
    switch (e.type) {
      case 'intent':
        metrics.intents.inc({ bot: e.bot });
        break;
      case 'denied':
        metrics.denials.inc({ bot: e.bot, code: e.code });
        // A replayed candle's signal (warm-up backfill, a gap) is denied STALE_SIGNAL by design: the
        // journal keeps each; the log tells the replay in one line (LiveBot's "replay done").
        if (e.code === 'STALE_SIGNAL')
          logger.debug('intent denied', {
            bot: e.bot,
            symbol: e.intent.symbol,
            code: e.code,
            reason: e.message,
          });
        else
          logger.info('intent denied', {
            bot: e.bot,
            what: `denied ${e.intent.side} of ${e.intent.symbol} (${e.code}): ${e.message}`,
            symbol: e.intent.symbol,
            code: e.code,
            reason: e.message,
          });
        break;
      case 'order':
        metrics.orders.inc({ bot: e.bot, status: e.outcome.status });
        metrics.tickToOrder.observe({ bot: e.bot }, e.signalToAnswerMs / 1000);
        if (e.outcome.status === 'acked')
          logger.info('order placed', {
            bot: e.bot,
            what: `order placed: ${describeOrder(e.order, coins)}`,
            symbol: e.order.symbol,
            side: e.order.side,
            qty: e.order.qty,
            qtyCoin: qtyCoin(e.order, coins),
            clientOid: e.outcome.clientOid,
            orderId: e.outcome.orderId,
            alreadyPlaced: e.outcome.alreadyPlaced,
            // From the close of the candle that triggered it to the venue's answer (venue time).
            signalToAnswerMs: e.signalToAnswerMs,
          });
        break;
      case 'fill':
        metrics.fills.inc({ bot: e.bot, source: e.fill.estimated === true ? 'estimated' : 'venue' });
        logger.info('fill', {
          bot: e.bot,
          what: describeFill(e.fill),
          symbol: e.fill.symbol,
          side: e.fill.side,
          price: e.fill.price.toFixed(),
          size: e.fill.size.toFixed(),
          fee: e.fill.fee.toFixed(),
          liquidity: e.fill.liquidity,
          // The venue does not say maker or taker: the fee is estimated from the order (liquidityOf).
          feeEstimated: e.fill.liquidityInferred,
          ...(exitReasonOf(e.fill) !== undefined ? { exitReason: exitReasonOf(e.fill) } : {}),
          ...(e.fill.estimated === true ? { estimated: 'booked from the acknowledgement at the touch' } : {}),
        });
        break;
      case 'equity':
        metrics.equity.set({ bot: e.bot }, e.equity.toNumber());
        break;
      case 'trading-state':
        metrics.setState(e.bot, e.to);
        logger.warn('trading state changed', { bot: e.bot, from: e.from, to: e.to, reason: e.reason });
        break;
    }
  };
}
