// The daemon's HTTP endpoints: /healthz (the process is up), /readyz (venue reachable, bots running,
// not all halted) and /metrics (Prometheus).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DaemonMetrics } from './metrics.js';

export interface Readiness {
  ready: boolean;
  detail: Record<string, unknown>;
}

export async function startHttp(o: {
  host: string;
  port: number;
  metrics: DaemonMetrics;
  readiness: () => Readiness;
}): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const url = (req.url ?? '/').split('?')[0];
    if (url === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    } else if (url === '/readyz') {
      const r = o.readiness();
      res
        .writeHead(r.ready ? 200 : 503, { 'content-type': 'application/json' })
        .end(JSON.stringify({ status: r.ready ? 'ready' : 'not ready', ...r.detail }));
    } else if (url === '/metrics') {
      o.metrics.registry
        .metrics()
        .then((text) => res.writeHead(200, { 'content-type': o.metrics.registry.contentType }).end(text))
        .catch((e: unknown) => res.writeHead(500).end(String(e)));
    } else {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end('{"error":"not found: try /healthz, /readyz or /metrics"}');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        e.code === 'EADDRINUSE'
          ? new Error(
              `the metrics port ${o.host}:${o.port} is already in use: stop the other process or set metrics.port in the configuration (0 picks a free port)`,
            )
          : e,
      ),
    );
    server.listen(o.port, o.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
