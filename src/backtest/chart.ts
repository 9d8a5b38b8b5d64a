// The price chart a run keeps for the HTML report: every candle added, at most a few thousand bars kept.
import { objects } from '../market/shapes.js';
import type { ChartBar } from './result.js';

const MAX_CHART_BARS = 3000;

/** Keeps at most MAX_CHART_BARS bars by doubling the bucket size whenever it is full. */
export class Downsampler {
  /** Objects from the start (see src/market/shapes.ts). */
  bars: { time: number; open: number; high: number; low: number; close: number }[] = objects();
  private per = 1;
  private n = 0;
  add(time: number, o: number, h: number, l: number, c: number): void {
    if (this.n++ % this.per !== 0) {
      // Same bucket: update the last bar in place (no allocation per candle).
      const last = this.bars[this.bars.length - 1] as ChartBar & { high: number; low: number; close: number };
      if (h > last.high) last.high = h;
      if (l < last.low) last.low = l;
      last.close = c;
      return;
    }
    this.bars.push({ time, open: o, high: h, low: l, close: c });
    if (this.bars.length >= MAX_CHART_BARS * 2) {
      // Pairs merged in place: the one array of the field in every run (a second array here made a second
      // run's code meet two kinds of array and throw its compiled code away).
      const bars = this.bars;
      let j = 0;
      for (let i = 0; i < bars.length; i += 2) {
        const a = bars[i] as ChartBar;
        const b = bars[i + 1] as ChartBar;
        bars[j++] = {
          time: a.time,
          open: a.open,
          high: Math.max(a.high, b.high),
          low: Math.min(a.low, b.low),
          close: b.close,
        };
      }
      bars.length = j;
      this.per *= 2;
    }
  }
}
