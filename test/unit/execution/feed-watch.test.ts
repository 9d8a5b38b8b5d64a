// Silence is an alarm: each feed of a bot has an age, and one older than its limit makes the bot DEGRADED with
// a sentence that says which feed, how old, the limit and what it means; a closed market's silence is no alarm.
import { describe, expect, it } from 'vitest';
import { FeedWatch, feedLimits } from '../../../src/execution/feed-watch.js';

const MIN = 60_000;
const start = Date.UTC(2026, 10, 23, 15); // Monday 10:00 ET
const limits = feedLimits({ intervalMs: MIN, maxDataAgeMs: 15_000, fillsPollMs: 2_000 });

/** A watch whose feeds all brought something at `at`. */
function fresh(at: number): FeedWatch {
  const w = new FeedWatch(limits, start);
  w.saw('candles', at);
  w.saw('tickers', at);
  w.saw('fills', at);
  return w;
}

describe('feed limits', () => {
  it('follow the interval, the gate’s data age and the fill poll', () => {
    expect(limits).toEqual({ candles: 2 * MIN, tickers: 15_000, fills: MIN });
    expect(feedLimits({ intervalMs: 5 * MIN, maxDataAgeMs: 30_000, fillsPollMs: 20_000 })).toEqual({
      candles: 10 * MIN,
      tickers: 30_000,
      fills: 200_000,
    });
    // A short interval still gets half a minute beyond its next candle.
    expect(feedLimits({ intervalMs: 1000, maxDataAgeMs: 100, fillsPollMs: 200 }).candles).toBe(31_000);
  });
});

describe('FeedWatch', () => {
  it('is OK while every feed is within its limit', () => {
    const w = fresh(start + MIN);
    expect(w.health(start + MIN + 10_000)).toMatchObject({
      state: 'OK',
      ages: { candles: 10_000, tickers: 10_000, fills: 10_000 },
      problems: [],
    });
  });

  it('is DEGRADED when candles stop, with the age, the limit and what it means', () => {
    const w = fresh(start + MIN);
    w.saw('tickers', start + 4 * MIN);
    w.saw('fills', start + 4 * MIN);
    const h = w.health(start + 4 * MIN + 5_000);
    expect(h.state).toBe('DEGRADED');
    expect(h.problems).toEqual([
      'no new candle for 3 min 5 s (limit 2 min): the strategy decides on nothing new',
    ]);
  });

  it('is DEGRADED when prices go stale past the gate’s limit, and when the fill sync stops', () => {
    const w = fresh(start);
    w.saw('candles', start + MIN);
    const h = w.health(start + MIN + 1);
    expect(h.state).toBe('DEGRADED');
    expect(h.problems).toEqual([
      'no fresh price for 1 min (limit 15 s): the gate refuses orders on stale prices (STALE_DATA)',
      'no fill sync for 1 min (limit 1 min): fills and positions may be behind the venue',
    ]);
  });

  it('counts a feed that never brought anything from the bot’s start', () => {
    const w = new FeedWatch(limits, start);
    expect(w.health(start + 10_000).state).toBe('OK');
    expect(w.health(start + 3 * MIN).problems).toHaveLength(3);
  });

  it('a backfilled candle (closed long ago) is not a fresh feed: its age counts from the start at most', () => {
    const w = fresh(start);
    w.saw('candles', start - 100 * MIN);
    expect(w.health(start + 30_000).ages.candles).toBe(30_000);
  });

  it('while the market is closed candles are not expected: shown, never an alarm; the opening starts their count', () => {
    const w = fresh(start);
    w.expectCandles(false, start + MIN);
    w.saw('tickers', start + 60 * MIN);
    w.saw('fills', start + 60 * MIN);
    const closed = w.health(start + 60 * MIN);
    expect(closed.state).toBe('OK');
    expect(closed.ages.candles).toBe(60 * MIN);
    w.expectCandles(true, start + 60 * MIN);
    expect(w.health(start + 61 * MIN).ages.candles).toBe(MIN);
    w.saw('tickers', start + 63 * MIN);
    w.saw('fills', start + 63 * MIN);
    expect(w.health(start + 63 * MIN).problems).toEqual([
      'no new candle for 3 min (limit 2 min): the strategy decides on nothing new',
    ]);
  });

  it('a feed that is late every time keeps the bot DEGRADED: OK only once fresh for as long as its limit', () => {
    const w = fresh(start);
    // Prices arrive 20 s old every 26 s (a slow venue): fresh an instant after each answer.
    let t = start;
    const states: string[] = [];
    for (let i = 0; i < 10; i++) {
      t += 26_000;
      states.push(w.health(t - 1).state); // just before the answer: 25 s old
      w.saw('tickers', t - 20_000);
      w.saw('candles', t);
      w.saw('fills', t);
      states.push(w.health(t).state); // at the answer: 20 s old, still past 15 s
      w.saw('tickers', t);
      states.push(w.health(t + 1).state); // a fresh one at last
    }
    expect(states.slice(1)).not.toContain('OK');
    const h = w.health(t + 1);
    expect(h.problems.at(-1)).toMatch(/^fresh again for .+: OK once fresh for 15 s$/);
    w.saw('tickers', t + 14_000);
    expect(w.health(t + 14_000).state).toBe('DEGRADED');
    w.saw('tickers', t + 15_001);
    expect(w.health(t + 15_001)).toMatchObject({ state: 'OK', problems: [] });
  });
});
