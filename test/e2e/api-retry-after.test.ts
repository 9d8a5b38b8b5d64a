// `tradebot api` against a venue that asks (Retry-After) to wait for hours: the call fails at once with exit 1 and
// says how long the venue asked, instead of holding the command for as long (issue 28).
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startRecordingServer } from '../helpers/recording-server.js';

describe('tradebot api against a venue asking to wait for hours', () => {
  it('fails at once with exit 1, saying how long the venue asked to wait', async () => {
    const server = await startRecordingServer();
    server.fallback = () => ({
      status: 429,
      headers: { 'retry-after': '100000' },
      body: { code: '429', msg: 'Too Many Requests', requestTime: Date.UTC(2026, 10, 23, 15), data: null },
    });
    try {
      // A command that waits out the 27 hours is killed at this cap (runCli then answers code null).
      const r = await runCli(
        ['api', 'tickers', '--base-url', server.baseUrl, '--category', 'SPOT'],
        {},
        20_000,
      );
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(
        /tickers: the venue answered 429 and asked to wait 1 d 3 h \(until .*\) before the next request \(Retry-After\), longer than this client waits \(retry\.maxDelayMs 5 s\)/,
      );
      expect(r.stderr).not.toMatch(/TimeoutOverflowWarning/);
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});
