// A starting point for your own strategy: `tradebot new strategy <your-name>` copies it to
// strategies/<your-name>.ts (kebab-case) with `name` set to match, or copy it by hand and rename. It runs as
// is: it buys when the close rises above an EMA and sells the whole position when it falls back below.
// Everything comes from 'tradebot', so the file works in any folder, with no node_modules of its own.
//
// Rules of the contract (docs/strategies.md has the whole story):
// - Every parameter has a default and a .describe(); money is a decimal STRING in config (decimalParam)
//   and a Decimal in the strategy. Users override parameters in the bot config; unknown or invalid ones
//   are refused before the bot starts.
// - onCandle runs for every CLOSED candle of every symbol of the bot, in time order. It is the hot path
//   (a backtest pushes millions of candles a second through it): only float arithmetic and indicator
//   updates here, no Decimal, no logging, no allocation per candle. Build Decimals only when emitting.
// - Emit intents with buyMarket / sellMarket / limit. Sell only what you hold:
//   ctx.portfolio.position(symbol).quantity. The risk gate checks and rounds every intent afterwards.
// - Keep per-run state in init() (not at module level: two bots may run this file at once), and what must
//   survive a restart in ctx.state (JSON, written on changes only).
import { EMA, buyMarket, decimalParam, defineStrategy, sellMarket, z } from 'tradebot';

// The parameters: each with a default and a description (shown by `--help` and in error messages).
const params = z.object({
  period: z.number().int().min(2).max(1000).default(20).describe('EMA period, in candles'),
  quoteAmount: decimalParam('50', 'quote coin spent per entry, a decimal string such as "50"'),
});

interface PerSymbol {
  readonly ema: EMA;
  /** Whether the last close was above the EMA; undefined until the EMA is stable. */
  above: boolean | undefined;
}

export default defineStrategy({
  name: 'template',
  description:
    'Template strategy: buys when the close crosses above its EMA and sells the position when it crosses below.',
  params,
  // Candle intervals this strategy makes sense on; the bot config picks one of them.
  intervals: ['1m', '5m', '15m', '1H'],
  // The warm-up: candles the strategy must see before its signals may trade; a live bot backfills that many
  // before it trades, and a backtest sends no intent before them. The EMA answers from `period` closes, but it
  // is seeded from its first close and remembers that seed for a while: every indicator of 'tradebot' says how
  // many inputs it needs before its value depends on the start of the data by at most 0.1% (`samplesNeeded`:
  // 71 for an EMA of 20). Left out, the warm-up is derived from the largest parameter named ...period, ...slow
  // or ...length (here 20, and the backtest would warn that it is too short).
  startupCandles: (p) => new EMA(p.period).samplesNeeded,

  // Per-run state: one indicator per symbol.
  init: (ctx) =>
    new Map<string, PerSymbol>(
      ctx.symbols.map((s) => [s, { ema: new EMA(ctx.params.period), above: undefined }]),
    ),

  onCandle(candle, ctx, emit, bySymbol) {
    const st = bySymbol.get(candle.symbol);
    if (st === undefined) return; // not one of the bot's symbols
    const ema = st.ema.update(candle.close);
    // Still warming up: every indicator of 'tradebot' is null until stable, and this one has not yet had the
    // inputs it needs to forget its seed (the same count as the warm-up above, so a run without one agrees).
    if (ema === null || st.ema.samples < st.ema.samplesNeeded) return;
    const above = candle.close > ema;
    const was = st.above;
    st.above = above;
    if (was === undefined || was === above) return; // no cross: the common case, keep it cheap

    // A cross: now it is fine to touch Decimals and the portfolio.
    const held = ctx.portfolio.position(candle.symbol).quantity;
    if (above && !held.gt(0)) {
      emit(
        buyMarket(
          candle.symbol,
          ctx.params.quoteAmount,
          'entry',
          `close crossed above EMA${ctx.params.period}`,
          ctx.category,
        ),
      );
    } else if (!above && held.gt(0)) {
      emit(
        sellMarket(candle.symbol, held, 'exit', `close crossed below EMA${ctx.params.period}`, ctx.category),
      );
    }
  },

  // Optional hooks:
  // onSession(session, ctx, emit, state) { ... }   // on each US session change (regular, after_hours ...)
  // onTicker(ticker, ctx, emit, state) { ... }     // when the bot polls tickers
});
