// The two targets, over fetch: a webhook (JSON POST {"text": ...}, what Slack's incoming webhooks and
// most chat bridges take) and Telegram's Bot API (sendMessage). A non-2xx answer is a failure; the
// answer's body is never logged (it may echo what was sent). A webhook gets each message's idempotency
// key as the `Idempotency-Key` header and in the body, the same on every resend: a receiver that honours it
// keeps one copy whatever our retries send. Telegram has no such key: we deduplicate on our side (a
// message acknowledged is marked sent in the outbox before the next is sent, and never sent again; one that got no
// answer in time is resent once, not more: see Dispatcher).
import type { Channel } from './dispatcher.js';

async function post(
  url: string,
  body: unknown,
  o: { signal: AbortSignal; what: string; headers?: Record<string, string> },
): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...o.headers },
    body: JSON.stringify(body),
    signal: o.signal,
  });
  // Read the body so the connection is reused, but keep only the status.
  await res.arrayBuffer().catch(() => undefined);
  if (!res.ok) throw new Error(`${o.what} answered HTTP ${res.status}`);
}

export function webhookChannel(url: string): Channel {
  return {
    name: 'webhook',
    dedupes: true,
    send: (m, signal) =>
      post(
        url,
        { text: m.text, idempotencyKey: m.key },
        { signal, what: 'the webhook', headers: { 'idempotency-key': m.key } },
      ),
  };
}

/** The Bot API's URL of a method (the token is in its path: never log it). */
export function telegramMethodUrl(o: { botToken: string; apiBaseUrl: string }, method: string): string {
  return `${o.apiBaseUrl.replace(/\/+$/, '')}/bot${o.botToken}/${method}`;
}

export function telegramChannel(o: { botToken: string; chatId: string; apiBaseUrl: string }): Channel {
  const url = telegramMethodUrl(o, 'sendMessage');
  return {
    name: 'telegram',
    send: (m, signal) =>
      post(
        url,
        { chat_id: o.chatId, text: m.text, disable_web_page_preview: true },
        { signal, what: 'the Telegram Bot API' },
      ),
  };
}
