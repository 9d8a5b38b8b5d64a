// The dashboard's control routes: POST /api/bots/:name/<action> for each control action (pause, resume,
// flatten, halt, rearm), journaled with who and why. The token and the origin are checked before, by
// auth.ts's door.
import type { FastifyInstance } from 'fastify';
import { commandBot } from '../execution/control-outcome.js';
import { CONTROL_ACTIONS, type ControlActionName } from '../store/index.js';
import type { TokenCheck } from './auth.js';
import type { DashboardState } from './dashboard-state.js';
import { ControlBodySchema } from './openapi.js';
import { REFUSALS, refuse } from './refusals.js';

/** What the dashboard logs (the daemon's winston logger is one). */
export interface DashboardLogger {
  info(message: string, meta?: Record<string, unknown>): void;
  warn(message: string, meta?: Record<string, unknown>): void;
}

export function registerControlRoutes(
  app: FastifyInstance,
  state: DashboardState,
  tokens: TokenCheck,
  logger: DashboardLogger | undefined,
): void {
  for (const action of CONTROL_ACTIONS)
    app.post<{ Params: { name: string }; Body: { reason: string; symbol?: string } }>(
      `/api/bots/:name/${action}`,
      { schema: { body: ControlBodySchema } },
      async (req, reply) => {
        state.refresh();
        const name = req.params.name;
        const v = state.views.get(name);
        if (v === undefined) return refuse(reply, 404, REFUSALS.noBot(name, [...state.views.keys()]));
        const bot = v.live;
        if (bot === undefined) return refuse(reply, 503, REFUSALS.notRunning(name));
        const { reason, symbol } = req.body;
        // The rules and the words are the bot's (commandBot), the same for Telegram: a refusal by the
        // bot's state is a 409, one of the input a 400.
        const out = await commandBot(name, bot, {
          action: action as ControlActionName,
          who: tokens.identity,
          reason,
          symbol,
        });
        if (!out.ok) return refuse(reply, out.kind === 'state' ? 409 : 400, out.error);
        logger?.warn('control action', {
          bot: name,
          action,
          ...(symbol === undefined ? {} : { symbol }),
          who: tokens.identity,
          reason,
        });
        return { done: out.done, ...v.snapshot(false) };
      },
    );
}
