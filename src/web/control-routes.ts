// The dashboard's control routes: POST /api/bots/:name/<action> for each control action (pause, resume,
// flatten, halt, rearm), journaled with who and why. The token and the origin are checked before, by
// auth.ts's door.
import type { FastifyInstance } from 'fastify';
import { CONTROL_ACTIONS, type ControlActionName } from '../store/index.js';
import type { TokenCheck } from './auth.js';
import type { DashboardState } from './dashboard-state.js';
import { ControlBodySchema } from './openapi.js';
import { REFUSALS, refuse } from './refusals.js';

/** What each action did, in the answer's `done` (the page shows it). */
export const DONE: Record<ControlActionName, (bot: string, symbol: string | undefined) => string> = {
  pause: (bot) => `${bot} paused: new entries are denied PAUSED until resumed; exits and flattens still run`,
  resume: (bot) => `${bot} resumed: new entries are allowed again`,
  flatten: (bot, symbol) =>
    `${bot}: flattening ${symbol ?? 'every position'} at market; entries are paused until you resume the bot (else its strategy could buy back at its next signal)`,
  halt: (bot) => `${bot} HALTED: nothing is placed, not even a flatten, until it is re-armed`,
  rearm: (bot) => `${bot} re-armed: ACTIVE (a pause, if any, holds until resumed)`,
};

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
        if (symbol !== undefined && !(action === 'flatten' && bot.symbols.includes(symbol)))
          return refuse(
            reply,
            400,
            action === 'flatten'
              ? REFUSALS.notSymbol(name, symbol, bot.symbols)
              : `symbol is only taken by flatten, not by ${action}`,
          );
        // The gate would deny the flatten's sells TRADING_HALTED, and resume does not lift a halt: say so
        // instead of answering "done".
        if (bot.trader.tradingState === 'HALTED' && (action === 'flatten' || action === 'resume'))
          return refuse(
            reply,
            409,
            (action === 'flatten' ? REFUSALS.flattenHalted : REFUSALS.resumeHalted)(name),
          );
        logger?.warn('control action', {
          bot: name,
          action,
          ...(symbol === undefined ? {} : { symbol }),
          who: tokens.identity,
          reason,
        });
        await bot.control({ action: action as ControlActionName, who: tokens.identity, reason, symbol });
        return { done: DONE[action as ControlActionName](name, symbol), ...v.snapshot(false) };
      },
    );
}
