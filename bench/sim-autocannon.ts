// The simulator's tickers list against a bare node:http server answering the same bytes, with the load
// generated from another process (autocannon's CLI, so the load generator never shares the servers'
// event loop, unlike bench/sim-throughput.ts). Prints req/s, p99 and the ratio, measured in one run.
//   npx tsx bench/sim-autocannon.ts [--connections 10] [--seconds 5]
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSimulator } from '../src/sim/index.js';
import { numberFlag } from './lib/flags.js';

const CONNECTIONS = numberFlag('connections', 10);
const SECONDS = numberFlag('seconds', 5);
const PATH = '/api/v3/market/tickers?category=SPOT';
const cli = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'node_modules',
  'autocannon',
  'autocannon.js',
);

interface Result {
  requests: { average: number };
  latency: { p99: number };
  non2xx: number;
  errors: number;
}

/** Runs autocannon in a child process (the servers keep answering meanwhile); its JSON summary. */
async function loadAsync(url: string, seconds: number): Promise<Result> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [cli, '-c', String(CONNECTIONS), '-d', String(seconds), '-j', url]);
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as Result) : reject(new Error(err))));
  });
}

const sim = await startSimulator({ seed: 1, rateLimits: false, startTime: Date.UTC(2026, 10, 23, 15) });
const body = await (await fetch(sim.baseUrl + PATH)).text();
const base = http.createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
base.keepAliveTimeout = 30_000;
await new Promise<void>((r) => base.listen(0, '127.0.0.1', r));
const baseUrl = `http://127.0.0.1:${(base.address() as AddressInfo).port}`;

await loadAsync(baseUrl + PATH, 1);
await loadAsync(sim.baseUrl + PATH, 1);
const b = await loadAsync(baseUrl + PATH, SECONDS);
const s = await loadAsync(sim.baseUrl + PATH, SECONDS);
console.log(
  `tickers list (${body.length} bytes), ${CONNECTIONS} connections, ${SECONDS} s each, autocannon in another process`,
);
console.log(
  `baseline (bare node:http, same bytes): ${b.requests.average.toFixed(0)} req/s, p99 ${b.latency.p99} ms`,
);
console.log(
  `simulator: ${s.requests.average.toFixed(0)} req/s, p99 ${s.latency.p99} ms (${s.non2xx} non-2xx, ${s.errors} errors)`,
);
const ratio = s.requests.average / b.requests.average;
console.log(
  `ratio simulator/baseline: ${ratio.toFixed(3)} (target >= 0.5: ${ratio >= 0.5 ? 'met' : 'NOT met'})`,
);
base.close();
await sim.stop();
