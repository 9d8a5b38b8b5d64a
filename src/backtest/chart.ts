// The price chart a run keeps for the HTML report: every candle added, at most a few thousand bars kept.
import type { ChartBar } from './result.js';

const MAX_CHART_BARS = 3000;

/** Keeps at most MAX_CHART_BARS bars by doubling the bucket size whenever it is full. */
export class Downsampler {
  bars: { time: number; open: number; high: number; low: number; close: number }[] = [];
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
      const merged: typeof this.bars = [];
      for (let i = 0; i < this.bars.length; i += 2) {
        const a = this.bars[i] as ChartBar;
        const b = this.bars[i + 1] as ChartBar;
        merged.push({
          time: a.time,
          open: a.open,
          high: Math.max(a.high, b.high),
          low: Math.min(a.low, b.low),
          close: b.close,
        });
      }
      this.bars = merged;
      this.per *= 2;
    }
  }
}
