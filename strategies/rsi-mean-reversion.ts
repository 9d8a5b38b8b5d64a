// RSI mean reversion: buys a fixed quote amount when the RSI enters the oversold zone and sells the whole
// position when it enters the overbought zone. Acting on zone ENTRY (not on every candle inside a zone)
// keeps one signal from turning into a burst of orders while a fill is on its way. An entry needs a known
// previous zone: the first RSI reading after the warm-up only sets it (a bot started while the RSI is low
// did not see it enter the zone).
import { CANDLE_INTERVALS, RSI, buyMarket, decimalParam, defineStrategy, sellMarket, z } from 'tradebot';

const LOW = 0;
const MID = 1;
const HIGH = 2;

interface SymbolState {
  readonly rsi: RSI;
  /** Zone at the last ready candle (LOW, MID, HIGH), -1 before the RSI is ready. */
  zone: number;
}

const params = z
  .object({
    period: z.number().int().min(2).max(1000).default(14).describe('RSI period, in candles'),
    oversold: z
      .number()
      .gt(0)
      .lt(100)
      .default(30)
      .describe('RSI level under which the strategy buys (0-100)'),
    overbought: z
      .number()
      .gt(0)
      .lt(100)
      .default(70)
      .describe('RSI level above which the strategy sells (0-100); above oversold'),
    quoteAmount: decimalParam(
      '100',
      'quote coin spent on each oversold entry, a decimal string such as "100"',
    ),
  })
  .refine((p) => p.oversold < p.overbought, {
    path: ['overbought'],
    error: 'overbought must be above oversold',
  });

export default defineStrategy({
  name: 'rsi-mean-reversion',
  description:
    'RSI mean reversion: buys quoteAmount when the RSI falls below oversold, sells the whole position when it rises above overbought.',
  params,
  intervals: CANDLE_INTERVALS,
  // Wilder's RSI needs `period` price changes: it is null until it has seen period + 1 closes.
  startupCandles: (p) => p.period + 1,
  init: () => new Map<string, SymbolState>(),
  onCandle(candle, ctx, emit, bySymbol) {
    let st = bySymbol.get(candle.symbol);
    if (st === undefined) {
      st = { rsi: new RSI(ctx.params.period), zone: -1 };
      bySymbol.set(candle.symbol, st);
    }
    const r = st.rsi.update(candle.close, false);
    if (r === null) return;
    ctx.expose('rsi', r); // checked by `tradebot lookahead`
    const zone = r < ctx.params.oversold ? LOW : r > ctx.params.overbought ? HIGH : MID;
    const was = st.zone;
    if (zone === was) return;
    st.zone = zone;
    if (zone === MID || was === -1) return;
    const held = ctx.portfolio.position(candle.symbol).quantity;
    if (zone === LOW) {
      if (held.gt(0)) return; // one entry at a time
      emit(
        buyMarket(
          candle.symbol,
          ctx.params.quoteAmount,
          'oversold',
          `RSI${ctx.params.period} ${r.toFixed(2)} under ${ctx.params.oversold}`,
          ctx.category,
        ),
      );
    } else if (held.gt(0)) {
      emit(
        sellMarket(
          candle.symbol,
          held,
          'overbought',
          `RSI${ctx.params.period} ${r.toFixed(2)} above ${ctx.params.overbought}`,
          ctx.category,
        ),
      );
    }
  },
});
