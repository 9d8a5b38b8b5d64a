// The soak's strategy: trades on every closed candle (a market buy when flat, a sell of the whole position
// otherwise), so a kill at a random moment finds an order in flight as often as possible.
import { z } from 'zod';
import { CANDLE_INTERVALS } from '../src/api/index.js';
import { buyMarket, decimalParam, defineStrategy, sellMarket } from '../src/strategy/index.js';

export default defineStrategy({
  name: 'soak-strategy',
  description:
    'Buys when flat and sells the whole position otherwise, on every closed candle (for the soak).',
  params: z.object({ quoteAmount: decimalParam('200', 'quote coin spent per buy') }),
  intervals: CANDLE_INTERVALS,
  init: () => undefined,
  onCandle(candle, ctx, emit) {
    const held = ctx.portfolio.position(candle.symbol).quantity;
    if (held.gt(0)) emit(sellMarket(candle.symbol, held, 'soak-out', 'every candle', ctx.category));
    else emit(buyMarket(candle.symbol, ctx.params.quoteAmount, 'soak-in', 'every candle', ctx.category));
  },
});
