// The strategy's ctx.plot series in a backtest: per symbol and name, at most one point per chart bar (a later
// value on the same bar replaces the earlier), so a run of millions of candles keeps a few thousand points.
import type { Candle } from '../market/candle.js';
import { MAX_PLOT_SERIES, PlotError, type PlotPoint } from '../strategy/plot.js';
import type { Lane } from './lanes.js';
import type { ChartBar, PlotSeries } from './result.js';

interface Recording {
  readonly pane: PlotSeries['pane'];
  readonly time: number[];
  readonly value: (string | null)[];
}

/** Collects ctx.plot points during a run; `series` aligns them with the final chart bars. */
export class PlotRecorder {
  private readonly bySymbol = new Map<string, Map<string, Recording>>();

  /**
   * Records a point of `symbol` on the candle opening at `time`, whose chart bar opens at `bar` (the first
   * call of a name decides its pane).
   */
  record(symbol: string, time: number, bar: number, p: PlotPoint): void {
    let named = this.bySymbol.get(symbol);
    if (named === undefined) this.bySymbol.set(symbol, (named = new Map()));
    let r = named.get(p.name);
    if (r === undefined) {
      // Bounded before anything grows: each series is a line of the report and a point per bar of result.json.
      if (named.size >= MAX_PLOT_SERIES)
        throw new PlotError(
          `ctx.plot("${p.name}"): ${symbol} has ${MAX_PLOT_SERIES} series already (at most ${MAX_PLOT_SERIES} per symbol in a backtest): plot fewer names, e.g. one series per indicator rather than one per parameter value`,
        );
      named.set(p.name, (r = { pane: p.pane, time: [], value: [] }));
    }
    const last = r.time.length - 1;
    // Same chart bar as the point before (its bar time is at or after this one's): replace it.
    if (last >= 0 && (r.time[last] as number) >= bar) {
      r.time[last] = time;
      r.value[last] = p.value;
      return;
    }
    r.time.push(time);
    r.value.push(p.value);
  }

  /** The series by symbol and name on the chart's bars of each symbol, or undefined when nothing was plotted. */
  series(
    barsOf: (symbol: string) => readonly ChartBar[],
  ): Record<string, Record<string, PlotSeries>> | undefined {
    if (this.bySymbol.size === 0) return undefined;
    const out: Record<string, Record<string, PlotSeries>> = {};
    for (const [symbol, named] of this.bySymbol) {
      const bars = barsOf(symbol);
      const bySeries: Record<string, PlotSeries> = {};
      for (const [name, r] of named) bySeries[name] = onBars(r, bars);
      out[symbol] = bySeries;
    }
    return out;
  }
}

/** A recording on the bars: each point at the open time of its bar, the last point of a bar kept. */
function onBars(r: Recording, bars: readonly ChartBar[]): PlotSeries {
  const time: number[] = [];
  const value: (string | null)[] = [];
  let b = 0;
  for (let i = 0; i < r.time.length; i++) {
    const t = r.time[i] as number;
    while (b + 1 < bars.length && (bars[b + 1] as ChartBar).time <= t) b++;
    const at = bars.length === 0 ? t : (bars[b] as ChartBar).time;
    if (time.length > 0 && time[time.length - 1] === at)
      value[value.length - 1] = r.value[i] as string | null;
    else {
      time.push(at);
      value.push(r.value[i] as string | null);
    }
  }
  return { pane: r.pane, time, value };
}

/**
 * The sink of ctx.plot in a run: each point belongs to the candle being decided (`deciding`), on its lane's
 * last chart bar. Undefined (points checked, then dropped) when the run keeps no chart (a sweep's runs).
 */
export function plotSink(
  rec: PlotRecorder,
  lanes: readonly Lane[],
  deciding: () => Candle | undefined,
): (p: PlotPoint) => void {
  const lane = new Map(lanes.map((l) => [l.symbol, l]));
  return (p) => {
    const c = deciding();
    if (c === undefined) return;
    const bars = lane.get(c.symbol)?.chart.bars;
    const last = bars?.[bars.length - 1];
    rec.record(c.symbol, c.openTime, last?.time ?? c.openTime, p);
  };
}
