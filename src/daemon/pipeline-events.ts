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
        logDenial(logger, e);
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
          ...(e.fill.liquidation === true ? { liquidation: true } : {}),
        });
        if (e.fill.liquidation === true) {
          metrics.liquidations.inc({ bot: e.bot, symbol: e.fill.symbol });
          logger.warn('liquidated', {
            bot: e.bot,
            what: `the venue liquidated the bot's ${e.fill.side === 'buy' ? 'short' : 'long'}: ${describeFill(e.fill)}`,
            symbol: e.fill.symbol,
            side: e.fill.side,
            price: e.fill.price.toFixed(),
            size: e.fill.size.toFixed(),
            venueTime: new Date(e.fill.ts).toISOString(),
          });
        }
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

/**
 * A denial at info. A signal decided too late to trade (a gap, a restart after a long stop, a busy daemon) is a
 * trade the backtest of the same candles makes and this run does not: said with how late it came.
 */
function logDenial(logger: Logger, e: Extract<Parameters<TraderListener>[0], { type: 'denied' }>): void {
  if (e.code === 'STALE_SIGNAL')
    logger.info('stale signal not traded', {
      bot: e.bot,
      what: `denied ${e.intent.side} of ${e.intent.symbol} (STALE_SIGNAL): ${e.message}`,
      symbol: e.intent.symbol,
      code: e.code,
      ...staleness(e.ts, e.signalTime),
    });
  else
    logger.info('intent denied', {
      bot: e.bot,
      what: `denied ${e.intent.side} of ${e.intent.symbol} (${e.code}): ${e.message}`,
      symbol: e.intent.symbol,
      code: e.code,
      reason: e.message,
    });
}

/** A stale signal's lateness: from the candle's close (`signalTime`) to its judgement, and the candle's close. */
function staleness(ts: number, signalTime: number | undefined): Record<string, unknown> {
  if (signalTime === undefined || signalTime <= 0) return {};
  return { lateMs: ts - signalTime, candleClose: new Date(signalTime).toISOString() };
}
