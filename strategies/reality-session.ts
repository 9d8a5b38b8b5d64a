// Opening-range breakout for Reality stock tokens, in the US regular session only: it records the high
// and low of the first `rangeMinutes` of the session, buys once a day when a candle closes above that
// high, sells when one closes below the low, and takes no entry in the last `noEntryMinutes`. Being flat
// at the close is the pipeline's built-in session-end exit (`exits: { sessionEnd: ['regular'] }`: out before
// the after-hours session whatever sessions the deployment allows), so the
// strategy holds no session arithmetic: the venue's session (ctx.session()) says when the day opens and ends.
import { buyMarket, decimalParam, defineStrategy, sellMarket, usRegularSession, z } from 'tradebot';

const MINUTE = 60_000;

/** Today's range and decisions of a symbol; saved in the strategy state so a restart resumes the day. */
type Day = { date: string; high: number; low: number; entered: boolean; exited: boolean };

export default defineStrategy({
  name: 'reality-session',
  description:
    'Opening-range breakout for Reality stock tokens in the US regular session: one entry a day above the range high, exit below the range low, flat at the close (built-in session-end exit).',
  params: z.object({
    rangeMinutes: z
      .number()
      .int()
      .min(1)
      .max(180)
      .default(15)
      .describe('length of the opening range, in minutes'),
    noEntryMinutes: z
      .number()
      .int()
      .min(1)
      .max(120)
      .default(10)
      .describe('no entry this close to the session end'),
    quoteAmount: decimalParam('100', 'quote coin spent on the daily breakout entry, such as "100"'),
    stopAtRangeLow: z
      .boolean()
      .default(true)
      .describe('sell when a candle closes below the opening-range low'),
  }),
  intervals: ['1m', '5m', '15m'],
  exits: { sessionEnd: ['regular'] },
  // No indicator to warm up: the day's range comes from the session's own candles (kept in ctx.state across
  // a restart). A bot started during the range backfills it: `rangeMinutes` candles reach back to the open
  // on 1m (further on 5m and 15m).
  startupCandles: (p) => p.rangeMinutes,
  init: (ctx) => ({ days: ctx.state.get<Record<string, Day>>() ?? {} }),
  onCandle(c, ctx, emit, st) {
    const s = ctx.session();
    if (s?.session !== 'regular') return;
    // The day's regular open (09:30 ET, from the venue's calendar) starts the opening range, also for a
    // bot started later in the day.
    const opensAt = usRegularSession(s.etDate)?.open;
    if (opensAt === undefined || c.openTime < opensAt) return;
    let d = st.days[c.symbol];
    if (d?.date !== s.etDate)
      d = st.days[c.symbol] = {
        date: s.etDate,
        high: -Infinity,
        low: Infinity,
        entered: false,
        exited: false,
      };
    const p = ctx.params;
    if (c.openTime < opensAt + p.rangeMinutes * MINUTE) {
      d.high = Math.max(d.high, c.high);
      d.low = Math.min(d.low, c.low);
      return ctx.state.set(st.days);
    }
    if (d.high === -Infinity) return; // started after the range: no level to break today
    const held = ctx.portfolio.position(c.symbol).quantity;
    if (d.entered && !d.exited && p.stopAtRangeLow && c.close < d.low && held.gt(0)) {
      d.exited = true;
      emit(sellMarket(c.symbol, held, 'range-stop', `closed at ${c.close} under the range low ${d.low}`));
    } else if (!d.entered && c.close > d.high && s.nextChange - ctx.clock.now() > p.noEntryMinutes * MINUTE) {
      d.entered = true;
      emit(
        buyMarket(c.symbol, p.quoteAmount, 'breakout', `closed at ${c.close} above the range high ${d.high}`),
      );
    } else return;
    ctx.state.set(st.days);
  },
});
