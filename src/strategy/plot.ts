// ctx.plot: a strategy's own series (an average, a band, an oscillator) recorded per symbol and candle, for
// the backtest report's charts. The checks of a call live here, one place for the backtester and the live bot.
import { dec, toWire, type Decimal } from '../market/decimal.js';

/** Where the report draws a series: over the price (`price`, for averages and bands) or in a panel of its own. */
export type PlotPane = 'price' | 'own';

/** How a series is drawn; the first call of a name decides it for the run. */
export interface PlotOptions {
  /** `price` overlays the candles (an average, a band); `own` (the default) draws it in a panel below. */
  readonly pane?: PlotPane | undefined;
}

/**
 * A value of a series: a Decimal, a decimal string, or null for "no value on this candle" (a gap, e.g.
 * while an indicator warms up).
 */
export type PlotValue = Decimal | string | null;

/** The part of the strategy context that records series (StrategyContext extends it). */
export interface StrategyPlot {
  /**
   * Records a value of the series `name` on the candle being decided, of its symbol: the backtest keeps
   * it in result.json and the report draws it (over the price with `{ pane: 'price' }`, else in a panel
   * below). A live bot checks the call and drops it. Throws a PlotError on a bad name, value or pane.
   *
   * @example ctx.plot('ema', ema === null ? null : toDecimal(ema), { pane: 'price' })
   */
  plot(name: string, value: PlotValue, options?: PlotOptions): void;
}

/** A checked call: the value as a decimal string (null for a gap) and the pane. */
export interface PlotPoint {
  readonly name: string;
  readonly value: string | null;
  readonly pane: PlotPane;
}

/** Thrown by ctx.plot on a call it cannot record: the message names the argument and the fix. */
export class PlotError extends TypeError {
  override readonly name = 'PlotError';
}

/** Series a backtest keeps per symbol: each is a line of the report, and a point per chart bar in result.json. */
export const MAX_PLOT_SERIES = 64;
/** A plotted value's bounds: as written, and its significant digits and exponent (the Decimal precision). */
const MAX_VALUE_CHARS = 100;
const MAX_VALUE_DIGITS = 40;

/** Letters, digits, spaces and `_ . : ( ) % / -`, up to 48 characters: a legend label, e.g. "ema(200)". */
const PLOT_NAME = /^[A-Za-z0-9][A-Za-z0-9 _.:()%/-]{0,47}$/;

/**
 * Checks a ctx.plot call and answers it as a point, or throws a PlotError.
 *
 * @example checkPlot('ema', toDecimal(ema), { pane: 'price' }) // -> { name: 'ema', value: '101.5', pane: 'price' }
 */
export function checkPlot(name: unknown, value: unknown, options?: unknown): PlotPoint {
  if (typeof name !== 'string' || !PLOT_NAME.test(name))
    throw new PlotError(
      `ctx.plot: the name must be 1 to 48 letters, digits, spaces or _ . : ( ) % / - starting with a letter or digit, such as "ema(200)", got ${JSON.stringify(name) ?? typeof name}`,
    );
  const pane = paneOf(name, options);
  if (value === null) return { name, value: null, pane };
  if (typeof value === 'number')
    throw new PlotError(
      `ctx.plot("${name}"): the value must be a Decimal, a decimal string or null, got the JS number ${String(value)}: pass toDecimal(x) (null while the indicator has no value)`,
    );
  if (typeof value === 'string' && value.length > MAX_VALUE_CHARS)
    throw new PlotError(
      `ctx.plot("${name}"): the value is ${value.length} characters long (at most ${MAX_VALUE_CHARS}): plot a rounded Decimal, e.g. toDecimal(x).toDecimalPlaces(8)`,
    );
  let d: Decimal;
  try {
    d = dec(value as string | Decimal, `ctx.plot("${name}") value`);
  } catch (e) {
    throw new PlotError(`${(e as Error).message}, a Decimal or null`);
  }
  if (!d.isFinite())
    throw new PlotError(`ctx.plot("${name}"): the value must be finite, got ${d.toString()}`);
  if (d.sd() > MAX_VALUE_DIGITS || Math.abs(d.e) > MAX_VALUE_DIGITS)
    throw new PlotError(
      `ctx.plot("${name}"): the value ${d.toExponential(6)} has ${d.sd()} significant digits and exponent ${d.e} (at most ${MAX_VALUE_DIGITS} of each): plot a rounded Decimal, e.g. toDecimal(x).toDecimalPlaces(8)`,
    );
  return { name, value: toWire(d), pane };
}

/** A series plotted in one pane and then in another: the first call decides, so the second is a mistake. */
export function plotPaneMoved(p: PlotPoint, first: PlotPane): PlotError {
  return new PlotError(
    `ctx.plot("${p.name}"): the series is drawn ${first === 'price' ? 'over the price' : 'in its own panel'} (its first call said so), this call says ${p.pane === 'price' ? "{ pane: 'price' }" : 'its own panel'}: give every call of a name the same pane, or plot the other under another name`,
  );
}

function paneOf(name: string, options: unknown): PlotPane {
  if (options === undefined) return 'own';
  if (typeof options !== 'object' || options === null)
    throw new PlotError(
      `ctx.plot("${name}"): the options must be an object such as { pane: 'price' }, got ${JSON.stringify(options) ?? typeof options}`,
    );
  const { pane } = options as PlotOptions;
  if (pane === undefined || pane === 'own' || pane === 'price') return pane ?? 'own';
  throw new PlotError(
    `ctx.plot("${name}"): options.pane must be "price" (over the candles) or "own" (a panel below), got ${JSON.stringify(pane) ?? typeof pane}`,
  );
}
