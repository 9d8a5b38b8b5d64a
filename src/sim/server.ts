// The simulator's HTTP server: node:http with keep-alive, the v3 API through the gateway, the admin
// API under /sim/, and fault injection (latency, 5xx, dropped sockets, malformed JSON, 429 bursts).
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fail } from '../api/index.js';
import { handleAdmin } from './admin.js';
import type { SimEngine } from './engine.js';
import { Gateway } from './gateway.js';

export interface ServerOptions {
  readonly port?: number | undefined;
  readonly host?: string | undefined;
  /** Serve the admin API (default: on when the host is loopback). */
  readonly admin?: boolean | undefined;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);
const MAX_BODY = 1 << 20;

/** A running simulator server. */
export interface RunningServer {
  readonly server: Server;
  readonly port: number;
  readonly host: string;
  readonly gateway: Gateway;
  close(): Promise<void>;
}

function send(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Readonly<Record<string, string>>,
): void {
  res.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** Starts the HTTP server for an engine. */
export async function serve(engine: SimEngine, opts: ServerOptions = {}): Promise<RunningServer> {
  const host = opts.host ?? '127.0.0.1';
  const admin = opts.admin ?? LOOPBACK.has(host);
  const gateway = new Gateway(engine);

  const onRequest = (req: IncomingMessage, res: ServerResponse, rawBody: string): void => {
    const url = req.url ?? '/';
    const qi = url.indexOf('?');
    const path = qi < 0 ? url : url.slice(0, qi);
    const rawQuery = qi < 0 ? '' : url.slice(qi + 1);
    const method = req.method ?? 'GET';
    if (path.startsWith('/sim/')) {
      if (!admin) {
        send(res, 404, JSON.stringify(fail('90404', 'the admin API is disabled', engine.now())), {
          'content-type': 'application/json',
        });
        return;
      }
      const r = handleAdmin(engine, gateway, method, path, rawQuery, rawBody);
      send(res, r.status, r.body, { 'content-type': 'application/json' });
      return;
    }
    gateway.received.set(path, (gateway.received.get(path) ?? 0) + 1);
    // The gateway's answer; `cut` keeps only the first half of its body (the injected malformed reply).
    const answer = (cut = false): void => {
      const r = gateway.handle({
        method,
        path,
        rawQuery,
        rawBody,
        headers: req.headers,
        ip: req.socket.remoteAddress ?? 'unknown',
      });
      send(
        res,
        r.status,
        cut ? r.body.slice(0, Math.max(1, Math.floor(r.body.length / 2))) : r.body,
        r.headers,
      );
    };
    if (!engine.faults.active) {
      answer();
      return;
    }
    const f = engine.faults.next();
    const act = (): void => {
      const now = engine.now();
      switch (f.action) {
        case 'drop':
          req.socket.destroy();
          return;
        case 'error': {
          const code = now % 2 === 0 ? '90015' : '90016';
          const status = code === '90015' ? 500 : 503;
          send(res, status, JSON.stringify(fail(code, 'Injected fault: system error', now)), {
            'content-type': 'application/json',
          });
          return;
        }
        case 'rate_limit':
          send(res, 429, JSON.stringify(fail('429', 'Too Many Requests (injected burst)', now)), {
            'content-type': 'application/json',
            'retry-after': '1',
          });
          return;
        case 'malformed':
          answer(true);
          return;
        default:
          answer();
      }
    };
    if (f.latencyMs > 0) setTimeout(act, f.latencyMs);
    else act();
  };

  const server = createServer({ keepAlive: true }, (req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        send(res, 413, JSON.stringify(fail('90017', 'request body too large', engine.now())), {
          'content-type': 'application/json',
        });
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (size > MAX_BODY) return;
      onRequest(req, res, Buffer.concat(chunks).toString('utf8'));
    });
  });
  server.keepAliveTimeout = 30_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    host,
    gateway,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
