// A local stand-in for the Telegram Bot API (a wire we do not own) on a loopback port: getUpdates answers the
// messages `say` queued since the offset asked for (holding a long poll until one comes, at most 1 s), and
// sendMessage records what the bot wrote. A path with another token is answered 401, as Telegram does.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeTelegram {
  readonly baseUrl: string;
  /** What the bot sent, in order. */
  readonly sent: { chat_id: string; text: string }[];
  /** The offsets getUpdates was asked for, in order. */
  readonly offsets: number[];
  /** A user writes `text` in chat `chatId`. */
  say(chatId: number, text: string): void;
  close(): Promise<void>;
}

export async function startFakeTelegram(token: string): Promise<FakeTelegram> {
  const updates: {
    update_id: number;
    message: { message_id: number; chat: { id: number }; text: string };
  }[] = [];
  const waiting: (() => void)[] = [];
  const sent: { chat_id: string; text: string }[] = [];
  const offsets: number[] = [];
  let nextId = 500;
  const answer = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const m = /^\/bot([^/]+)\/(\w+)$/.exec(req.url ?? '');
      if (m?.[1] !== token)
        return answer(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      if (m[2] === 'sendMessage') {
        sent.push({ chat_id: String(body.chat_id), text: String(body.text) });
        return answer(res, 200, { ok: true, result: { message_id: sent.length } });
      }
      if (m[2] !== 'getUpdates')
        return answer(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
      const offset = Number(body.offset ?? 0);
      offsets.push(offset);
      const reply = () =>
        answer(res, 200, { ok: true, result: updates.filter((u) => u.update_id >= offset) });
      if (updates.some((u) => u.update_id >= offset) || Number(body.timeout ?? 0) === 0) return reply();
      let done = false;
      const once = () => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        reply();
      };
      const timer = setTimeout(once, 1000);
      waiting.push(once);
      res.on('close', () => (done = true));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    sent,
    offsets,
    say(chatId, text) {
      const id = nextId++;
      updates.push({ update_id: id, message: { message_id: id, chat: { id: chatId }, text } });
      for (const w of waiting.splice(0)) w();
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
