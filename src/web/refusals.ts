// Refusals of the dashboard, as sentences that say what to do, and how a route answers with one.
import type { FastifyReply } from 'fastify';
import { didYouMean } from '../market/spelling.js';

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
} as const;

/** Answers `{ error }` with `code`; a 401 also says which scheme to authenticate with. */
export const refuse = (reply: FastifyReply, code: number, error: string): FastifyReply => {
  if (code === 401) void reply.header('www-authenticate', 'Bearer realm="tradebot"');
  return reply.code(code).send({ error });
};
