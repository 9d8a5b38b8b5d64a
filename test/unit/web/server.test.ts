// The dashboard's doors, through fastify's inject (the same routes and hooks a socket reaches): every
// control call and the stream refused without the token or with a wrong one, read-only without a
// configured token, foreign origins refused, bodies validated, a non-loopback address without a token
// refused, and the token never in the page.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardSchema } from '../../../src/config/index.js';
import { Decimal } from '../../../src/market/decimal.js';
import { CONTROL_ACTIONS, openStore, type Store } from '../../../src/store/index.js';
import { openApiDocument, startDashboard, type Dashboard } from '../../../src/web/index.js';

const TOKEN = 'dashboard-test-token-5f1c9a7e';
const dir = mkdtempSync(join(tmpdir(), 'tradebot-web-'));
let store: Store;
beforeAll(() => {
  store = openStore(join(dir, 'j.db'));
});
afterAll(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function dashboard(token: string | undefined, host = '127.0.0.1'): Promise<Dashboard> {
  return startDashboard({
    config: DashboardSchema.parse({ enabled: true, host, port: 0, ...(token ? { token } : {}) }),
    bots: () => [],
    store,
  });
}
const post = (d: Dashboard, path: string, o: { token?: string; origin?: string; body?: unknown } = {}) =>
  d.app.inject({
    method: 'POST',
    url: path,
    headers: {
      'content-type': 'application/json',
      ...(o.token === undefined ? {} : { authorization: `Bearer ${o.token}` }),
      ...(o.origin === undefined ? {} : { origin: o.origin }),
    },
    payload: JSON.stringify(o.body ?? { reason: 'test' }),
  });

describe('dashboard with a token', () => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await dashboard(TOKEN);
  });
  afterAll(() => d.close());

  it('refuses every control call without the token and with a wrong one (401, a sentence), and lets the right one through', async () => {
    for (const action of CONTROL_ACTIONS) {
      const path = `/api/bots/aapl-ma/${action}`;
      for (const token of [undefined, 'wrong-token-wrong-token', `${TOKEN}x`, TOKEN.slice(0, -1)]) {
        const r = await post(d, path, token === undefined ? {} : { token });
        expect(r.statusCode, `${action} with ${String(token)}`).toBe(401);
        expect(r.headers['www-authenticate']).toMatch(/^Bearer/);
        expect(r.json<{ error: string }>().error).toMatch(/needs Authorization: Bearer <token>/);
      }
      // The right token passes the door: this dashboard has no bot of that name.
      const ok = await post(d, path, { token: TOKEN });
      expect(ok.statusCode).toBe(404);
      expect(ok.json<{ error: string }>().error).toMatch(/no bot named aapl-ma/);
    }
  });

  it('refuses the event stream and the state without the token', async () => {
    for (const url of ['/api/events', '/api/bots', '/api/bots/aapl-ma']) {
      expect((await d.app.inject({ url })).statusCode).toBe(401);
      expect(
        (await d.app.inject({ url, headers: { authorization: 'Bearer not-the-token-at-all' } })).statusCode,
      ).toBe(401);
    }
    const ok = await d.app.inject({ url: '/api/bots', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({
      readOnly: false,
      bots: [],
      deploymentBook: { fills: 0, positions: [] },
    });
  });

  it("shows the deployment's book: the account's fills no bot's order matched, with their net", async () => {
    const D = (s: string) => new Decimal(s);
    const row = (execId: string, side: 'buy' | 'sell', size: string) => ({
      execId,
      symbol: 'XAAAUSDT',
      baseCoin: 'XAAA',
      quoteCoin: 'USDT',
      side,
      price: D('10'),
      size: D(size),
      fee: D('0.01'),
      feeCoin: 'USDT',
      ts: 1,
    });
    store.fills.insertFill(row('d1/1', 'buy', '1.5'));
    store.fills.insertFill(row('d1', 'buy', '0.25'));
    store.fills.insertFill({ ...row('mine', 'buy', '7'), bot: 'aapl-ma' });
    store.fills.insertFill(row('d2', 'sell', '0.5'));
    const ok = await d.app.inject({ url: '/api/bots', headers: { authorization: `Bearer ${TOKEN}` } });
    expect((ok.json() as { deploymentBook: unknown }).deploymentBook).toEqual({
      fills: 3,
      positions: [{ symbol: 'XAAAUSDT', baseCoin: 'XAAA', quantity: '1.25' }],
    });
  });

  it('refuses a control call from another origin, even with the token (CSRF)', async () => {
    const foreign = await post(d, '/api/bots/a/pause', { token: TOKEN, origin: 'http://evil.example' });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json<{ error: string }>().error).toMatch(/comes from another site/);
    const own = await post(d, '/api/bots/a/pause', { token: TOKEN, origin: `http://localhost:80` });
    // inject sends Host: localhost:80, so that is the dashboard's own origin.
    expect(own.statusCode).toBe(404);
    // A form post (what a foreign page can send without CORS) never reaches a handler either.
    const form = await d.app.inject({
      method: 'POST',
      url: '/api/bots/a/pause',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'reason=x',
    });
    expect(form.statusCode).toBe(415);
  });

  it('validates control bodies with a sentence that names the field', async () => {
    const cases: [unknown, RegExp][] = [
      [{}, /must have required property 'reason'/],
      [{ reason: '' }, /reason must NOT have fewer than 1 characters/],
      [{ reason: 'x', symbol: 'aapl; drop' }, /symbol must match pattern/],
      [{ reason: 'x', extra: 1 }, /must NOT have additional properties/],
      [{ reason: 42 }, /reason must be string/],
    ];
    for (const [body, re] of cases) {
      const r = await post(d, '/api/bots/a/flatten', { token: TOKEN, body });
      expect(r.statusCode, JSON.stringify(body)).toBe(400);
      expect(r.json<{ error: string }>().error).toMatch(re);
    }
    // Bodies that are not the JSON object asked for: each said for what it is, never called what it is not.
    const raw: [string, RegExp][] = [
      ['{"reason":"x","__proto__":{"admin":true}}', /the body has a key "__proto__", which is refused/],
      [
        '{"reason":"x","constructor":{"prototype":{"a":1}}}',
        /the body has a key "constructor.prototype", which is refused/,
      ],
      ['{"reason":"x",', /the body is not valid JSON \(.+\); send a JSON body such as \{"reason": "why"\}/],
      ['', /the body is empty; send a JSON body such as \{"reason": "why"\}/],
    ];
    for (const [payload, re] of raw) {
      const r = await d.app.inject({
        method: 'POST',
        url: '/api/bots/a/pause',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
        payload,
      });
      expect(r.statusCode, payload).toBe(400);
      expect(r.json<{ error: string }>().error, payload).toMatch(re);
    }
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('serves the page and its script without the token in them, under a CSP without inline scripts', async () => {
    const page = await d.app.inject({ url: '/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toMatch(/script-src 'self'/);
    const script = await d.app.inject({ url: '/assets/dashboard.js' });
    const chart = await d.app.inject({ url: '/assets/lightweight-charts.js' });
    expect(chart.statusCode).toBe(200);
    expect(chart.body).toContain('LightweightCharts');
    for (const body of [page.body, script.body]) expect(body).not.toContain(TOKEN);
    expect(script.body).not.toMatch(/innerHTML/);
  });

  it('serves the OpenAPI description, which is the one checked into docs/', async () => {
    const r = await d.app.inject({ url: '/api/openapi.json' });
    expect(r.statusCode).toBe(200);
    const doc = r.json<{ paths: Record<string, unknown> }>();
    for (const a of CONTROL_ACTIONS) expect(doc.paths).toHaveProperty(`/api/bots/{name}/${a}`);
    const checkedIn: unknown = JSON.parse(readFileSync('docs/dashboard-openapi.json', 'utf8'));
    expect(checkedIn, 'docs/dashboard-openapi.json is stale: run npm run openapi').toEqual(openApiDocument());
  });
});

describe('dashboard without a token', () => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await dashboard(undefined);
  });
  afterAll(() => d.close());

  it('is read-only: the state answers redacted, the stream and every control call are refused with 403 and a sentence', async () => {
    const state = await d.app.inject({ url: '/api/bots' });
    expect(state.statusCode).toBe(200);
    expect(state.json()).toMatchObject({ readOnly: true });
    const stream = await d.app.inject({ url: '/api/events' });
    expect(stream.statusCode).toBe(403);
    // What the page polls for the curves instead of the stream; a bad `since` is a sentence.
    const equity = await d.app.inject({ url: '/api/equity?since=0' });
    expect(equity.statusCode).toBe(200);
    expect(equity.json()).toEqual({ equity: {} });
    const bad = await d.app.inject({ url: '/api/equity?since=yesterday' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json<{ error: string }>().error).toMatch(/since is a venue time in whole Unix seconds/);
    for (const action of CONTROL_ACTIONS)
      for (const token of [undefined, TOKEN]) {
        const r = await post(d, `/api/bots/a/${action}`, token === undefined ? {} : { token });
        expect(r.statusCode).toBe(403);
        expect(r.json<{ error: string }>().error).toMatch(/read-only: no dashboard.token is configured/);
      }
  });

  it('refuses to listen on a non-loopback address', async () => {
    await expect(dashboard(undefined, '0.0.0.0')).rejects.toThrow(/without a token/);
  });
});
