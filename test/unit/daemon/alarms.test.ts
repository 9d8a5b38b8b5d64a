// Every alarm fires when it should and only then (issue 40): a table of alarm x fires / does not fire / clears,
// each driven by its rule on a pinned clock. The wiring of the surfaces (log line, notification, metric, /readyz)
// is covered by test/integration/daemon/start-no-false-alarm.test.ts and the e2e feed-starvation test.
import { describe, expect, it } from 'vitest';
import { watchFeedHealth } from '../../../src/daemon/feed-alarm.js';
import { readiness, venueReachableMs } from '../../../src/daemon/health.js';
import { denialAlarm } from '../../../src/daemon/denial-alarm.js';
import { watchMarginRatio } from '../../../src/daemon/margin-alarm.js';
import type { LiveBotMargin, LiveBotStatus } from '../../../src/execution/live-bot.js';
import {
  MarginWarnings,
  marginWarningText,
  type MarginWarningEvent,
} from '../../../src/execution/margin-warning.js';
import { DaemonMetrics } from '../../../src/daemon/metrics.js';
import { BotSchema, DeploymentSchema } from '../../../src/config/index.js';
import { DenialBursts, denialBurstLimits } from '../../../src/execution/denial-burst.js';
import { FeedWatch, feedLimits, type FeedName } from '../../../src/execution/feed-watch.js';
import type { FeedHealthEvent } from '../../../src/execution/feed-watch.js';
import type { TraderEvent } from '../../../src/execution/trader.js';
import { botStatus as bot } from '../../helpers/bot-status.js';

const MIN = 60_000;
const t0 = Date.UTC(2026, 10, 23, 15); // Monday 10:00 ET
const limits = feedLimits({ intervalMs: MIN, maxDataAgeMs: 15_000, fillsPollMs: 2_000 });

/** A watch whose feeds all brought something at the start (t0). */
function watched(): FeedWatch {
  const w = new FeedWatch(limits, t0);
  for (const f of ['candles', 'tickers', 'fills'] as const) w.saw(f, t0);
  return w;
}

/** Every feed but `feed` keeps coming until `until`. */
function keepFresh(w: FeedWatch, feed: FeedName, until: number): void {
  for (let t = t0; t <= until; t += 1000)
    for (const f of ['candles', 'tickers', 'fills'] as const) if (f !== feed) w.saw(f, t);
}

const FEED_ALARMS: readonly { alarm: string; feed: FeedName; limit: number; sentence: RegExp }[] = [
  { alarm: 'feed starvation (candles)', feed: 'candles', limit: limits.candles, sentence: /^no new candle/ },
  { alarm: 'stale prices (tickers)', feed: 'tickers', limit: limits.tickers, sentence: /^no fresh price/ },
  { alarm: 'fill-sync age', feed: 'fills', limit: limits.fills, sentence: /^no fill sync/ },
];

describe.each(FEED_ALARMS)('$alarm', ({ feed, limit, sentence }) => {
  it('fires past its limit, with a sentence naming the feed', () => {
    const w = watched();
    keepFresh(w, feed, t0 + limit + 1000);
    const h = w.health(t0 + limit + 1000);
    expect(h.state).toBe('DEGRADED');
    expect(h.problems).toEqual([expect.stringMatching(sentence)]);
  });

  it('does not fire at its limit', () => {
    const w = watched();
    keepFresh(w, feed, t0 + limit);
    expect(w.health(t0 + limit)).toMatchObject({ state: 'OK', problems: [] });
  });

  it('clears once the feed has been fresh again for its limit', () => {
    const w = watched();
    const bad = t0 + limit + 1000;
    keepFresh(w, feed, bad);
    expect(w.health(bad).state).toBe('DEGRADED');
    // The feed comes back: fresh, but held DEGRADED until fresh for its limit (no flapping on a slow venue).
    for (const f of ['candles', 'tickers', 'fills'] as const) w.saw(f, bad + 1000);
    expect(w.health(bad + 1000)).toMatchObject({ state: 'DEGRADED', held: true });
    for (const f of ['candles', 'tickers', 'fills'] as const) w.saw(f, bad + limit + 1000);
    expect(w.health(bad + limit + 1000).state).toBe('OK');
  });

  it('does not count the daemon’s own start as silence (watchFrom)', () => {
    const w = watched();
    // The start took longer than the limit (backfills, the dashboard): judged from when it completed.
    w.watchFrom(t0 + limit + 5000);
    expect(w.health(t0 + limit + 5000).state).toBe('OK');
    expect(w.health(t0 + 2 * limit + 6000).state).toBe('DEGRADED');
  });
});

describe('the feed alarm (log, metric, event)', () => {
  /** A bot whose health is scripted by the test. */
  function scripted(w: FeedWatch, now: () => number) {
    return {
      feedHealth: () => w.health(now()),
      forgiveFeedStall: () => w.forgiveStall(),
      watchFeedsFromNow: () => w.watchFrom(now()),
    };
  }
  function harness() {
    let now = t0;
    const w = new FeedWatch(limits, t0);
    const events: FeedHealthEvent[] = [];
    const lines: string[] = [];
    const metrics = new DaemonMetrics();
    const logger = {
      warn: (m: string) => lines.push(m),
      info: (m: string) => lines.push(m),
    } as unknown as Parameters<typeof watchFeedHealth>[0]['logger'];
    const alarm = watchFeedHealth({
      bots: () => [{ name: 'a', bot: scripted(w, () => now) }],
      clock: { now: () => now },
      logger,
      metrics,
      emit: (e) => events.push(e),
      everyMs: 3_600_000,
    });
    const fresh = (at: number) => ['candles', 'tickers', 'fills'].forEach((f) => w.saw(f as FeedName, at));
    const degradedGauge = async () =>
      (await metrics.degraded.get()).values.find((v) => v.labels.bot === 'a')?.value;
    return { w, events, lines, alarm, fresh, degradedGauge, at: (t: number) => (now = t) };
  }

  it('fires on a second DEGRADED reading, once, on every surface; clears once fresh for the limit', async () => {
    const h = harness();
    h.fresh(t0);
    h.at(t0 + 20_000); // tickers 20 s old: past 15 s
    h.alarm.check();
    expect(h.events).toEqual([]); // one reading may be the daemon's own stall
    h.at(t0 + 21_000);
    h.alarm.check();
    h.alarm.check();
    expect(h.events.map((e) => e.state)).toEqual(['DEGRADED']);
    expect(h.lines).toEqual(['bot degraded']);
    expect(await h.degradedGauge()).toBe(1);
    h.fresh(t0 + 22_000);
    h.at(t0 + 22_000);
    h.alarm.check();
    expect(h.events.map((e) => e.state)).toEqual(['DEGRADED']); // held until fresh for the limit
    for (let t = t0 + 22_000; t <= t0 + 40_000; t += 1000) h.fresh(t);
    h.at(t0 + 40_000);
    h.alarm.check();
    expect(h.events.map((e) => e.state)).toEqual(['DEGRADED', 'OK']);
    expect(h.lines).toEqual(['bot degraded', 'bot recovered']);
    expect(await h.degradedGauge()).toBe(0);
    h.alarm.stop();
  });

  it('does not fire for a stall of the daemon: the answers read after it make the next reading fresh', () => {
    const h = harness();
    h.fresh(t0);
    h.at(t0 + 20_000); // the event loop stood still: the timer fires before the answers are read
    h.alarm.check();
    h.fresh(t0 + 20_000); // then they are read
    h.at(t0 + 20_500);
    h.alarm.check();
    h.alarm.check();
    expect(h.events).toEqual([]);
    expect(h.lines).toEqual([]);
    h.alarm.stop();
  });
});

describe('denial bursts (per bot and code)', () => {
  const denied = (ts: number, code: string): TraderEvent =>
    ({ type: 'denied', bot: 'a', ts, code, message: 'no', intent: {} }) as unknown as TraderEvent;

  it('fires for a 1m bot denied on every signal (the default window is ten candles; a fixed 60 s never did)', () => {
    const b = new DenialBursts('a', denialBurstLimits(MIN));
    const bursts = Array.from({ length: 60 }, (_, i) => b.see(t0 + i * MIN, 'MAX_POSITION')).filter(Boolean);
    expect(bursts).toHaveLength(12); // one per 5 denials in a venue hour
    expect(bursts[0]).toMatchObject({ code: 'MAX_POSITION', count: 5, windowMs: 10 * MIN });
  });

  it('does not fire for denials spread wider than the window, nor mixes codes', () => {
    const b = new DenialBursts('a', { count: 3, windowMs: MIN });
    expect([0, 61_000, 122_000].map((d) => b.see(t0 + d, 'STALE_DATA'))).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(['A', 'B', 'A', 'B'].map((c, i) => b.see(t0 + i, c))).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('clears: after a burst the count of that code starts again', () => {
    const b = new DenialBursts('a', { count: 2, windowMs: MIN });
    expect(b.see(t0, 'X')).toBeUndefined();
    expect(b.see(t0 + 1, 'X')).toBeDefined();
    expect(b.see(t0 + 2, 'X')).toBeUndefined();
    expect(b.see(t0 + 3, 'X')).toBeDefined();
  });

  it('takes the bot’s own threshold and window, else the deployment’s, else 5 within ten candles', () => {
    expect(denialBurstLimits(5 * MIN)).toEqual({ count: 5, windowMs: 50 * MIN });
    expect(denialBurstLimits(MIN, undefined, { count: 3, windowMs: 1000 })).toEqual({
      count: 3,
      windowMs: 1000,
    });
    expect(denialBurstLimits(MIN, { count: 2 }, { count: 3, windowMs: 1000 })).toEqual({
      count: 2,
      windowMs: 1000,
    });
  });

  it('refuses a bad threshold or window in the YAML with a message naming the field', () => {
    const parse = (denialBurst: unknown) =>
      BotSchema.safeParse({ name: 'a', strategy: 'ma-crossover', symbols: ['AAPLUSDT'], denialBurst });
    expect(parse({ count: 0 }).error?.issues[0]?.message).toMatch(/denialBurst\.count must be at least 1/);
    expect(parse({ windowMs: 10 }).error?.issues[0]?.message).toMatch(
      /denialBurst\.windowMs must be at least 1000/,
    );
    expect(parse({ count: 'x' }).error?.issues[0]?.message).toMatch(
      /denialBurst\.count must be a whole number/,
    );
    expect(parse({ count: 3, windowMs: 120_000 }).success).toBe(true);
  });

  it('is said once per burst: a log line, the metric by code and a daemon event', async () => {
    const cfg = DeploymentSchema.parse({
      venue: { kind: 'simulator', startTime: '2026-11-23T15:00:00Z' },
      bots: [{ name: 'a', strategy: 'ma-crossover', symbols: ['AAPLUSDT'], denialBurst: { count: 2 } }],
    });
    const lines: string[] = [];
    const events: unknown[] = [];
    const metrics = new DaemonMetrics();
    const logger = { warn: (m: string) => lines.push(m) } as unknown as Parameters<
      typeof denialAlarm
    >[0]['logger'];
    const listen = denialAlarm({ bot: cfg.bots[0]!, cfg, logger, metrics, emit: (e) => events.push(e) });
    for (let i = 0; i < 3; i++) listen(denied(t0 + i * MIN, 'MAX_POSITION'));
    expect(lines).toEqual(['denial burst']);
    expect(events).toMatchObject([{ type: 'denial-burst', bot: 'a', code: 'MAX_POSITION', count: 2 }]);
    const m = await metrics.denialBursts.get();
    expect(m.values).toEqual([{ labels: { bot: 'a', code: 'MAX_POSITION' }, value: 1 }]);
  });
});

describe('venue unreachable (by the age of the last answer)', () => {
  const window = venueReachableMs(15_000, 60); // the demo: tickers every 15 s at speed 60
  it('fires after the window without an answer, with venueSilentMs', () => {
    const r = readiness({ bots: [bot('a')], lastPollOk: t0 - window - 5000, now: t0, reachableMs: window });
    expect(r).toMatchObject({
      ready: false,
      detail: { venueReachable: false, venueSilentMs: window + 5000 },
    });
  });
  it('does not fire within the window', () => {
    const r = readiness({ bots: [bot('a')], lastPollOk: t0 - window + 1, now: t0, reachableMs: window });
    expect(r).toMatchObject({ ready: true, detail: { venueReachable: true } });
    expect(r.detail).not.toHaveProperty('venueSilentMs');
  });
  it('clears at the next answer', () => {
    const r = readiness({ bots: [bot('a')], lastPollOk: t0, now: t0 + 1, reachableMs: window });
    expect(r.ready).toBe(true);
  });
});

describe('the margin warning (a MARGIN bot at its warningRiskRatio)', () => {
  function harness() {
    let ratio = '0.5';
    const margin = (): LiveBotMargin => {
      const state = Number(ratio) >= 1 ? 'liquidation' : Number(ratio) >= 0.8 ? 'warning' : 'normal';
      return {
        loans: [],
        interest: '0',
        interestPaid: '0',
        riskRatio: ratio,
        warningRiskRatio: '0.8',
        state,
      };
    };
    const events: MarginWarningEvent[] = [];
    const lines: string[] = [];
    const metrics = new DaemonMetrics();
    const logger = {
      warn: (m: string) => lines.push(m),
      info: (m: string) => lines.push(m),
    } as unknown as Parameters<typeof watchMarginRatio>[0]['logger'];
    const alarm = watchMarginRatio({
      bots: () => [{ name: 'shorty', bot: { status: () => ({ margin: margin() }) as LiveBotStatus } }],
      clock: { now: () => t0 },
      logger,
      metrics,
      emit: (e) => events.push(e),
      everyMs: 3_600_000,
    });
    const warnings = async () =>
      (await metrics.marginWarnings.get()).values.find((v) => v.labels.bot === 'shorty')?.value ?? 0;
    return { events, lines, alarm, warnings, at: (r: string) => (ratio = r) };
  }

  it('does not fire below the warning ratio', async () => {
    const h = harness();
    h.at('0.7999');
    h.alarm.check();
    expect([h.events, h.lines, await h.warnings()]).toEqual([[], [], 0]);
    h.alarm.stop();
  });

  it('fires once at the warning ratio (log, metric, event), and clears when the ratio falls back', async () => {
    const h = harness();
    h.at('0.8');
    h.alarm.check();
    h.at('0.9');
    h.alarm.check();
    expect(h.events.map((e) => [e.state, e.riskRatio])).toEqual([['warning', '0.8']]);
    expect(h.lines).toEqual(['margin warning']);
    expect(await h.warnings()).toBe(1);
    h.at('0.6');
    h.alarm.check();
    h.alarm.check();
    expect(h.events.map((e) => e.state)).toEqual(['warning', 'normal']);
    expect(h.lines).toEqual(['margin warning', 'margin normal again']);
    h.at('0.85');
    h.alarm.check();
    expect(await h.warnings()).toBe(2);
    h.alarm.stop();
  });

  it('says the ratio and the threshold in its sentence', () => {
    const e = new MarginWarnings().see('shorty', t0, {
      loans: [],
      interest: '0',
      interestPaid: '0',
      riskRatio: '0.81234567',
      warningRiskRatio: '0.8',
      state: 'warning',
    });
    expect(e && marginWarningText(e)).toMatch(
      /^shorty MARGIN WARNING: risk ratio 0\.8123 reached warningRiskRatio 0\.8/,
    );
  });
});
