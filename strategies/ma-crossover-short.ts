// The short side of a moving average crossover, for MARGIN bots (docs/margin.md): sells `quantity` short
// when the fast SMA crosses below the slow one (death cross) and buys it back when it crosses above
// (golden cross), with a limit `coverSlack` above the close so the cover takes the ask at once.
import {
  CANDLE_INTERVALS,
  RollingSMA as SMA,
  buyToCover,
  decimalParam,
  defineStrategy,
  sellShort,
  toDecimal,
  z,
} from 'tradebot';

const params = z
  .object({
    fast: z.number().int().min(1).max(999).default(12).describe('fast SMA period, in candles'),
    slow: z.number().int().min(2).max(1000).default(26).describe('slow SMA period, in candles; above fast'),
    quantity: decimalParam('1', 'base coin sold short at each death cross, a decimal string such as "1"'),
    coverSlack: z
      .number()
      .min(0)
      .max(0.05)
      .default(0.01)
      .describe("the cover's limit above the close (0.01: 1%), within the pair's buyLimitPriceRatio"),
  })
  .refine((p) => p.fast < p.slow, { path: ['slow'], error: 'slow must be above fast' });

interface SymbolState {
  readonly fast: SMA;
  readonly slow: SMA;
  above: boolean | undefined;
}

export default defineStrategy({
  name: 'ma-crossover-short',
  description:
    'Shorts quantity on a death cross of a fast/slow SMA and covers it on the golden cross (a MARGIN bot).',
  params,
  intervals: CANDLE_INTERVALS,
  startupCandles: (p) => p.slow,
  init(ctx) {
    const bySymbol = new Map<string, SymbolState>();
    for (const s of ctx.symbols)
      bySymbol.set(s, { fast: new SMA(ctx.params.fast), slow: new SMA(ctx.params.slow), above: undefined });
    return bySymbol;
  },
  onCandle(candle, ctx, emit, bySymbol) {
    const st = bySymbol.get(candle.symbol);
    if (st === undefined) return;
    const fast = st.fast.update(candle.close, false);
    const slow = st.slow.update(candle.close, false);
    if (fast === null || slow === null) return;
    const above = fast > slow;
    const was = st.above;
    st.above = above;
    if (was === undefined || was === above) return;
    const held = ctx.portfolio.position(candle.symbol).quantity;
    if (!above && !held.isNegative())
      emit(sellShort(candle.symbol, ctx.params.quantity, 'short', 'fast SMA crossed below slow'));
    else if (above && held.isNegative()) {
      const dp = ctx.rules(candle.symbol)?.pricePrecision ?? 2;
      const price = toDecimal(candle.close * (1 + ctx.params.coverSlack), dp);
      emit(buyToCover(candle.symbol, held.abs(), price, 'cover', 'fast SMA crossed above slow'));
    }
  },
});
