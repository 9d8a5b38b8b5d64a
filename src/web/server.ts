// The dashboard and control API the daemon serves (docs/dashboard.md). fastify rather than routing
// node:http by hand: routes declare JSON Schemas that validate bodies and are the ones the OpenAPI
// document publishes, `inject()` tests every route without a socket, and it is maintained and supports
// Node 20. The page is static (no token in it); the live state comes as server-sent events read with
// fetch (EventSource cannot send an Authorization header). The door is auth.ts, the routes are
// read-routes.ts and control-routes.ts, over the state of dashboard-state.ts.
import Fastify, { type FastifyInstance } from 'fastify';
import type { Deployment } from '../config/index.js';
import { isLoopbackHost } from '../config/index.js';
import type { Store } from '../store/index.js';
import { TokenCheck, guardApi } from './auth.js';
import { registerControlRoutes, type DashboardLogger } from './control-routes.js';
import { DashboardState, type DashboardBot } from './dashboard-state.js';
import { registerReadRoutes } from './read-routes.js';
import { REFUSALS } from './refusals.js';

export interface DashboardOptions {
  readonly config: Deployment['dashboard'];
  readonly bots: () => readonly DashboardBot[];
  readonly store: Store;
  readonly logger?: DashboardLogger | undefined;
  /** How the venue runs, shown in the header. */
  readonly venue?: { readonly kind: string; readonly speed: number } | undefined;
  /** Period of the state pushed on the stream when nothing happens (the clock moves). Default 1000 ms. */
  readonly tickMs?: number | undefined;
}

export interface Dashboard {
  readonly url: string;
  readonly port: number;
  /** The fastify instance (tests call `inject`). */
  readonly app: FastifyInstance;
  close(): Promise<void>;
}

/** Thrown at start when the dashboard must not run as configured; the daemon exits 2 with its sentence. */
export class DashboardConfigError extends Error {
  override readonly name = 'DashboardConfigError';
}

const BODY_EXAMPLE =
  'send a JSON body such as {"reason": "why"} (and "symbol": "AAPLUSDT" to flatten one symbol)';

/**
 * A control body parsed, or what is wrong with it in a sentence: not JSON, empty, or carrying a key that would
 * reach an object's prototype (`__proto__`, `constructor.prototype`), which is refused by name rather than
 * called "not valid JSON" as fastify's own parser does.
 */
function jsonBody(text: string): { value: unknown } | { error: string } {
  if (text.trim() === '') return { error: `the body is empty; ${BODY_EXAMPLE}` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { error: `the body is not valid JSON (${(e as Error).message}); ${BODY_EXAMPLE}` };
  }
  const key = prototypeKey(value);
  return key === undefined
    ? { value }
    : {
        error: `the body has a key "${key}", which is refused (it would reach an object's prototype); ${BODY_EXAMPLE}`,
      };
}

/** The first key of a parsed JSON value that names a prototype, as a dotted path. */
function prototypeKey(v: unknown): string | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  for (const k of Object.keys(v)) {
    const child = (v as Record<string, unknown>)[k];
    if (k === '__proto__') return k;
    if (k === 'constructor' && typeof child === 'object' && child !== null && 'prototype' in child)
      return 'constructor.prototype';
    const deeper = prototypeKey(child);
    if (deeper !== undefined) return `${k}.${deeper}`;
  }
  return undefined;
}

/** The fastify instance, with the dashboard's answers to invalid requests and unknown routes. */
function createApp(): FastifyInstance {
  const app = Fastify({
    logger: false,
    // Bodies are validated as declared: an unknown field is refused, not silently dropped or coerced.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: true } },
    bodyLimit: 16 * 1024,
  });
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const r = jsonBody(String(body));
    if ('error' in r) done(Object.assign(new Error(r.error), { statusCode: 400 }), undefined);
    else done(null, r.value);
  });
  app.setErrorHandler(
    (
      err: { statusCode?: number; validation?: unknown; validationContext?: string; message: string },
      _req,
      reply,
    ) => {
      if (err.validation !== undefined && err.validationContext === 'querystring')
        return reply.code(400).send({
          error: `invalid query: ${err.message}; since is a venue time in whole Unix seconds, such as ?since=1795445360`,
        });
      if (err.validation !== undefined)
        return reply.code(400).send({
          error: `invalid request: ${err.message}; ${BODY_EXAMPLE}`,
        });
      const code = err.statusCode !== undefined && err.statusCode >= 400 ? err.statusCode : 500;
      return reply.code(code).send({ error: err.message });
    },
  );
  app.setNotFoundHandler((req, reply) =>
    reply.code(404).send({ error: `no route ${req.method} ${req.url}; see /api/openapi.json for the API` }),
  );
  return app;
}

/** Listens as configured; a port in use is a DashboardConfigError. Answers the URL and the port bound. */
async function listen(
  app: FastifyInstance,
  cfg: Deployment['dashboard'],
): Promise<{ url: string; port: number }> {
  try {
    await app.listen({ host: cfg.host, port: cfg.port });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new DashboardConfigError(
        `the dashboard port ${cfg.host}:${cfg.port} is already in use: stop the other process or set dashboard.port in the configuration (0 picks a free port)`,
      );
    throw e;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : cfg.port;
  const host = cfg.host.includes(':') && !cfg.host.startsWith('[') ? `[${cfg.host}]` : cfg.host;
  return { url: `http://${host}:${port}/`, port };
}

/** Starts the dashboard; refuses a non-loopback address without a token (DashboardConfigError). */
export async function startDashboard(o: DashboardOptions): Promise<Dashboard> {
  const cfg = o.config;
  if (cfg.token === undefined && !isLoopbackHost(cfg.host))
    throw new DashboardConfigError(REFUSALS.nonLoopback(cfg.host));
  const tokens = new TokenCheck(cfg.token);
  const readOnly = !tokens.configured;
  const state = new DashboardState({ bots: o.bots, store: o.store, venue: o.venue, readOnly });
  const app = createApp();
  guardApi(app, tokens);
  registerReadRoutes(app, state, readOnly);
  registerControlRoutes(app, state, tokens, o.logger);
  const { url, port } = await listen(app, cfg);
  state.refresh();
  const tick = setInterval(() => state.tick(), o.tickMs ?? 1000);
  tick.unref();
  o.logger?.info('dashboard listening', {
    url,
    mode: readOnly ? 'read-only' : 'control',
    ...(readOnly ? { note: 'no dashboard.token: read-only, control refused' } : {}),
  });
  return {
    url,
    port,
    app,
    async close() {
      clearInterval(tick);
      state.close();
      await app.close();
    },
  };
}

/**
 * The dashboard as a daemon service: started from the deployment's `dashboard:` block once the bots
 * run (nothing when it is disabled), closed first at shutdown.
 */
export async function dashboardService(ctx: {
  readonly config: Deployment;
  readonly bots: () => readonly DashboardBot[];
  readonly store: Store;
  readonly logger: DashboardLogger;
  readonly venue: { readonly kind: string; readonly speed: number };
}): Promise<Dashboard | undefined> {
  if (!ctx.config.dashboard.enabled) return undefined;
  return startDashboard({
    config: ctx.config.dashboard,
    bots: ctx.bots,
    store: ctx.store,
    logger: ctx.logger,
    venue: ctx.venue,
  });
}
