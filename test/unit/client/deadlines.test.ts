// The client's requests to one venue share one deadline timer (src/client/http-send.ts, Deadlines): each request
// still gets its whole deadline from its own start, however the requests before it ended, and an idle client
// holds no timer that keeps a process up.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TimeoutError } from '../../../src/api/index.js';
import { RestClient } from '../../../src/client/index.js';
import { envelope, startRecordingServer } from '../../helpers/recording-server.js';
import { waitFor } from '../../helpers/wait-for.js';

describe('one deadline timer per venue', () => {
  it('gives each request its own whole deadline, after answered ones and beside hung ones', async () => {
    const s = await startRecordingServer();
    const client = new RestClient({ baseUrl: s.baseUrl, timeoutMs: 300, retry: { maxAttempts: 1 } });
    // Answered at once: its deadline passes while the next requests are in flight.
    s.script({ body: envelope([]) });
    await client.tickers({ category: 'SPOT' });
    s.script({ hang: true }, { hang: true }, { body: envelope([]) });
    const startedB = performance.now();
    const b = client.tickers({ category: 'SPOT' }).then(
      () => undefined,
      (e: unknown) => ({ e, after: performance.now() - startedB }),
    );
    await waitFor(() => s.requests.length === 2, {
      timeoutMs: 5000,
      what: 'the second request at the venue',
    });
    const startedC = performance.now();
    const c = client.tickers({ category: 'SPOT' }).then(
      () => undefined,
      (e: unknown) => ({ e, after: performance.now() - startedC }),
    );
    // A fourth request, answered, while the two others hang: it is not held by them.
    await waitFor(() => s.requests.length === 3, { timeoutMs: 5000, what: 'the third request at the venue' });
    await expect(client.tickers({ category: 'SPOT' })).resolves.toEqual([]);
    for (const r of [await b, await c]) {
      expect(r?.e).toBeInstanceOf(TimeoutError);
      expect((r?.e as Error).message).toMatch(/no answer within the 300 ms deadline/);
      // Never before its own deadline (the timer of an earlier request must not end a later one early).
      expect(r?.after).toBeGreaterThanOrEqual(299);
    }
    client.close();
    await s.close();
  });

  it('lets a process end once its requests are answered, without closing the client', async () => {
    const s = await startRecordingServer();
    s.fallback = () => ({ body: envelope([]) });
    const client = fileURLToPath(new URL('../../../src/client/index.ts', import.meta.url));
    // A deadline of ten minutes: a timer left armed by the answered request would hold the process that long.
    const script = `const { RestClient } = await import(${JSON.stringify(client)});
      const c = new RestClient({ baseUrl: ${JSON.stringify(s.baseUrl)}, timeoutMs: 600000, rateLimit: false });
      await c.tickers({ category: 'SPOT' });
      console.log('answered');`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    // A process still up after a minute is held: ended here, so the test fails rather than leaving it behind.
    const held = setTimeout(() => child.kill(), 60_000);
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    clearTimeout(held);
    expect(out).toContain('answered');
    expect(code).toBe(0);
    await s.close();
  }, 120_000);
});
