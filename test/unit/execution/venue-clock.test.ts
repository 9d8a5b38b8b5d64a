// Following an accelerated venue's clock: its time is read through the client, so answers that are cut
// short, dropped or refused before the first good one are retried like any request (the daemon's start
// failed on one malformed answer with "Unterminated string in JSON").
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { followVenueClock } from '../../../src/execution/runtime.js';
import { liveClock } from '../../../src/feeds/clock.js';
import { VenueClock } from '../../../src/feeds/venue-clock.js';
import { envelope, startRecordingServer, type RecordingServer } from '../../helpers/recording-server.js';

describe('followVenueClock', () => {
  let server: RecordingServer;
  beforeEach(async () => (server = await startRecordingServer()));
  afterEach(() => server.close());

  it('reads the venue time past a cut-off answer, a dropped connection and a 5xx, then runs at the given speed', async () => {
    const venueTime = Date.UTC(2026, 10, 23, 14, 30);
    const good = envelope([], venueTime);
    server.script(
      { body: JSON.stringify(good).slice(0, 40) },
      { drop: true },
      { status: 503, body: { code: '90016', msg: 'busy', requestTime: venueTime, data: null } },
      { body: good },
    );
    const clock = await followVenueClock(server.baseUrl, 60);
    expect(server.requests).toHaveLength(4);
    expect(server.requests.every((r) => r.path === '/api/v3/market/rpi-symbols')).toBe(true);
    // The venue's time now, give or take the round trip (scaled 60x).
    const at = clock.now();
    expect(Math.abs(at - venueTime)).toBeLessThan(60 * 2000);
    // And 60 venue seconds pass per real second: a clock read a real second ago is a venue minute on.
    const secondAgo = new VenueClock(venueTime, 60, liveClock.now() - 1000);
    expect(Math.abs(secondAgo.now() - (venueTime + 60_000))).toBeLessThan(60 * 200);
  });

  it('names the venue when it never answers with a time', async () => {
    server.fallback = () => ({ body: 'not json' });
    await expect(followVenueClock(server.baseUrl, 60)).rejects.toThrow(
      /rpiSymbols: the venue answered malformed JSON .*gave up after/,
    );
  });
});
