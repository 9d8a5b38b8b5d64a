// A real HTTP server on a loopback port that records what a client sends and answers from a script:
// the wire is crossed for real, nothing is mocked.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  readonly method: string;
  readonly url: string;
  readonly path: string;
  readonly query: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
  readonly socketPort: number;
}

export interface ScriptedAnswer {
  readonly status?: number;
  readonly headers?: Record<string, string>;
  /** Raw body text (used as is), or a value sent as JSON. */
  readonly body?: unknown;
  /** Destroy the socket instead of answering. */
  readonly drop?: boolean;
  /** Never answer (for timeouts). */
  readonly hang?: boolean;
}

export interface RecordingServer {
  readonly baseUrl: string;
  readonly requests: Recorded[];
  /** Answers are taken in order; when the script runs out, `fallback` answers. */
  script(...answers: ScriptedAnswer[]): void;
  fallback: (req: Recorded) => ScriptedAnswer;
  close(): Promise<void>;
}

export const envelope = (data: unknown, requestTime = 1_700_000_000_000) => ({
  code: '00000',
  msg: 'success',
  requestTime,
  data,
});

export async function startRecordingServer(): Promise<RecordingServer> {
  const requests: Recorded[] = [];
  const queue: ScriptedAnswer[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = req.url ?? '';
      const q = url.indexOf('?');
      const rec: Recorded = {
        method: req.method ?? '',
        url,
        path: q < 0 ? url : url.slice(0, q),
        query: q < 0 ? '' : url.slice(q + 1),
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        socketPort: req.socket.remotePort ?? 0,
      };
      requests.push(rec);
      const a = queue.shift() ?? rs.fallback(rec);
      if (a.drop) {
        req.socket.destroy();
        return;
      }
      if (a.hang) return;
      const text = typeof a.body === 'string' ? a.body : JSON.stringify(a.body ?? envelope(null));
      res.writeHead(a.status ?? 200, { 'content-type': 'application/json', ...a.headers });
      res.end(text);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const rs: RecordingServer = {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    script: (...answers) => queue.push(...answers),
    fallback: () => ({ body: envelope(null) }),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  return rs;
}
