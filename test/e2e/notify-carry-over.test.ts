// A stop with a notification backlog, through the real CLI: the webhook is down for the whole first run, so
// its messages (the start, fills, the stop) wait in the journal's outbox; the stop says how many are carried
// over; the next start (the demo's embedded simulator needs --fresh, which keeps the old journal aside) sends
// every one of them, each once by its idempotency key, to a receiver that is back. That run is killed (kill -9):
// the start after it says the previous run did not end cleanly.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startCli } from '../helpers/cli.js';
import { demoConfig } from '../helpers/demo-config.js';
import { startRecordingServer } from '../helpers/recording-server.js';
import { untimed } from '../helpers/notify-text.js';
import { waitFor } from '../helpers/wait-for.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-carry-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const logLines = (stderr: string) =>
  stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('notifications across a stop', () => {
  it('a backlog at stop is carried over and delivered by the next start, each message once; a start after a kill says so', async () => {
    const hook = await startRecordingServer();
    const kept = new Map<string, string>();
    let up = false;
    hook.fallback = (req) => {
      if (!up) return { status: 503, body: 'down' };
      const key = String(req.headers['idempotency-key']);
      if (!kept.has(key)) kept.set(key, (JSON.parse(req.body) as { text: string }).text);
      return { body: 'ok' };
    };
    const journal = join(dir, 'carry.db');
    const demo = demoConfig(journal);
    demo.dashboard.enabled = false;
    demo.logging.format = 'json';
    demo.notify = {
      webhook: { url: `${hook.baseUrl}/hook` },
      events: ['fill', 'exit', 'trading-state', 'lifecycle', 'control'],
      perMinute: 600,
      timeoutMs: 1000,
      fillWindowMs: 0,
      stopFlushMs: 500,
    };
    const f = join(dir, 'carry.yaml');
    writeFileSync(f, stringify(demo));

    const first = startCli(['run', '--config', f]);
    try {
      await waitFor(() => logLines(first.stderr).some((l) => l.message === 'fill'), {
        what: 'a fill in the first run',
        timeoutMs: 90_000,
        detail: () => first.stderr.slice(-2000),
      });
    } finally {
      first.proc.kill('SIGTERM');
      await first.exited;
    }
    const carried = logLines(first.stderr).find((l) => l.message === 'notifications carried over');
    const count = carried?.count as number;
    expect(count).toBeGreaterThanOrEqual(3); // the start, a fill, the stop
    expect(carried?.what).toBe(
      `${count} notifications carried over to the next start (kept in the journal's outbox)`,
    );
    expect(kept.size).toBe(0);
    const db = new BetterSqlite3(journal, { readonly: true });
    const waiting = db
      .prepare(`SELECT msg_key AS key, text FROM notify_outbox WHERE sent_ts IS NULL AND dropped_ts IS NULL`)
      .all() as { key: string; text: string }[];
    db.close();
    expect(waiting).toHaveLength(count);

    up = true;
    const second = startCli(['run', '--config', f, '--fresh']);
    try {
      await waitFor(() => waiting.every((w) => kept.has(w.key)), {
        what: 'every carried-over message delivered',
        timeoutMs: 60_000,
        detail: () => second.stderr.slice(-2000),
      });
    } finally {
      // Killed: this run leaves no clean-stop marker behind.
      second.proc.kill('SIGKILL');
      await second.exited;
    }
    for (const w of waiting) expect(kept.get(w.key)).toBe(w.text);
    expect(waiting.map((w) => untimed(w.text))).toContain('tradebot stopping');
    // The new journal took the backlog over from the one kept aside.
    const started = logLines(second.stderr).find(
      (l) => l.message === 'started a fresh journal; the previous one is kept',
    );
    expect(started?.notificationsCarried).toBe(count);

    // The next start says the run before it did not end cleanly: in its log and in its start message.
    const third = startCli(['run', '--config', f, '--fresh']);
    try {
      await waitFor(() => [...kept.values()].some((t) => t.includes('did not end cleanly')), {
        what: 'the start after a kill told',
        timeoutMs: 60_000,
        detail: () => third.stderr.slice(-2000),
      });
    } finally {
      third.proc.kill('SIGTERM');
      await third.exited;
      await hook.close();
    }
    expect([...kept.values()].filter((t) => t.startsWith('tradebot started')).map(untimed)).toEqual([
      'tradebot started on simulator: 3 bots (aapl-ma, tsla-rsi, nvda-session)',
      'tradebot started on simulator: 3 bots (aapl-ma, tsla-rsi, nvda-session)',
      'tradebot started on simulator: 3 bots (aapl-ma, tsla-rsi, nvda-session). The previous run did not end cleanly (no clean stop in the journal): orders and fills were reconciled with the venue at start',
    ]);
    expect(logLines(third.stderr).some((l) => l.message === 'the previous run did not end cleanly')).toBe(
      true,
    );
  }, 240_000);
});
