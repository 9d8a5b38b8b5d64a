// The client's own cost per call, above a bare http.request on the same keep-alive loopback server,
// measured in the same run: a public GET of the simulator's 17-ticker SPOT list, a signed POST of an
// order, and a 500-ticker answer (about 170 kB). Prints µs per call above the bare request and, for the
// large answer, the overhead as a fraction of the bare request's own time.
//   npx tsx bench/client-overhead.ts [--calls 3000]
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { z } from 'zod';
import { ENDPOINTS, EnvelopeSchema, buildQueryString, sign, validateParams } from '../src/api/index.js';
import { RestClient } from '../src/client/index.js';
import { startSimulator } from '../src/sim/index.js';
import { numberFlag } from './lib/flags.js';

const CALLS = numberFlag('calls', 3000);
const CREDS = { apiKey: 'bench-key', apiSecret: 'bench-secret', passphrase: 'bench-pass' };

// Bodies: the simulator's own answers, captured once and then served verbatim by a bare server.
const sim = await startSimulator({ seed: 1, rateLimits: false, startTime: Date.UTC(2026, 10, 23, 15) });
const tickers17 = await (await fetch(`${sim.baseUrl}/api/v3/market/tickers?category=SPOT`)).text();
await sim.stop();
const one = (JSON.parse(tickers17) as { data: Record<string, string>[] }).data[0] as Record<string, string>;
const tickers500 = JSON.stringify({
  code: '00000',
  msg: 'success',
  requestTime: Date.now(),
  data: Array.from({ length: 500 }, (_, i) => ({ ...one, symbol: `SYM${i}USDT` })),
});
const ack = JSON.stringify({
  code: '00000',
  msg: 'success',
  requestTime: Date.now(),
  data: { orderId: '1300000000000000001', clientOid: 'bench-1' },
});

let large = false;
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const body = req.method === 'POST' ? ack : large ? tickers500 : tickers17;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.keepAliveTimeout = 30_000;
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const port = (server.address() as AddressInfo).port;
const baseUrl = `http://127.0.0.1:${port}`;

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
/** The baseline: http.request on keep-alive, body collected and decoded, nothing else. */
const bare = (method: 'GET' | 'POST', path: string, body = ''): Promise<string> =>
  new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers: body
          ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }
          : {},
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      },
    );
    req.on('error', reject);
    req.end(body);
  });

const client = new RestClient({ baseUrl, credentials: CREDS, rateLimit: false });
const order = {
  symbol: 'AAPLUSDT',
  side: 'buy',
  orderType: 'limit',
  qty: '1',
  price: '150.5',
  clientOid: 'bench-1',
} as const;

/**
 * µs per call of the bare request and of the client, rounds alternating between the two (the machine is
 * shared: alternating exposes both to the same load, and the best round of each is the least disturbed).
 */
async function pair(
  b: () => Promise<unknown>,
  c: () => Promise<unknown>,
  calls: number,
): Promise<[number, number]> {
  for (let i = 0; i < Math.min(500, calls); i++) {
    await b();
    await c();
  }
  const best = [Infinity, Infinity];
  for (let round = 0; round < 10; round++) {
    for (const [k, f] of [b, c].entries()) {
      const t = performance.now();
      for (let i = 0; i < calls; i++) await f();
      best[k] = Math.min(best[k] as number, ((performance.now() - t) * 1000) / calls);
    }
  }
  return best as [number, number];
}

const row = (what: string, b: number, c: number) =>
  console.log(
    `${what.padEnd(34)} bare ${b.toFixed(1).padStart(7)} µs  client ${c.toFixed(1).padStart(7)} µs  overhead ${(c - b).toFixed(1).padStart(6)} µs  (${((c - b) / b).toFixed(2)}x of bare)`,
  );

console.log(`calls per round: ${CALLS}, best of 10 alternating rounds, keep-alive, loopback`);
const [bGet, cGet] = await pair(
  () => bare('GET', '/api/v3/market/tickers?category=SPOT'),
  () => client.tickers({ category: 'SPOT' }),
  CALLS,
);
row('public GET, 17 tickers', bGet, cGet);
const [bPost, cPost] = await pair(
  () => bare('POST', '/api/v3/trade/place-reality-order', JSON.stringify(order)),
  () => client.placeRealityOrder(order),
  CALLS,
);
row('signed POST, place-reality-order', bPost, cPost);
large = true;
const [bBig, cBig] = await pair(
  () => bare('GET', '/api/v3/market/tickers?category=SPOT'),
  () => client.tickers({ category: 'SPOT' }),
  CALLS / 10,
);
row(`public GET, 500 tickers (${(tickers500.length / 1024).toFixed(0)} kB)`, bBig, cBig);
console.log(
  `targets: GET overhead <= 10 µs: ${cGet - bGet <= 10 ? 'met' : 'NOT met'}; POST overhead <= 15 µs: ${cPost - bPost <= 15 ? 'met' : 'NOT met'}; 500 tickers <= 0.3x: ${(cBig - bBig) / bBig <= 0.3 ? 'met' : 'NOT met'}`,
);

// Where the client's time goes, stage by stage, in-process (no network): the profile of what is left.
const stage = (what: string, f: () => unknown, n: number) => {
  for (let i = 0; i < Math.min(200, n); i++) f();
  let best = Infinity;
  for (let r = 0; r < 5; r++) {
    const t = performance.now();
    for (let i = 0; i < n; i++) f();
    best = Math.min(best, ((performance.now() - t) * 1000) / n);
  }
  console.log(`  ${what.padEnd(48)} ${best.toFixed(2).padStart(8)} µs`);
};
console.log('stages (in-process, best of 5):');
const tickersSchema = ENDPOINTS.tickers.response as z.ZodType;
for (const [label, text, n] of [
  ['17 tickers', tickers17, 2000],
  ['500 tickers', tickers500, 100],
] as const) {
  const json = JSON.parse(text) as { data: unknown };
  stage(`JSON.parse, ${label}`, () => JSON.parse(text), n);
  stage(`envelope schema, ${label}`, () => EnvelopeSchema.safeParse(json), n);
  stage(`response schema (zod), ${label}`, () => tickersSchema.safeParse(json.data), n);
}
const wire = { ...order };
stage('validate place-reality-order params', () => validateParams('placeRealityOrder', wire), 5000);
stage('query string (tickers)', () => buildQueryString({ category: 'SPOT' }), 5000);
stage(
  'sign (HMAC-SHA256)',
  () => sign(CREDS.apiSecret, '1767225600000', 'POST', '/x', '', JSON.stringify(wire)),
  5000,
);

client.close();
agent.destroy();
server.close();
