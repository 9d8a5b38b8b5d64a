// Time-range chunking of history candles: no gap, no duplicate, at most 99 candles and 90 days a window;
// and the range helper, against loopback servers that add the extra interval of rule 4.1.1 and cut
// the answer to the limit at either end.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CANDLE_INTERVALS, INTERVAL_MS } from '../../../src/api/index.js';
import { planCandleWindows } from '../../../src/api/index.js';
import { RestClient, historyCandlesRange } from '../../../src/client/index.js';
import { VirtualClock } from '../../../src/feeds/clock.js';
import { envelope, startRecordingServer } from '../../helpers/recording-server.js';

const DAY = 86_400_000;

describe('planCandleWindows', () => {
  it('covers every open time of the range exactly once, 99 candles and 90 days at most per window', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CANDLE_INTERVALS),
        fc.integer({ min: 1_500_000_000_000, max: 1_800_000_000_000 }),
        fc.integer({ min: 0, max: 400 * DAY }),
        (interval, start, len) => {
          const step = INTERVAL_MS[interval];
          const end = start + Math.min(len, step * 5000);
          const windows = planCandleWindows(start, end, interval);
          let covered = 0;
          for (let i = 0; i < windows.length; i++) {
            const w = windows[i]!;
            expect(w.endTime - w.startTime).toBeLessThanOrEqual(90 * DAY);
            const first = Math.ceil(w.startTime / step) * step;
            const count = first > w.endTime ? 0 : Math.floor((w.endTime - first) / step) + 1;
            // One fewer than the limit, so the extra interval of rule 4.1.1 always fits.
            expect(count).toBeLessThanOrEqual(99);
            covered += count;
            if (i > 0) expect(w.startTime).toBe(windows[i - 1]!.endTime + 1); // no gap, no overlap
          }
          const firstOpen = Math.ceil(start / step) * step;
          const expected = firstOpen > end ? 0 : Math.floor((end - firstOpen) / step) + 1;
          expect(covered).toBe(expected);
        },
      ),
    );
  });
});

describe('historyCandlesRange', () => {
  // Rule 4.1.1: when endTime passes a boundary the answer may start one interval earlier. The spec
  // does not say which end the limit cuts, so both are served; newest first, to test the sort.
  for (const anchor of ['oldest', 'newest'] as const) {
    it(`yields each candle once, sorted, when the venue adds the extra interval and keeps the ${anchor} 100`, async () => {
      const server = await startRecordingServer();
      const step = 60_000;
      server.fallback = (req) => {
        const q = new URLSearchParams(req.query);
        const s = Number(q.get('startTime'));
        const e = Number(q.get('endTime'));
        const limit = Number(q.get('limit'));
        let rows: string[][] = [];
        const first = Math.ceil(s / step) * step - (e % step !== 0 ? step : 0);
        for (let t = first; t <= e; t += step) rows.push([String(t), '1', '1', '1', '1', '1', '1']);
        rows = anchor === 'oldest' ? rows.slice(0, limit) : rows.slice(-limit);
        return { body: envelope(rows.reverse()) };
      };
      const clock = new VirtualClock(0);
      const client = new RestClient({
        baseUrl: server.baseUrl,
        clock,
        sleep: async (ms) => clock.advance(ms),
      });
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: 1_000 }),
          fc.integer({ min: 0, max: 700 }),
          fc.integer({ min: 0, max: step - 1 }),
          async (startMin, lenMin, jitter) => {
            const start = 1_767_225_600_000 + startMin * step + jitter;
            const end = start + lenMin * step;
            const seen: number[] = [];
            for await (const c of historyCandlesRange(client, {
              category: 'SPOT',
              symbol: 'BTCUSDT',
              interval: '1m',
              startTime: start,
              endTime: end,
            }))
              seen.push(Number(c[0]));
            const expected: number[] = [];
            for (let t = Math.ceil(start / step) * step; t <= end; t += step) expected.push(t);
            expect(seen).toEqual(expected);
          },
        ),
        { numRuns: 25 },
      );
      for (const r of server.requests) expect(new URLSearchParams(r.query).get('limit')).toBe('100');
      client.close();
      await server.close();
    });
  }
});
