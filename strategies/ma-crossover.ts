// Simple moving average crossover: buys a fixed quote amount when the fast SMA crosses above the slow one
// (golden cross) and sells the whole position when it crosses back below (death cross).
import {
  CANDLE_INTERVALS,
  RollingSMA as SMA,
  buyMarket,
  decimalParam,
  defineStrategy,
  sellMarket,
  z,
} from 'tradebot';

interface SymbolState {
  readonly fast: SMA;
  readonly slow: SMA;
  /** Whether fast > slow at the last candle where both were ready; undefined before that. */
  above: boolean | undefined;
}

const params = z
  .object({
    fast: z.number().int().min(1).default(12).describe('fast SMA period, in candles'),
    slow: z.number().int().min(2).default(26).describe('slow SMA period, in candles; must be above fast'),
    quoteAmount: decimalParam(
      '100',
      'quote coin spent on each golden-cross entry, a decimal string such as "100"',
    ),
  })
  .refine((p) => p.fast < p.slow, { path: ['slow'], error: 'slow must be above fast' });

export default defineStrategy({
  name: 'ma-crossover',
  description:
    'Fast/slow simple moving average crossover: buys quoteAmount on a golden cross, sells the whole position on a death cross.',
  params,
  intervals: CANDLE_INTERVALS,
  init(ctx) {
    const bySymbol = new Map<string, SymbolState>();
    for (const s of ctx.symbols) {
      bySymbol.set(s, { fast: new SMA(ctx.params.fast), slow: new SMA(ctx.params.slow), above: undefined });
    }
    return bySymbol;
  },
  onCandle(candle, ctx, emit, bySymbol) {
    let st = bySymbol.get(candle.symbol);
    if (st === undefined) {
      st = { fast: new SMA(ctx.params.fast), slow: new SMA(ctx.params.slow), above: undefined };
      bySymbol.set(candle.symbol, st);
    }
    const f = st.fast.update(candle.close, false);
    const s = st.slow.update(candle.close, false);
    if (f === null || s === null) return;
    // For `tradebot lookahead`: both averages must be the same whether or not later candles exist.
    ctx.expose('sma-fast', f);
    ctx.expose('sma-slow', s);
    const above = f > s;
    const was = st.above;
    st.above = above;
    // A cross needs a known previous side: the first ready candle only sets it.
    if (was === undefined || was === above) return;
    const held = ctx.portfolio.position(candle.symbol).quantity;
    if (above) {
      if (held.gt(0)) return; // already in: a golden cross does not pyramid
      emit(
        buyMarket(
          candle.symbol,
          ctx.params.quoteAmount,
          'golden-cross',
          `SMA${ctx.params.fast} crossed above SMA${ctx.params.slow}`,
          ctx.category,
        ),
      );
    } else if (held.gt(0)) {
      emit(
        sellMarket(
          candle.symbol,
          held,
          'death-cross',
          `SMA${ctx.params.fast} crossed below SMA${ctx.params.slow}`,
          ctx.category,
        ),
      );
    }
  },
});
