// The simulator's public market answers (tickers list, candles, order book) against a bare node:http server
// answering the same bytes, each server in a process of its own (the simulator is the real `tradebot sim`
// command, built when dist/ exists) and the load from a third (autocannon's CLI), so no two share an event
// loop, unlike bench/sim-throughput.ts. Each (endpoint, connections) cell times the baseline then the
// simulator back to back and prints both, their ratio, p99 and the simulator's non-2xx.
// The simulator runs with --no-rate-limits, as this bench always has: its public endpoints allow 20
// requests per second per IP (spec section 8), so with them on nearly every answer would be a 429. Only 2xx
// answers count towards the simulator's req/s.
//   npx tsx bench/sim-autocannon.ts [--connections 1,10,50] [--seconds 5] [--only tickers,candles,orderbook]
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { numberFlag } from './lib/flags.js';

/** The comma-separated list after `--name`, or `def`. */
function listFlag(name: string, def: readonly string[]): string[] {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? String(process.argv[i + 1]).split(',') : [...def];
}

const CONNECTIONS = listFlag('connections', ['1', '10', '50']).map(Number);
const SECONDS = numberFlag('seconds', 5);
// Spec 4.1: the tickers of a category, the latest 100 one-minute candles of a symbol, its order book at the
// default depth (5 levels).
const ENDPOINTS: Readonly<Record<string, string>> = {
  tickers: '/api/v3/market/tickers?category=SPOT',
  candles: '/api/v3/market/candles?category=SPOT&symbol=BTCUSDT&interval=1m&limit=100',
  orderbook: '/api/v3/market/orderbook?category=SPOT&symbol=BTCUSDT',
};
const ONLY = listFlag('only', Object.keys(ENDPOINTS));
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const autocannon = join(root, 'node_modules', 'autocannon', 'autocannon.js');
const built = join(root, 'dist', 'src', 'cli', 'main.js');
const tradebot = existsSync(built) ? [built] : ['--import', 'tsx', join(root, 'src', 'cli', 'main.ts')];

interface Result {
  latency: { p99: number };
  '2xx': number;
  non2xx: number;
  errors: number;
  duration: number;
}

/** Runs a node process and resolves with its stdout once it matches `ready`. */
function start(args: string[], ready: RegExp): Promise<{ proc: ChildProcess; match: RegExpMatchArray }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = out.match(ready);
      if (m) resolve({ proc, match: m });
    });
    proc.on('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}`)));
  });
}

/** Runs autocannon in a child process; its JSON summary. */
function load(url: string, connections: number, seconds: number): Promise<Result> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [
      autocannon,
      '-c',
      String(connections),
      '-d',
      String(seconds),
      '-j',
      url,
    ]);
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as Result) : reject(new Error(err))));
  });
}

/** 2xx answers per second: a 429 or any other error answer is not a success. */
const okPerSecond = (r: Result): number => r['2xx'] / r.duration;

const sim = await start(
  [
    ...tradebot,
    'sim',
    '--port',
    '0',
    '--seed',
    '1',
    '--no-rate-limits',
    '--start-time',
    '2026-11-23T15:00:00Z',
  ],
  /listening on (http:\/\/\S+)/,
);
const simUrl = sim.match[1] as string;
// The simulator's bytes per path, captured once: the baseline answers them verbatim.
const bodies: Record<string, string> = {};
for (const name of ONLY) {
  const path = ENDPOINTS[name];
  if (path === undefined)
    throw new Error(`--only: no endpoint ${name} (${Object.keys(ENDPOINTS).join(', ')})`);
  const res = await fetch(simUrl + path);
  if (res.status !== 200) throw new Error(`${path}: the simulator answered ${res.status}`);
  bodies[path] = await res.text();
}
// The baseline: a bare node:http server in its own process, answering the simulator's bytes by URL.
const bareScript = `
const http = require('node:http');
const bodies = new Map(Object.entries(JSON.parse(process.env.BODIES)).map(([k, v]) => [k, Buffer.from(v)]));
const s = http.createServer((req, res) => {
  const body = bodies.get(req.url);
  if (!body) { res.writeHead(404); res.end(); return; }
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
  res.end(body);
});
s.keepAliveTimeout = 30000;
s.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + s.address().port));`;
process.env.BODIES = JSON.stringify(bodies);
const bare = await start(['-e', bareScript], /listening on (http:\/\/\S+)/);
const bareUrl = bare.match[1] as string;

try {
  console.log(
    `${SECONDS} s per cell, baseline (bare node:http, the same bytes) then simulator (tradebot sim --no-rate-limits); ` +
      `servers and autocannon in separate processes; req/s counts 2xx answers only`,
  );
  console.log('endpoint   bytes  conns  bare req/s  sim req/s  ratio  bare p99  sim p99  sim non-2xx+err');
  for (const name of ONLY) {
    const path = ENDPOINTS[name] as string;
    await load(bareUrl + path, 10, 1);
    await load(simUrl + path, 10, 1);
    for (const c of CONNECTIONS) {
      const b = await load(bareUrl + path, c, SECONDS);
      const s = await load(simUrl + path, c, SECONDS);
      const ratio = okPerSecond(s) / okPerSecond(b);
      console.log(
        [
          name.padEnd(9),
          String(bodies[path]?.length).padStart(6),
          String(c).padStart(6),
          okPerSecond(b).toFixed(0).padStart(11),
          okPerSecond(s).toFixed(0).padStart(10),
          ratio.toFixed(3).padStart(6),
          `${b.latency.p99} ms`.padStart(9),
          `${s.latency.p99} ms`.padStart(8),
          String(s.non2xx + s.errors).padStart(16),
        ].join(' '),
      );
    }
  }
} finally {
  sim.proc.removeAllListeners('exit');
  bare.proc.removeAllListeners('exit');
  sim.proc.kill('SIGTERM');
  bare.proc.kill('SIGTERM');
}
