// The dashboard's read routes: the page and its assets, the OpenAPI document, the bots' state, the equity
// curves and the live event stream. Who may call them is decided before, by auth.ts's door.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { DashboardState } from './dashboard-state.js';
import { EquityQuerySchema, openApiDocument } from './openapi.js';
import { DASHBOARD_HTML, DASHBOARD_SCRIPT, DASHBOARD_CSP } from './page.js';
import { REFUSALS, refuse } from './refusals.js';

const lightweightCharts = (): string => {
  // The package exports only ESM entry points and its package.json; the standalone build sits in dist/.
  const pkg = createRequire(import.meta.url).resolve('lightweight-charts/package.json');
  return readFileSync(join(dirname(pkg), 'dist', 'lightweight-charts.standalone.production.js'), 'utf8');
};

const securityHeaders = (reply: FastifyReply): FastifyReply =>
  reply
    .header('content-security-policy', DASHBOARD_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-store');

/** The page and its scripts: static, no token in them. */
function pageRoutes(app: FastifyInstance): void {
  const chartLib = lightweightCharts();
  app.get('/', async (_req, reply) =>
    securityHeaders(reply).type('text/html; charset=utf-8').send(DASHBOARD_HTML),
  );
  app.get('/assets/dashboard.js', async (_req, reply) =>
    securityHeaders(reply).type('text/javascript; charset=utf-8').send(DASHBOARD_SCRIPT),
  );
  app.get('/assets/lightweight-charts.js', async (_req, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'max-age=3600').send(chartLib),
  );
}

/** The read routes; `redacted` (no token configured) leaves parameters, order ids and identities out. */
export function registerReadRoutes(app: FastifyInstance, state: DashboardState, redacted: boolean): void {
  pageRoutes(app);
  app.get('/api/openapi.json', async () => openApiDocument());
  app.get('/api/bots', async () => state.snapshot(redacted));
  app.get<{ Params: { name: string } }>('/api/bots/:name', async (req, reply) => {
    state.refresh();
    const v = state.views.get(req.params.name);
    if (v === undefined) return refuse(reply, 404, REFUSALS.noBot(req.params.name, [...state.views.keys()]));
    return v.snapshot(redacted);
  });

  // The equity curves, for a page that polls (a read-only dashboard has no stream): points at or after
  // `since` (venue Unix seconds; the last point of a second is updated in place, so it comes again).
  app.get<{ Querystring: { since?: string } }>(
    '/api/equity',
    { schema: { querystring: EquityQuerySchema } },
    async (req) => {
      state.refresh();
      return { equity: state.equityCurves(Number(req.query.since ?? 0)) };
    },
  );

  app.get('/api/events', (req, reply) => {
    reply.hijack();
    reply.raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
    const stop = state.stream(reply);
    req.raw.on('close', stop);
  });
}
