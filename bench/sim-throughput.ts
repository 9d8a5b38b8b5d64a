// Public-endpoint throughput of the simulator on loopback with keep-alive, beside a baseline measured
// in the same run: a bare node:http server answering a fixed body of the same size. Prints requests/s
// and the ratio (the machines are noisy; only the ratio is comparable across runs).
//   npx tsx bench/sim-throughput.ts [--requests 20000] [--concurrency 16]
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSimulator } from '../src/sim/index.js';
import { numberFlag } from './lib/flags.js';

const REQUESTS = numberFlag('requests', 20_000);
const CONCURRENCY = numberFlag('concurrency', 16);
const MAX_MS = 60_000;

async function load(baseUrl: string, paths: readonly string[]): Promise<{ rps: number; ok: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  let next = 0;
  let ok = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < REQUESTS && performance.now() - started < MAX_MS) {
      const path = paths[next++ % paths.length] as string;
      await new Promise<void>((resolve, reject) => {
        http
          .get(baseUrl + path, { agent }, (res) => {
            res.resume();
            res.on('end', () => {
              if (res.statusCode === 200) ok++;
              resolve();
            });
          })
          .on('error', reject);
      });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const secs = (performance.now() - started) / 1000;
  agent.destroy();
  return { rps: next / secs, ok };
}

const PATHS = [
  '/api/v3/market/tickers?category=SPOT&symbol=AAPLUSDT',
  '/api/v3/market/candles?category=SPOT&interval=1m&limit=100&symbol=BTCUSDT',
  '/api/v3/market/orderbook?category=SPOT&limit=50&symbol=BTCUSDT',
];

const sim = await startSimulator({ seed: 1, rateLimits: false, startTime: Date.UTC(2026, 10, 23, 15) });
// Baseline bodies: the simulator's own answers, captured once, served verbatim.
const bodies = await Promise.all(PATHS.map(async (p) => (await fetch(sim.baseUrl + p)).text()));
const base = http.createServer((req, res) => {
  const i = PATHS.indexOf(req.url ?? '');
  const body = bodies[i < 0 ? 0 : i] as string;
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
await new Promise<void>((r) => base.listen(0, '127.0.0.1', r));
const baseUrl = `http://127.0.0.1:${(base.address() as AddressInfo).port}`;

// Warm up both, then measure alternately.
await load(baseUrl, PATHS);
await load(sim.baseUrl, PATHS);
const b = await load(baseUrl, PATHS);
const s = await load(sim.baseUrl, PATHS);
console.log(`requests: ${REQUESTS} per server, concurrency ${CONCURRENCY}, keep-alive, loopback`);
console.log(`baseline (bare node:http, same bodies): ${b.rps.toFixed(0)} req/s`);
console.log(`simulator (tickers, candles, orderbook): ${s.rps.toFixed(0)} req/s (${s.ok} answered 200)`);
console.log(`ratio simulator/baseline: ${(s.rps / b.rps).toFixed(3)}`);
base.close();
await sim.stop();
