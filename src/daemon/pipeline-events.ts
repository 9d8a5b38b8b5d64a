// The daemon's subscriber of the trading pipeline's events: log lines and Prometheus metrics. It is one
// listener per bot; the pipeline knows nothing of logs or metrics.
import type { TraderListener } from '../execution/trader.js';
import type { Logger } from './logger.js';
import type { DaemonMetrics } from './metrics.js';

export function pipelineEvents(logger: Logger, metrics: DaemonMetrics): TraderListener {
  return (e) => {
    switch (e.type) {
      case 'intent':
        metrics.intents.inc({ bot: e.bot });
        break;
      case 'denied':
        metrics.denials.inc({ bot: e.bot, code: e.code });
        logger.info('intent denied', {
          bot: e.bot,
          symbol: e.intent.symbol,
          code: e.code,
          reason: e.message,
        });
        break;
      case 'order':
        metrics.orders.inc({ bot: e.bot, status: e.outcome.status });
        metrics.tickToOrder.observe({ bot: e.bot }, e.signalToAnswerMs / 1000);
        break;
      case 'fill':
        metrics.fills.inc({ bot: e.bot, source: e.fill.estimated === true ? 'estimated' : 'venue' });
        logger.info('fill', {
          bot: e.bot,
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
