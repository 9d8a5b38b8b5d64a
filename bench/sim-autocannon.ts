// The simulator's tickers list against a bare node:http server answering the same bytes, each server in
// a process of its own (the simulator is the real `tradebot sim` command, built when dist/ exists) and
// the load from a third (autocannon's CLI), so no two share an event loop, unlike bench/sim-throughput.ts.
// Prints req/s, p99 and the ratio, measured in one run.
//   npx tsx bench/sim-autocannon.ts [--connections 10] [--seconds 5]
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { numberFlag } from './lib/flags.js';

const CONNECTIONS = numberFlag('connections', 10);
const SECONDS = numberFlag('seconds', 5);
const PATH = '/api/v3/market/tickers?category=SPOT';
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const autocannon = join(root, 'node_modules', 'autocannon', 'autocannon.js');
const built = join(root, 'dist', 'src', 'cli', 'main.js');
const tradebot = existsSync(built) ? [built] : ['--import', 'tsx', join(root, 'src', 'cli', 'main.ts')];

interface Result {
  requests: { average: number };
  latency: { p99: number };
  non2xx: number;
  errors: number;
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
function load(url: string, seconds: number): Promise<Result> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [
      autocannon,
      '-c',
      String(CONNECTIONS),
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
const body = await (await fetch(simUrl + PATH)).text();
// The baseline: a bare node:http server in its own process, answering the simulator's bytes verbatim.
const bareScript = `
const http = require('node:http');
const body = Buffer.from(process.env.BODY);
const s = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
  res.end(body);
});
s.keepAliveTimeout = 30000;
s.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + s.address().port));`;
process.env.BODY = body;
const bare = await start(['-e', bareScript], /listening on (http:\/\/\S+)/);
const bareUrl = bare.match[1] as string;

try {
  await load(bareUrl + PATH, 1);
  await load(simUrl + PATH, 1);
  const b = await load(bareUrl + PATH, SECONDS);
  const s = await load(simUrl + PATH, SECONDS);
  console.log(
    `tickers list (${body.length} bytes), ${CONNECTIONS} connections, ${SECONDS} s each; servers and autocannon in separate processes`,
  );
  console.log(
    `baseline (bare node:http, same bytes): ${b.requests.average.toFixed(0)} req/s, p99 ${b.latency.p99} ms`,
  );
  console.log(
    `simulator (tradebot sim): ${s.requests.average.toFixed(0)} req/s, p99 ${s.latency.p99} ms (${s.non2xx} non-2xx, ${s.errors} errors)`,
  );
  const ratio = s.requests.average / b.requests.average;
  console.log(
    `ratio simulator/baseline: ${ratio.toFixed(3)} (target >= 0.5: ${ratio >= 0.5 ? 'met' : 'NOT met'})`,
  );
} finally {
  sim.proc.removeAllListeners('exit');
  bare.proc.removeAllListeners('exit');
  sim.proc.kill('SIGTERM');
  bare.proc.kill('SIGTERM');
}
