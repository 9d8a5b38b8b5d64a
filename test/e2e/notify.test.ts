// Notifications from a running demo deployment, through the real CLI, to local HTTP receivers standing
// in for a webhook and for the Telegram Bot API (its base URL configured): messages arrive; a receiver
// that hangs (no answer for 10 s) does not slow trading, and its outage is logged once, its recovery
// once with what was dropped; the start and the stop are told; no secret appears in any message or log line.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startCli } from '../helpers/cli.js';
import { demoConfig } from '../helpers/demo-config.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { untimed } from '../helpers/notify-text.js';
import { waitFor } from '../helpers/wait-for.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-notify-'));
const servers: RecordingServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

const TOKEN = '7712345678:AAE-e2eTelegramToken-9f8e7d6c5b4a';
const HOOK_KEY = 'T000/B000/e2eWebhookKey5a4b3c';

const texts = (s: RecordingServer) =>
  s.requests.map((r) => untimed((JSON.parse(r.body) as { text: string }).text));
const logLines = (stderr: string) =>
  stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('notifications', () => {
  it('arrive at the webhook and Telegram; a hanging receiver does not slow trading; no secret anywhere', async () => {
    const hook = await startRecordingServer();
    const tg = await startRecordingServer();
    servers.push(hook, tg);
    hook.fallback = () => ({ body: 'ok' });
    tg.fallback = () => ({ body: { ok: true, result: {} } });
    const demo = demoConfig(join(dir, 'notify.db'));
    demo.logging.format = 'json';
    demo.notify = {
      webhook: { url: `${hook.baseUrl}/services/\${E2E_HOOK_KEY}` },
      telegram: { botToken: '${E2E_TG_TOKEN}', chatId: '4242', apiBaseUrl: tg.baseUrl },
      perMinute: 600,
      timeoutMs: 10_000,
      retries: 10,
      queue: 3,
    };
    const f = join(dir, 'notify.yaml');
    writeFileSync(f, stringify(demo));
    const d = startCli(['run', '--config', f], { E2E_TG_TOKEN: TOKEN, E2E_HOOK_KEY: HOOK_KEY });
    try {
      // 1. A fill reaches both targets, as Slack-compatible JSON and as a Bot API sendMessage.
      await waitFor(() => texts(hook).some((t) => / bought [\d.]+ [A-Z]+ at [\d.]+ USDT/.test(t)), {
        what: 'a fill at the webhook',
        timeoutMs: 90_000,
        detail: () => d.stderr.slice(-2000),
      });
      expect(hook.requests[0]?.path).toBe(`/services/${HOOK_KEY}`);
      // The start is told first (lifecycle), a fresh journal: no word of an unclean end.
      expect(texts(hook)[0]).toBe('tradebot started on simulator: 3 bots (aapl-ma, tsla-rsi, nvda-session)');
      // Every message carries its idempotency key, in the header and the body.
      for (const r of hook.requests)
        expect(r.headers['idempotency-key']).toBe(
          (JSON.parse(r.body) as { idempotencyKey: string }).idempotencyKey,
        );
      expect(hook.requests[0]?.headers['content-type']).toBe('application/json');
      await waitFor(() => tg.requests.length > 0, { what: 'a Telegram message', timeoutMs: 10_000 });
      expect(tg.requests[0]?.path).toBe(`/bot${TOKEN}/sendMessage`);
      expect(JSON.parse(tg.requests[0]?.body ?? '{}')).toMatchObject({ chat_id: '4242' });

      // 2. The webhook hangs: it takes requests and answers none within 10 s. Trading goes on, on time.
      hook.fallback = () => ({ hang: true });
      const ordersBefore = logLines(d.stderr).filter((l) => l.message === 'order placed').length;
      const hungAt = hook.requests.length;
      await waitFor(
        () => logLines(d.stderr).filter((l) => l.message === 'order placed').length >= ordersBefore + 2,
        {
          what: 'two more orders while the webhook hangs',
          timeoutMs: 60_000,
          detail: () => d.stderr.slice(-2000),
        },
      );
      // The webhook was tried during the outage (a message hung on it; a fill waits fillWindowMs first) ...
      await waitFor(() => hook.requests.length > hungAt, {
        what: 'a message tried on the hanging webhook',
        timeoutMs: 30_000,
      });
      // ... and every order placed meanwhile was answered within seconds of its signal (venue time at 60x:
      // one real second is 60 s; a wait on the webhook would show as 600 s).
      const during = logLines(d.stderr)
        .filter((l) => l.message === 'order placed')
        .slice(ordersBefore);
      for (const o of during) expect(o.signalToAnswerMs as number).toBeLessThan(120_000);
      // Telegram kept delivering meanwhile.
      const tgBefore = tg.requests.length;
      await waitFor(() => tg.requests.length > tgBefore, {
        what: 'Telegram during the outage',
        timeoutMs: 60_000,
      });

      // 3. The webhook answers again: the outage ends, logged once with what was dropped.
      hook.fallback = () => ({ body: 'ok' });
      await waitFor(() => logLines(d.stderr).some((l) => l.message === 'notifications recovered'), {
        what: 'the recovery line',
        timeoutMs: 60_000,
        detail: () => d.stderr.slice(-3000),
      });
    } finally {
      d.proc.kill('SIGTERM');
      await d.exited;
    }
    // The stop is told too (it outranks the fills still waiting).
    expect(texts(hook)).toContain('tradebot stopping');
    const lines = logLines(d.stderr);
    const failing = lines.filter((l) => l.message === 'notifications failing');
    expect(failing).toHaveLength(1);
    expect(failing[0]?.what).toMatch(/^notifications to webhook failing since \d{4}-\d\d-\d\dT/);
    const recovered = lines.find((l) => l.message === 'notifications recovered');
    expect(recovered?.what).toMatch(
      /^notifications to webhook delivered again \(failing since .*\); \d+ messages dropped$/,
    );
    // No secret in any message sent or any log line (the token travels only in the Bot API's own URL path).
    const everything = [
      ...texts(hook),
      ...texts(tg),
      ...tg.requests.map((r) => r.body),
      d.stderr,
      d.stdout,
    ].join('\n');
    expect(everything).not.toContain(TOKEN);
    expect(everything).not.toContain(HOOK_KEY);
    expect(everything).not.toContain('e2eTelegramToken');
  }, 240_000);
});
