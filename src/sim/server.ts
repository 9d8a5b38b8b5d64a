// The simulator's HTTP server: node:http with keep-alive, the v3 API through the gateway, the admin
// API under /sim/, and fault injection (latency, 5xx, dropped sockets, malformed JSON, 429 bursts).
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fail } from '../api/index.js';
import { handleAdmin } from './admin.js';
import type { SimEngine } from './engine.js';
import type { FaultAction } from './faults.js';
import type { GatewayResponse } from './gateway.js';
import { Gateway } from './gateway.js';

export interface ServerOptions {
  readonly port?: number | undefined;
  readonly host?: string | undefined;
  /** Serve the admin API (default: on when the host is loopback). */
  readonly admin?: boolean | undefined;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);
const MAX_BODY = 1 << 20;
const JSON_TYPE = { 'content-type': 'application/json' } as const;

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

/**
 * The UTF-8 bytes of a gateway answer, encoded once per answer object: a market answer the gateway keeps
 * for its millisecond is sent to every poller of that millisecond, and a Buffer goes to the socket as is.
 */
const encoded = new WeakMap<GatewayResponse, Buffer>();

function sendAnswer(res: ServerResponse, r: GatewayResponse): void {
  let bytes = encoded.get(r);
  if (bytes === undefined) {
    bytes = Buffer.from(r.body);
    encoded.set(r, bytes);
  }
  res.writeHead(r.status, { ...r.headers, 'content-length': bytes.length });
  res.end(bytes);
}

/** An answer in the venue's error envelope. */
function sendFail(
  res: ServerResponse,
  status: number,
  fault: { code: string; msg: string; now: number },
  extra: Readonly<Record<string, string>> = {},
): void {
  send(res, status, JSON.stringify(fail(fault.code, fault.msg, fault.now)), { ...JSON_TYPE, ...extra });
}

/** What a request is answered by. */
interface Site {
  readonly engine: SimEngine;
  readonly gateway: Gateway;
  /** Whether the admin API is served. */
  readonly admin: boolean;
}

/**
 * Acts out one drawn fault at `now`: a dropped socket, an injected 5xx or 429, or the real answer, whole
 * or cut (`answer(true)`).
 */
function actOut(
  action: FaultAction,
  now: number,
  req: IncomingMessage,
  res: ServerResponse,
  answer: (cut?: boolean) => void,
): void {
  switch (action) {
    case 'drop':
      req.socket.destroy();
      return;
    case 'error': {
      const code = now % 2 === 0 ? '90015' : '90016';
      const status = code === '90015' ? 500 : 503;
      sendFail(res, status, { code, msg: 'Injected fault: system error', now });
      return;
    }
    case 'rate_limit':
      sendFail(
        res,
        429,
        { code: '429', msg: 'Too Many Requests (injected burst)', now },
        { 'retry-after': '1' },
      );
      return;
    case 'malformed':
      answer(true);
      return;
    default:
      answer();
  }
}

/** One request with its whole body: the admin API under /sim/, else the gateway, through any faults set. */
function onRequest(site: Site, req: IncomingMessage, res: ServerResponse, rawBody: string): void {
  const { engine, gateway } = site;
  const url = req.url ?? '/';
  const qi = url.indexOf('?');
  const path = qi < 0 ? url : url.slice(0, qi);
  const rawQuery = qi < 0 ? '' : url.slice(qi + 1);
  const method = req.method ?? 'GET';
  if (path.startsWith('/sim/')) {
    if (!site.admin) {
      sendFail(res, 404, { code: '90404', msg: 'the admin API is disabled', now: engine.now() });
      return;
    }
    const r = handleAdmin(engine, gateway, method, path, rawQuery, rawBody);
    send(res, r.status, r.body, JSON_TYPE);
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
    if (cut) send(res, r.status, r.body.slice(0, Math.max(1, Math.floor(r.body.length / 2))), r.headers);
    else sendAnswer(res, r);
  };
  if (!engine.faults.active) {
    answer();
    return;
  }
  const f = engine.faults.next();
  const act = (): void => actOut(f.action, engine.now(), req, res, answer);
  if (f.latencyMs > 0) setTimeout(act, f.latencyMs);
  else act();
}

/** Collects a request's body, refusing one over MAX_BODY with a 413, then hands it on. */
function readBody(
  engine: SimEngine,
  req: IncomingMessage,
  res: ServerResponse,
  then: (body: string) => void,
): void {
  // Without Content-Length or Transfer-Encoding a request has no body (RFC 9112 6.3): most GETs are answered
  // at once instead of a tick later, at the end of an empty stream (which node drains after the answer).
  const length = req.headers['content-length'];
  if (req.headers['transfer-encoding'] === undefined && (length === undefined || length === '0')) {
    then('');
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (c: Buffer) => {
    size += c.length;
    if (size > MAX_BODY) {
      sendFail(res, 413, { code: '90017', msg: 'request body too large', now: engine.now() });
      req.destroy();
      return;
    }
    chunks.push(c);
  });
  req.on('end', () => {
    if (size > MAX_BODY) return;
    then(Buffer.concat(chunks).toString('utf8'));
  });
}

/** Starts the HTTP server for an engine. */
export async function serve(engine: SimEngine, opts: ServerOptions = {}): Promise<RunningServer> {
  const host = opts.host ?? '127.0.0.1';
  const admin = opts.admin ?? LOOPBACK.has(host);
  const gateway = new Gateway(engine);
  const site: Site = { engine, gateway, admin };
  const server = createServer({ keepAlive: true }, (req, res) =>
    readBody(engine, req, res, (body) => onRequest(site, req, res, body)),
  );
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
