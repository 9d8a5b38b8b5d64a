// The dashboard and control API the daemon serves (docs/dashboard.md). fastify rather than routing
// node:http by hand: routes declare JSON Schemas that validate bodies and are the ones the OpenAPI
// document publishes, `inject()` tests every route without a socket, and it is maintained and supports
// Node 20. The page is static (no token in it); the live state comes as server-sent events read with
// fetch (EventSource cannot send an Authorization header).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { BotConfig, Deployment } from '../config/index.js';
import { isLoopbackHost } from '../config/index.js';
import type { LiveBot } from '../execution/live-bot.js';
import type { SessionState } from '../market/sessions.js';
import { CONTROL_ACTIONS, type ControlActionName, type Store } from '../store/index.js';
import { TokenCheck, sameOrigin } from './auth.js';
import { BotView, LOG_LINES, type EquityPoint, type LogLine } from './bot-view.js';
import { ControlBodySchema, EquityQuerySchema, openApiDocument } from './openapi.js';
import { DASHBOARD_HTML, DASHBOARD_SCRIPT, DASHBOARD_CSP } from './page.js';
import { didYouMean } from '../market/spelling.js';

/** A bot as the daemon holds it: its configuration, and its running instance (none while restarting). */
export interface DashboardBot {
  readonly config: BotConfig;
  readonly bot: LiveBot | undefined;
}

/** What the dashboard logs (the daemon's winston logger is one). */
export interface DashboardLogger {
  info(message: string, meta?: Record<string, unknown>): void;
  warn(message: string, meta?: Record<string, unknown>): void;
}

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

/** Refusals of the dashboard, as sentences that say what to do. */
export const REFUSALS = {
  foreignOrigin: (origin: string) =>
    `refused: this control call comes from another site (Origin ${origin}); control calls are accepted only from the dashboard's own page, or from scripts that send no Origin header`,
  readOnly:
    'the dashboard is read-only: no dashboard.token is configured. Set dashboard.token to ${TRADEBOT_DASHBOARD_TOKEN} or { file: path } in the deployment and restart the daemon to enable control',
  streamReadOnly:
    'the live stream needs a token and none is configured (read-only dashboard): GET /api/bots answers a redacted state; set dashboard.token to enable the stream and control',
  noToken:
    'this call needs Authorization: Bearer <token> with the dashboard token (dashboard.token of the deployment); open the dashboard as http://host:port/#token=<token> or enter it on the page',
  nonLoopback: (host: string) =>
    `the dashboard would listen on ${host} without a token: anyone who reaches that address could watch the bots. Set dashboard.token (\${TRADEBOT_DASHBOARD_TOKEN} or { file: path }) or listen on 127.0.0.1`,
  noBot: (name: string, known: readonly string[]) =>
    `no bot named ${name}${didYouMean(name, known)}; the bots are ${known.join(', ') || 'none'}`,
  notRunning: (name: string) => `bot ${name} is restarting; try again in a few seconds`,
  flattenHalted: (name: string) =>
    `bot ${name} is HALTED: the risk gate denies every order, a flatten's sells too (TRADING_HALTED); re-arm it first (POST /api/bots/${name}/rearm), pause it if it should not enter again, then flatten`,
  notSymbol: (name: string, symbol: string, symbols: readonly string[]) =>
    `bot ${name} does not trade ${symbol}${didYouMean(symbol, symbols)}; its symbols are ${symbols.join(', ')}`,
} as const;

/** Thrown at start when the dashboard must not run as configured; the daemon exits 2 with its sentence. */
export class DashboardConfigError extends Error {
  override readonly name = 'DashboardConfigError';
}

const lightweightCharts = (): string => {
  // The package exports only ESM entry points and its package.json; the standalone build sits in dist/.
  const pkg = createRequire(import.meta.url).resolve('lightweight-charts/package.json');
  return readFileSync(join(dirname(pkg), 'dist', 'lightweight-charts.standalone.production.js'), 'utf8');
};

type Mode = 'control' | 'read-only';

/** Starts the dashboard; refuses a non-loopback address without a token (DashboardConfigError). */
export async function startDashboard(o: DashboardOptions): Promise<Dashboard> {
  const cfg = o.config;
  if (cfg.token === undefined && !isLoopbackHost(cfg.host))
    throw new DashboardConfigError(REFUSALS.nonLoopback(cfg.host));
  const tokens = new TokenCheck(cfg.token);
  const mode: Mode = tokens.configured ? 'control' : 'read-only';
  const chartLib = lightweightCharts();
  const log: LogLine[] = [];
  const streams = new Set<FastifyReply>();
  const views = new Map<string, BotView>();
  let pending: ReturnType<typeof setTimeout> | undefined;

  const send = (reply: FastifyReply, event: string, data: unknown): void => {
    reply.raw.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  const broadcast = (event: string, data: unknown): void => {
    for (const r of streams) send(r, event, data);
  };
  const pushStateSoon = (): void => {
    if (pending !== undefined || streams.size === 0) return;
    pending = setTimeout(() => {
      pending = undefined;
      broadcast('state', state(false));
    }, 200);
    pending.unref();
  };
  const changed = (bot: string) => (line: LogLine | undefined, point: EquityPoint | undefined) => {
    if (line !== undefined) {
      log.push(line);
      if (log.length > LOG_LINES) log.splice(0, log.length - LOG_LINES);
      broadcast('log', line);
    }
    if (point !== undefined) broadcast('equity', { bot, ...point });
    pushStateSoon();
  };

  /** Follows the daemon's bots (a restarted bot is a new instance). */
  const refresh = (): void => {
    for (const b of o.bots()) {
      let v = views.get(b.config.name);
      if (v === undefined)
        views.set(b.config.name, (v = new BotView(b.config, o.store, changed(b.config.name))));
      v.attach(b.bot);
    }
  };

  /** Each bot's equity curve from `since` on (venue Unix seconds): the stream's hello and GET /api/equity. */
  const equityCurves = (since: number): Record<string, readonly EquityPoint[]> => {
    const out: Record<string, readonly EquityPoint[]> = {};
    for (const [name, v] of views) out[name] = v.equity.filter((p) => p.time >= since);
    return out;
  };

  const clockAndSession = (): { now: number | undefined; session: SessionState | undefined } => {
    for (const v of views.values()) {
      const t = v.live?.trader;
      if (t !== undefined) return { now: t.clockNow(), session: t.market.session() };
    }
    return { now: undefined, session: undefined };
  };

  const state = (redacted: boolean) => {
    refresh();
    const { now, session } = clockAndSession();
    return {
      readOnly: mode === 'read-only',
      now,
      session,
      venue: o.venue,
      bots: [...views.values()].map((v) => v.snapshot(redacted)),
    };
  };

  const app = Fastify({
    logger: false,
    // Bodies are validated as declared: an unknown field is refused, not silently dropped or coerced.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: true } },
    bodyLimit: 16 * 1024,
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
          error: `invalid request: ${err.message}; send a JSON body such as {"reason": "why"} (and "symbol": "AAPLUSDT" to flatten one symbol)`,
        });
      const code = err.statusCode !== undefined && err.statusCode >= 400 ? err.statusCode : 500;
      return reply.code(code).send({ error: err.message });
    },
  );
  app.setNotFoundHandler((req, reply) =>
    reply.code(404).send({ error: `no route ${req.method} ${req.url}; see /api/openapi.json for the API` }),
  );

  const refuse = (reply: FastifyReply, code: number, error: string): FastifyReply => {
    if (code === 401) void reply.header('www-authenticate', 'Bearer realm="tradebot"');
    return reply.code(code).send({ error });
  };

  // Every API call is checked before its body is even parsed: origin, then read-only, then the token.
  app.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
    const path = req.url.split('?')[0] ?? '';
    if (!path.startsWith('/api/') || path === '/api/openapi.json') return;
    const auth = req.headers.authorization;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      const origin = req.headers.origin;
      if (!sameOrigin(origin, req.headers.host))
        return refuse(reply, 403, REFUSALS.foreignOrigin(String(origin)));
      if (!tokens.configured) return refuse(reply, 403, REFUSALS.readOnly);
      if (!tokens.accepts(auth)) return refuse(reply, 401, REFUSALS.noToken);
      return;
    }
    if (path === '/api/events') {
      if (!tokens.configured) return refuse(reply, 403, REFUSALS.streamReadOnly);
      if (!tokens.accepts(auth)) return refuse(reply, 401, REFUSALS.noToken);
      return;
    }
    if (tokens.configured && !tokens.accepts(auth)) return refuse(reply, 401, REFUSALS.noToken);
  });

  const securityHeaders = (reply: FastifyReply): FastifyReply =>
    reply
      .header('content-security-policy', DASHBOARD_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', 'no-store');

  app.get('/', async (_req, reply) =>
    securityHeaders(reply).type('text/html; charset=utf-8').send(DASHBOARD_HTML),
  );
  app.get('/assets/dashboard.js', async (_req, reply) =>
    securityHeaders(reply).type('text/javascript; charset=utf-8').send(DASHBOARD_SCRIPT),
  );
  app.get('/assets/lightweight-charts.js', async (_req, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'max-age=3600').send(chartLib),
  );
  app.get('/api/openapi.json', async () => openApiDocument());
  app.get('/api/bots', async () => state(!tokens.configured));
  app.get<{ Params: { name: string } }>('/api/bots/:name', async (req, reply) => {
    refresh();
    const v = views.get(req.params.name);
    if (v === undefined) return refuse(reply, 404, REFUSALS.noBot(req.params.name, [...views.keys()]));
    return v.snapshot(!tokens.configured);
  });

  // The equity curves, for a page that polls (a read-only dashboard has no stream): points at or after
  // `since` (venue Unix seconds; the last point of a second is updated in place, so it comes again).
  app.get<{ Querystring: { since?: string } }>(
    '/api/equity',
    { schema: { querystring: EquityQuerySchema } },
    async (req) => {
      refresh();
      return { equity: equityCurves(Number(req.query.since ?? 0)) };
    },
  );

  app.get('/api/events', (req, reply) => {
    reply.hijack();
    reply.raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
    refresh();
    send(reply, 'hello', { equity: equityCurves(0), log });
    send(reply, 'state', state(false));
    streams.add(reply);
    req.raw.on('close', () => streams.delete(reply));
  });

  for (const action of CONTROL_ACTIONS)
    app.post<{ Params: { name: string }; Body: { reason: string; symbol?: string } }>(
      `/api/bots/:name/${action}`,
      { schema: { body: ControlBodySchema } },
      async (req, reply) => {
        refresh();
        const name = req.params.name;
        const v = views.get(name);
        if (v === undefined) return refuse(reply, 404, REFUSALS.noBot(name, [...views.keys()]));
        const bot = v.live;
        if (bot === undefined) return refuse(reply, 503, REFUSALS.notRunning(name));
        const { reason, symbol } = req.body;
        if (symbol !== undefined && !(action === 'flatten' && bot.symbols.includes(symbol)))
          return refuse(
            reply,
            400,
            action === 'flatten'
              ? REFUSALS.notSymbol(name, symbol, bot.symbols)
              : `symbol is only taken by flatten, not by ${action}`,
          );
        // The gate would deny the flatten's sells TRADING_HALTED: say so instead of answering "done".
        if (action === 'flatten' && bot.trader.tradingState === 'HALTED')
          return refuse(reply, 409, REFUSALS.flattenHalted(name));
        o.logger?.warn('control action', {
          bot: name,
          action,
          ...(symbol === undefined ? {} : { symbol }),
          who: tokens.identity,
          reason,
        });
        await bot.control({ action: action as ControlActionName, who: tokens.identity, reason, symbol });
        return v.snapshot(false);
      },
    );

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
  const url = `http://${host}:${port}/`;
  refresh();
  const tick = setInterval(() => {
    if (streams.size > 0) broadcast('state', state(false));
    else refresh();
  }, o.tickMs ?? 1000);
  tick.unref();
  o.logger?.info('dashboard listening', {
    url,
    mode,
    ...(mode === 'read-only' ? { note: 'no dashboard.token: read-only, control refused' } : {}),
  });
  return {
    url,
    port,
    app,
    async close() {
      clearInterval(tick);
      if (pending !== undefined) clearTimeout(pending);
      for (const r of streams) r.raw.end();
      streams.clear();
      for (const v of views.values()) v.detach();
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
