// Bollinger mean reversion with a stop-loss, a take-profit and risk-based sizing: buys when a candle
// closes under the lower band (mean - stdDevs x standard deviation of the last `period` closes), sells
// when one closes back over the mean. The pipeline's exits close the trade at -3% (stop-loss) or +6%
// (take-profit) on any price in between; each entry is sized so that the stop loses `riskPerTrade` of
// the equity: value = equity x riskPerTrade / stopLoss (1% / 3% = a third of the equity), within free cash.
import {
  CANDLE_INTERVALS,
  Decimal,
  RollingSMA,
  buyMarket,
  decimalParam,
  defineStrategy,
  sellMarket,
  z,
} from 'tradebot';

const STOP_LOSS = '0.03';

export default defineStrategy({
  name: 'bollinger-reversion',
  description:
    'Bollinger mean reversion: buys a close under the lower band, sells a close over the mean; stop-loss 3%, take-profit 6%, sized to risk 1% of equity per trade.',
  params: z.object({
    period: z
      .number()
      .int()
      .min(2)
      .max(1000)
      .default(20)
      .describe('candles of the moving average and the deviation'),
    stdDevs: z.number().positive().default(2).describe('band width in standard deviations'),
    riskPerTrade: decimalParam('0.01', 'share of the equity lost if the stop-loss is hit, e.g. "0.01" (1%)'),
  }),
  intervals: CANDLE_INTERVALS,
  exits: { stopLoss: STOP_LOSS, takeProfit: '0.06' },
  protections: { cooldownAfterStop: 5 },
  // The mean and the deviation are null until `period` closes were seen.
  startupCandles: (p) => p.period,
  init: (ctx) => ({ mean: new RollingSMA(ctx.params.period), meanSq: new RollingSMA(ctx.params.period) }),
  onCandle(c, ctx, emit, st) {
    const mean = st.mean.update(c.close);
    const meanSq = st.meanSq.update(c.close * c.close);
    if (mean === null || meanSq === null) return;
    const lower = mean - ctx.params.stdDevs * Math.sqrt(Math.max(0, meanSq - mean * mean));
    const held = ctx.portfolio.position(c.symbol).quantity;
    if (held.gt(0)) {
      if (c.close > mean)
        emit(sellMarket(c.symbol, held, 'mean', `closed at ${c.close}, over the mean ${mean}`));
      return;
    }
    if (c.close >= lower || ctx.openOrders(c.symbol).length > 0) return;
    // Risk-based size: the stop-loss loses riskPerTrade of the equity; never more than the free cash.
    const value = ctx.portfolio.equity().mul(ctx.params.riskPerTrade).div(STOP_LOSS);
    const amount = Decimal.min(value, ctx.freeCash()).toDecimalPlaces(2, Decimal.ROUND_DOWN);
    if (amount.gt(0))
      emit(buyMarket(c.symbol, amount, 'lower-band', `closed at ${c.close}, under the band ${lower}`));
  },
  onDenied(d, ctx) {
    ctx.logger.warn('entry denied, waiting for the next signal', { code: d.code, reason: d.message });
  },
  onFill(f, ctx) {
    if (f.exitReason !== undefined)
      ctx.logger.info('position closed by an exit', {
        symbol: f.symbol,
        exit: f.exitReason,
        price: f.price.toFixed(),
      });
  },
});
