// Simple moving average crossover: buys a fixed quote amount when the fast SMA crosses above the slow one
// (golden cross) and sells the whole position when it crosses back below (death cross). An entry the
// gate refuses for its size (MAX_NOTIONAL_ORDER, INSUFFICIENT_CASH, HELD_BY_ORDERS) is tried again at the
// next candle with half the amount while the fast SMA stays above, up to `retries` times, each logged.
import {
  CANDLE_INTERVALS,
  RollingSMA as SMA,
  buyMarket,
  decimalParam,
  defineStrategy,
  sellMarket,
  z,
  type Decimal,
} from 'tradebot';

interface SymbolState {
  readonly fast: SMA;
  readonly slow: SMA;
  /** Whether fast > slow at the last candle where both were ready; undefined before that. */
  above: boolean | undefined;
  /** Tries left for the entry of the current cross. */
  triesLeft: number;
  /** Set by a size denial: the amount to try at the next candle. */
  retry: Decimal | undefined;
}

/** Denials that a smaller entry may pass. */
const SIZE_DENIALS: ReadonlySet<string> = new Set([
  'MAX_NOTIONAL_ORDER',
  'INSUFFICIENT_CASH',
  'HELD_BY_ORDERS',
]);

const params = z
  .object({
    fast: z.number().int().min(1).max(999).default(12).describe('fast SMA period, in candles'),
    slow: z
      .number()
      .int()
      .min(2)
      .max(1000)
      .default(26)
      .describe('slow SMA period, in candles; must be above fast'),
    quoteAmount: decimalParam(
      '100',
      'quote coin spent on each golden-cross entry, a decimal string such as "100"',
    ),
    retries: z
      .number()
      .int()
      .min(0)
      .default(3)
      .describe(
        'tries with half the amount after an entry the gate refused for its size (0: give up at once)',
      ),
  })
  .refine((p) => p.fast < p.slow, { path: ['slow'], error: 'slow must be above fast' });

const fresh = (fast: number, slow: number, retries: number): SymbolState => ({
  fast: new SMA(fast),
  slow: new SMA(slow),
  above: undefined,
  triesLeft: retries,
  retry: undefined,
});

export default defineStrategy({
  name: 'ma-crossover',
  description:
    'Fast/slow simple moving average crossover: buys quoteAmount on a golden cross, sells the whole position on a death cross.',
  params,
  intervals: CANDLE_INTERVALS,
  // Both averages are null until the slow one has seen `slow` closes.
  startupCandles: (p) => p.slow,
  // What `tradebot hyperopt` searches by default (override with --space): the two periods and the stop-loss.
  searchSpace: { fast: 'int(5,50)', slow: 'int(20,200)', 'exits.stopLoss': 'real(0.02,0.2)' },
  init(ctx) {
    const bySymbol = new Map<string, SymbolState>();
    for (const s of ctx.symbols) bySymbol.set(s, fresh(ctx.params.fast, ctx.params.slow, ctx.params.retries));
    return bySymbol;
  },
  onCandle(candle, ctx, emit, bySymbol) {
    let st = bySymbol.get(candle.symbol);
    if (st === undefined) {
      st = fresh(ctx.params.fast, ctx.params.slow, ctx.params.retries);
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
    const retry = st.retry;
    st.retry = undefined;
    // A denied entry is tried again while the cross holds (the next signal the strategy has).
    if (
      retry !== undefined &&
      above &&
      was === true &&
      ctx.portfolio.position(candle.symbol).quantity.isZero()
    ) {
      ctx.logger.info('entry retried', { symbol: candle.symbol, quoteAmount: retry.toFixed() });
      emit(
        buyMarket(
          candle.symbol,
          retry,
          'golden-cross',
          `retry after a denial: SMA${ctx.params.fast} still above SMA${ctx.params.slow}`,
          ctx.category,
        ),
      );
      return;
    }
    // A cross needs a known previous side: the first ready candle only sets it.
    if (was === undefined || was === above) return;
    const held = ctx.portfolio.position(candle.symbol).quantity;
    if (above) {
      if (held.gt(0)) return; // already in: a golden cross does not pyramid
      st.triesLeft = ctx.params.retries;
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
  onDenied(d, ctx, _emit, bySymbol) {
    const st = bySymbol.get(d.intent.symbol);
    if (st === undefined || d.intent.tag !== 'golden-cross' || !('quoteAmount' in d.intent)) return;
    // A signal from the warm-up replay (or after a gap) is not traded by design: the daemon tells that once.
    if (d.code === 'STALE_SIGNAL') return;
    if (!SIZE_DENIALS.has(d.code) || st.triesLeft <= 0) {
      ctx.logger.warn('entry denied, waiting for the next cross', {
        symbol: d.intent.symbol,
        code: d.code,
        reason: d.message,
      });
      return;
    }
    st.triesLeft--;
    st.retry = d.intent.quoteAmount.div(2);
    ctx.logger.warn('entry denied, retrying at the next candle with half the amount', {
      symbol: d.intent.symbol,
      code: d.code,
      reason: d.message,
      triesLeft: st.triesLeft,
    });
  },
});
