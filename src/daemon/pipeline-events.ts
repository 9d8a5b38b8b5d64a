// The daemon's subscriber of the trading pipeline's events: log lines and Prometheus metrics. It is one
// listener per bot; the pipeline knows nothing of logs or metrics. Log lines keep a stable message for
// machines and carry `what`, the sentence with units a person reads (the pretty format shows it).
import { describeFill, describeOrder, exitReasonOf, qtyCoin, type CoinsOf } from '../execution/describe.js';
import type { TraderListener } from '../execution/trader.js';
import type { Logger } from './logger.js';
import type { DaemonMetrics } from './metrics.js';

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
          what: `filled: ${describeFill(e.fill)}${exitReasonOf(e.fill) === undefined ? '' : `, exit: ${exitReasonOf(e.fill) ?? ''}`}`,
          symbol: e.fill.symbol,
          side: e.fill.side,
          price: e.fill.price.toFixed(),
          size: e.fill.size.toFixed(),
          fee: e.fill.fee.toFixed(),
          liquidity: e.fill.liquidity,
          // The venue does not say maker or taker: the fee is estimated from the order (liquidityOf).
          feeEstimated: e.fill.liquidityInferred,
          ...(e.fill.exitReason !== undefined ? { exitReason: e.fill.exitReason } : {}),
          ...(e.fill.estimated === true ? { estimated: 'booked from the acknowledgement at the touch' } : {}),
        });
        break;
      case 'equity':
        metrics.equity.set({ bot: e.bot }, e.equity.toNumber());
        break;
      case 'protection':
        logger.warn('protection lock', {
          bot: e.bot,
          protection: e.lock.protection,
          symbol: e.lock.symbol ?? 'all',
          until: new Date(e.lock.until).toISOString(),
          reason: e.lock.reason,
        });
        break;
      case 'trading-state':
        metrics.setState(e.bot, e.to);
        logger.warn('trading state changed', { bot: e.bot, from: e.from, to: e.to, reason: e.reason });
        break;
    }
  };
}
