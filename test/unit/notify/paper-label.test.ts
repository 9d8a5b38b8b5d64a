// A paper run says so: every notification of a paper deployment starts with [PAPER] (through notifyService, as
// the daemon starts it, to a real local receiver), and the status block's first line says PAPER.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { NotifySchema } from '../../../src/config/index.js';
import { statusLines } from '../../../src/daemon/status.js';
import type { NotifiableEvent } from '../../../src/notify/index.js';
import { notifyService } from '../../../src/notify/notifier.js';
import { VirtualClock } from '../../../src/feeds/clock.js';
import { openStore } from '../../../src/store/index.js';
import { startRecordingServer } from '../../helpers/recording-server.js';
import { waitFor } from '../../helpers/wait-for.js';

describe('PAPER on a paper run', () => {
  it('starts every notification with [PAPER]', async () => {
    const rx = await startRecordingServer();
    rx.fallback = () => ({ body: 'ok' });
    const listeners: ((e: NotifiableEvent) => void)[] = [];
    const dir = mkdtempSync(join(tmpdir(), 'tradebot-paper-label-'));
    const store = openStore(join(dir, 'journal.db'));
    onTestFinished(() => {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const service = await notifyService({
      store,
      config: { notify: NotifySchema.parse({ webhook: { url: `${rx.baseUrl}/hook` }, events: ['restart'] }) },
      bots: () => [],
      logger: { info: () => undefined, warn: () => undefined },
      venue: { kind: 'paper', speed: 1 },
      clock: new VirtualClock(0),
      subscribe: (l) => {
        listeners.push(l);
        return () => undefined;
      },
    });
    for (const l of listeners) l({ type: 'bot-restarted', bot: 'a', ts: 1, restarts: 1, error: 'boom' });
    await waitFor(() => rx.requests.length >= 1, { what: 'one message', timeoutMs: 10_000 });
    await service?.close();
    await rx.close();
    expect((JSON.parse(rx.requests[0]?.body ?? '{}') as { text: string }).text).toMatch(/^\[PAPER\] a /);
  });

  it('says PAPER on the first status line', () => {
    const [head] = statusLines([], Date.UTC(2026, 10, 23, 15), undefined, 'PAPER');
    expect(head).toMatch(/^tradebot PAPER 2026-11-23 10:00:00 /);
  });
});
