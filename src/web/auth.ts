// Who may do what on the dashboard: a bearer token compared in constant time, the request's Origin
// against its Host (a page of another site must not post to the control API), and the identity a
// control action is journaled under (a fingerprint of the token, never the token); and the door of the API
// that asks them, before any route.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { REFUSALS, refuse } from './refusals.js';

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/** The configured token, kept as a digest: the comparison takes the same time whatever the guess. */
export class TokenCheck {
  private readonly expected: Buffer | undefined;
  /** What control actions are journaled under: `token:` and 8 hex digits of the token's hash. */
  readonly identity: string;

  constructor(token: string | undefined) {
    this.expected = token === undefined ? undefined : digest(token);
    this.identity =
      this.expected === undefined ? 'local' : `token:${this.expected.toString('hex').slice(0, 8)}`;
  }

  /** Whether a token is configured (without one the dashboard is read-only). */
  get configured(): boolean {
    return this.expected !== undefined;
  }

  /** Whether an Authorization header carries the configured token. */
  accepts(authorization: string | undefined): boolean {
    if (this.expected === undefined || authorization === undefined) return false;
    const m = /^Bearer ([^\s]+)$/.exec(authorization.trim());
    if (m?.[1] === undefined) return false;
    return timingSafeEqual(digest(m[1]), this.expected);
  }
}

/**
 * Whether a request's Origin may post: absent (curl, scripts) or the dashboard's own origin, i.e. the
 * same host and port the request was sent to. A page of another site sends its own Origin.
 */
export function sameOrigin(origin: string | undefined, host: string | undefined): boolean {
  if (origin === undefined) return true;
  if (host === undefined) return false;
  try {
    const u = new URL(origin);
    // Both through URL, so a default port (":80") is spelled the same way on both sides.
    const expected = new URL(`${u.protocol}//${host}`);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.host === expected.host;
  } catch {
    return false;
  }
}

/**
 * Checks every API call before its body is even parsed: origin, then read-only, then the token. The page,
 * its assets and the OpenAPI document are open; without a token the GETs answer (redacted), the stream
 * and every other method are refused.
 */
export function guardApi(app: FastifyInstance, tokens: TokenCheck): void {
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
}
