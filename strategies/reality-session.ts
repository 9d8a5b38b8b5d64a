// Opening-range breakout for Reality stock tokens, inside the US REGULAR session only: it records the high
// and low of the first `rangeMinutes` after 09:30 ET, buys once per day when a candle closes above that
// high, exits when a candle closes below the low, and is FLAT before the close: it sells everything
// `flattenMinutes` before 16:00 ET (13:00 on an early-close day) and never enters after that. Times come from the candle timestamps in
// Eastern Time (DST from the tz database), computed once per ET day, so the hot path stays arithmetic.
import {
  INTERVAL_MS,
  buyMarket,
  decimalParam,
  defineStrategy,
  etParts,
  etToUtc,
  sellMarket,
  usRegularSession,
  z,
  type StrategyContext,
} from 'tradebot';

const MINUTE = 60_000;

/** The regular session of one ET date, as unix ms. */
interface EtDay {
  readonly date: string;
  readonly start: number;
  readonly end: number;
  readonly trading: boolean;
  readonly open: number;
  readonly rangeEnd: number;
  /** No entries from here on; the flattening sell happens in [flatAt, close). */
  readonly flatAt: number;
  readonly close: number;
}

interface SymbolDay {
  day: string;
  high: number;
  low: number;
  /** A candle of the opening range was seen (without it there is no breakout level: no entry today). */
  rangeSeen: boolean;
  rangeSaved: boolean;
  entered: boolean;
  exited: boolean;
  flattened: boolean;
  /** The first regular candle of the day checked for a leftover position. */
  openChecked: boolean;
}

/** What survives a restart, per symbol: the day's range and what was done (a type alias: JSON-assignable). */
type SavedDay = {
  day: string;
  high: number;
  low: number;
  entered: boolean;
  exited: boolean;
  flattened: boolean;
};
type Saved = Record<string, SavedDay>;

interface RunState {
  readonly symbols: Map<string, SymbolDay>;
  day: EtDay | undefined;
  checkedInterval: boolean;
}

const params = z
  .object({
    rangeMinutes: z
      .number()
      .int()
      .min(1)
      .max(180)
      .default(15)
      .describe('length of the opening range after 09:30 ET, in minutes'),
    flattenMinutes: z
      .number()
      .int()
      .min(1)
      .max(120)
      .default(10)
      .describe(
        'minutes before 16:00 ET at which everything is sold and entries stop; at least the candle interval',
      ),
    quoteAmount: decimalParam(
      '100',
      'quote coin spent on the daily breakout entry, a decimal string such as "100"',
    ),
    stopAtRangeLow: z
      .boolean()
      .default(true)
      .describe('sell when a candle closes below the opening-range low'),
  })
  .refine((p) => p.rangeMinutes + p.flattenMinutes < 390, {
    path: ['flattenMinutes'],
    error: 'rangeMinutes + flattenMinutes must leave part of the 390-minute regular session for entries',
  });

type Params = z.output<typeof params>;

function nextDate(date: string): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
}

function etDay(t: number, p: Params): EtDay {
  const date = etParts(t).date;
  // The calendar's regular session: 09:30 to 16:00 ET, or to 13:00 on an early-close day.
  const regular = usRegularSession(date);
  const open = regular?.open ?? etToUtc(date, 9, 30);
  const close = regular?.close ?? etToUtc(date, 16, 0);
  return {
    date,
    start: etToUtc(date, 0, 0),
    end: etToUtc(nextDate(date), 0, 0),
    trading: regular !== undefined,
    open,
    rangeEnd: open + p.rangeMinutes * MINUTE,
    flatAt: close - p.flattenMinutes * MINUTE,
    close,
  };
}

function save(ctx: StrategyContext<Params>, symbol: string, s: SymbolDay): void {
  const saved = ctx.state.get<Saved>() ?? {};
  saved[symbol] = {
    day: s.day,
    high: s.high,
    low: s.low,
    entered: s.entered,
    exited: s.exited,
    flattened: s.flattened,
  };
  ctx.state.set(saved);
}

function freshDay(day: string): SymbolDay {
  return {
    day,
    high: -Infinity,
    low: Infinity,
    rangeSeen: false,
    rangeSaved: false,
    entered: false,
    exited: false,
    flattened: false,
    openChecked: false,
  };
}

export default defineStrategy({
  name: 'reality-session',
  description:
    'Opening-range breakout for Reality stock tokens in the US regular session: one entry a day above the range high, exit below the range low, flat before 16:00 ET.',
  params,
  intervals: ['1m', '5m', '15m'],
  init(ctx): RunState {
    const symbols = new Map<string, SymbolDay>();
    // Resume today's range and decisions after a restart; stale days are reset on the first candle.
    const saved = ctx.state.get<Saved>() ?? {};
    for (const [symbol, s] of Object.entries(saved)) {
      symbols.set(symbol, {
        ...freshDay(s.day),
        high: s.high,
        low: s.low,
        rangeSeen: true,
        rangeSaved: true,
        entered: s.entered,
        exited: s.exited,
        flattened: s.flattened,
        openChecked: true,
      });
    }
    return { symbols, day: undefined, checkedInterval: false };
  },
  onCandle(candle, ctx, emit, run) {
    const p = ctx.params;
    const ms = INTERVAL_MS[candle.interval];
    if (!run.checkedInterval) {
      run.checkedInterval = true;
      if (ms > p.flattenMinutes * MINUTE) {
        // With a longer candle no candle would close inside the flatten window: the position would be
        // carried through the close. Refuse to run rather than break the promise.
        throw new RangeError(
          `flattenMinutes ${p.flattenMinutes} is shorter than the ${candle.interval} candle interval: set flattenMinutes >= ${ms / MINUTE} or use a shorter interval`,
        );
      }
    }
    const t = candle.openTime;
    let day = run.day;
    if (day === undefined || t < day.start || t >= day.end) {
      day = etDay(t, p);
      run.day = day;
    }
    if (!day.trading) return;
    const closeTime = t + ms;
    // Only candles wholly inside the regular session, emitting strictly before 16:00 ET.
    if (t < day.open || closeTime >= day.close) return;

    let s = run.symbols.get(candle.symbol);
    if (s === undefined || s.day !== day.date) {
      s = freshDay(day.date);
      run.symbols.set(candle.symbol, s);
    }
    const sym = candle.symbol;

    if (!s.openChecked) {
      s.openChecked = true;
      // A position left from a missed flatten (outage at the close) is sold at the first regular candle.
      const left = ctx.portfolio.position(sym).quantity;
      if (left.gt(0)) {
        ctx.logger.warn('reality-session found a position at the open', {
          symbol: sym,
          quantity: left.toFixed(),
        });
        emit(
          sellMarket(
            sym,
            left,
            'carry-over',
            'position left from a previous session: staying flat overnight',
            ctx.category,
          ),
        );
      }
    }

    if (t < day.rangeEnd) {
      if (candle.high > s.high) s.high = candle.high;
      if (candle.low < s.low) s.low = candle.low;
      s.rangeSeen = true;
      return;
    }
    if (!s.rangeSeen) return; // started after the range: no level to break today
    if (!s.rangeSaved) {
      s.rangeSaved = true;
      save(ctx, sym, s);
    }

    if (closeTime >= day.flatAt) {
      if (s.flattened) return;
      const held = ctx.portfolio.position(sym).quantity;
      if (held.gt(0)) {
        s.flattened = true;
        save(ctx, sym, s);
        emit(
          sellMarket(
            sym,
            held,
            'flatten',
            `flat ${p.flattenMinutes} minutes before the 16:00 ET close`,
            ctx.category,
          ),
        );
      }
      return;
    }

    if (s.entered) {
      if (!s.exited && p.stopAtRangeLow && candle.close < s.low) {
        const held = ctx.portfolio.position(sym).quantity;
        if (held.gt(0)) {
          s.exited = true;
          save(ctx, sym, s);
          emit(
            sellMarket(
              sym,
              held,
              'range-stop',
              `closed at ${candle.close} under the opening-range low ${s.low}`,
              ctx.category,
            ),
          );
        }
      }
      return;
    }

    if (candle.close > s.high) {
      // The venue's own session state has the last word (e.g. a halt or a calendar the built-in lacks).
      const venue = ctx.session();
      if (venue !== undefined && venue.session !== 'regular') return;
      if (ctx.portfolio.position(sym).quantity.gt(0)) return;
      s.entered = true;
      save(ctx, sym, s);
      emit(
        buyMarket(
          sym,
          p.quoteAmount,
          'breakout',
          `closed at ${candle.close} above the opening-range high ${s.high}`,
          ctx.category,
        ),
      );
    }
  },
});
