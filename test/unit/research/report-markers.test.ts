// The fill markers of the report's price chart: labelled with their reasons while they fit, arrows only past.
import { describe, expect, it } from 'vitest';
import { LABELLED_MARKERS, chartMarkers } from '../../../src/research/report.js';
import type { BacktestFill, ChartBar } from '../../../src/backtest/result.js';

const bars: ChartBar[] = Array.from({ length: 1000 }, (_, i) => ({
  time: i * 60_000,
  open: 1,
  high: 1,
  low: 1,
  close: 1,
}));
/** A fill on bar `bar`: the k-th fill of a run alternates buy (golden-cross) and sell (death-cross). */
const fill = (bar: number, k: number): BacktestFill =>
  ({
    ts: bar * 60_000,
    side: k % 2 === 0 ? 'buy' : 'sell',
    tag: k % 2 === 0 ? 'golden-cross' : 'death-cross',
  }) as BacktestFill;

describe('chart markers', () => {
  it('labels each marker of one fill with its reason while there are few', () => {
    const m = chartMarkers(
      bars,
      [0, 10, 20, 30].map((bar, k) => fill(bar, k)),
      (ms) => ms / 1000,
    );
    expect(m.map((x) => [x.shape, x.text])).toEqual([
      ['arrowUp', 'golden-cross'],
      ['arrowDown', 'death-cross'],
      ['arrowUp', 'golden-cross'],
      ['arrowDown', 'death-cross'],
    ]);
  });
  it('draws arrows only past LABELLED_MARKERS, whose labels would overprint each other', () => {
    const fills = Array.from({ length: LABELLED_MARKERS + 2 }, (_, k) => fill(k * 10, k));
    const m = chartMarkers(bars, fills, (ms) => ms / 1000);
    expect(m).toHaveLength(LABELLED_MARKERS + 2);
    expect(m.every((x) => x.text === '')).toBe(true);
  });
  it('shows the count of fills merged into one marker', () => {
    const m = chartMarkers(
      bars,
      [0, 2, 4].map((bar) => fill(bar, 0)),
      (ms) => ms / 1000,
      1,
    );
    expect(m).toEqual([expect.objectContaining({ shape: 'arrowUp', text: '3' })]);
  });
});
