// The two targets, over fetch: a webhook (JSON POST {"text": ...}, what Slack's incoming webhooks and
// most chat bridges take) and Telegram's Bot API (sendMessage). A non-2xx answer is a failure; the
// answer's body is never logged (it may echo what was sent).
import type { Channel } from './dispatcher.js';

async function post(url: string, body: unknown, signal: AbortSignal, what: string): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
  // Read the body so the connection is reused, but keep only the status.
  await res.arrayBuffer().catch(() => undefined);
  if (!res.ok) throw new Error(`${what} answered HTTP ${res.status}`);
}

export function webhookChannel(url: string): Channel {
  return { name: 'webhook', send: (text, signal) => post(url, { text }, signal, 'the webhook') };
}

export function telegramChannel(o: { botToken: string; chatId: string; apiBaseUrl: string }): Channel {
  const url = `${o.apiBaseUrl.replace(/\/+$/, '')}/bot${o.botToken}/sendMessage`;
  return {
    name: 'telegram',
    send: (text, signal) =>
      post(url, { chat_id: o.chatId, text, disable_web_page_preview: true }, signal, 'the Telegram Bot API'),
  };
}
