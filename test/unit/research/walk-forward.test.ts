// Walk-forward: windows tile the data without overlap, no in-sample data is evaluated out-of-sample, each
// out-of-sample window is warmed up (never cold), and the stitched result is continuous and counts every
// window's trades.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../helpers/wait-for.js';
import { runJob } from '../../../src/research/run-job.js';
import { walkForward, walkForwardWindows } from '../../../src/research/walk-forward.js';

const DAY = 86_400_000;

describe('walk-forward', () => {
  it('rolls windows: in-sample then the following out-of-sample, stepping by the out-of-sample length', () => {
    const w = walkForwardWindows(0, 100 * DAY, 30 * DAY, 20 * DAY);
    expect(w.map((x) => [x.inSample.from / DAY, x.outOfSample.from / DAY])).toEqual([
      [0, 30],
      [20, 50],
      [40, 70],
      [60, 90],
    ]);
    for (const x of w) expect(x.inSample.to).toBeLessThan(x.outOfSample.from);
    for (let i = 1; i < w.length; i++) expect(w[i]!.outOfSample.from).toBe(w[i - 1]!.outOfSample.to + 1);
    expect(() => walkForwardWindows(0, 10 * DAY, 30 * DAY, 20 * DAY)).toThrow(/shorter than one/);
  });

  it('warms each out-of-sample window up: with slow=200 and 365-day windows every window with a golden cross trades', async () => {
    const base = {
      dataset: 'sp500-daily',
      strategy: 'ma-crossover',
      params: { quoteAmount: '5000' },
      capital: '10000',
      feeRate: '0.001',
      slippageBps: 2,
      risk: {
        allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'] as (
          'pre_market' | 'regular' | 'after_hours' | 'overnight'
        )[],
        maxDataAgeMs: 604_800_000,
      },
    };
    const wf = await walkForward({
      base,
      grid: { fast: ['20', '50'], slow: ['200'] },
      inSampleMs: 365 * DAY,
      outOfSampleMs: 365 * DAY,
      workers: 2,
    });
    expect(wf.warmupMs).toBe(365 * DAY);
    expect(wf.steps.length).toBeGreaterThanOrEqual(15);
    // The same parameters run without a break over the whole data: where it enters inside a window, the
    // warmed-up window run must trade too (a cold SMA200 could not before ~10 months into the window).
    const continuous = new Map<string, Awaited<ReturnType<typeof runJob>>>();
    let withSignal = 0;
    for (const s of wf.steps) {
      const key = JSON.stringify(s.best);
      if (!continuous.has(key)) continuous.set(key, await runJob({ ...base, params: s.best, chart: false }));
      const entries = continuous
        .get(key)!
        .result.intents.filter(
          (i) =>
            i.approved &&
            i.side === 'buy' &&
            i.ts >= s.window.outOfSample.from &&
            i.ts < s.window.outOfSample.to - 2 * DAY,
        );
      if (entries.length === 0) continue;
      withSignal++;
      expect(
        s.outOfSample.trades + (s.outOfSample.exposure > 0 ? 1 : 0),
        JSON.stringify(s.window),
      ).toBeGreaterThan(0);
    }
    expect(withSignal).toBeGreaterThanOrEqual(5);
    // Stitched trades are the sum of the windows' trades, and none is from before its window.
    expect(wf.metrics.trades).toBe(wf.steps.reduce((a, s) => a + s.trades.length, 0));
    expect(wf.metrics.trades).toBeGreaterThan(0);
    for (const s of wf.steps)
      for (const t of s.trades) expect(t.entryTime).toBeGreaterThanOrEqual(s.window.outOfSample.from);
    // Money stays decimal strings.
    expect(wf.capital).toBe('10000');
    expect(wf.metrics.finalEquity).toMatch(/^\d+(\.\d+)?$/);
  }, 120_000);

  it('optimises in-sample, evaluates out-of-sample on unseen data, and stitches a continuous equity', async () => {
    const base = {
      dataset: 'sp500-daily',
      strategy: 'ma-crossover',
      params: { quoteAmount: '5000' },
      capital: '10000',
      feeRate: '0.001',
      slippageBps: 2,
      risk: {
        allowedSessions: ['pre_market', 'regular', 'after_hours', 'overnight'] as (
          'pre_market' | 'regular' | 'after_hours' | 'overnight'
        )[],
        maxDataAgeMs: 604_800_000,
      },
      from: Date.UTC(2004, 0, 1),
      to: Date.UTC(2012, 0, 1),
    };
    const wf = await walkForward({
      base,
      grid: { fast: ['10', '30'], slow: ['100', '150'] },
      inSampleMs: 1461 * DAY,
      outOfSampleMs: 730 * DAY,
      workers: 2,
    });
    expect(wf.steps.length).toBeGreaterThanOrEqual(2);
    for (const s of wf.steps) {
      expect([10, 30]).toContain(s.best.fast);
      const pts = wf.equity.filter(
        (p) => p.ts >= s.window.outOfSample.from && p.ts <= s.window.outOfSample.to,
      );
      expect(pts.length).toBeGreaterThan(0);
      // no out-of-sample point before its window: nothing of the in-sample period is evaluated
      expect(Math.min(...pts.map((p) => p.ts))).toBeGreaterThanOrEqual(s.window.outOfSample.from);
    }
    // Stitched: each window starts where the previous ended (within one day's move).
    for (let i = 1; i < wf.equity.length; i++) {
      const jump = Math.abs(wf.equity[i]!.equity / wf.equity[i - 1]!.equity - 1);
      expect(jump).toBeLessThan(0.12);
    }
    expect(wf.equity.map((p) => p.ts)).toEqual([...wf.equity.map((p) => p.ts)].sort((a, b) => a - b));
  }, 60_000);

  // Each in a process of its own: worker threads left running would keep it alive after the refusal.
  it.each([
    ['a negative warm-up', "capital: '10000'", 'warmupMs: -1', /the warm-up length must be zero or more/],
    ['a capital that is no number', "capital: 'ten'", 'warmupMs: 0', /Invalid argument: ten/],
  ])(
    'refuses %s before it starts worker threads: the refused process exits',
    async (_, capital, warmup, says) => {
      const module = pathToFileURL(
        join(import.meta.dirname, '..', '..', '..', 'src', 'research', 'walk-forward.ts'),
      );
      const script = `import { walkForward } from ${JSON.stringify(module.href)};
await walkForward({
  base: { dataset: 'sp500-daily', strategy: 'ma-crossover', params: {}, ${capital}, feeRate: '0', slippageBps: 0, risk: {} },
  grid: { fast: ['20'] }, inSampleMs: ${365 * DAY}, outOfSampleMs: ${365 * DAY}, ${warmup}, workers: 1,
}).catch((e) => process.stdout.write(e.message));`;
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]);
      let out = '';
      let exited = false;
      child.stdout.on('data', (b: Buffer) => (out += b.toString()));
      child.on('close', () => (exited = true));
      try {
        await waitFor(() => exited, {
          timeoutMs: 20_000,
          what: 'the refused walk-forward to exit',
          detail: () => out,
        });
        expect(out).toMatch(says);
      } finally {
        child.kill();
      }
    },
    30_000,
  );
});
