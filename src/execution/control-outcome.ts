// The rules of an operator's command, for every channel (dashboard and control API, Telegram): which command a
// bot's state refuses, and what a command did, in the same words whoever asked. A channel only carries them:
// the API answers a refusal with its HTTP status, Telegram replies with the sentence.
import { didYouMean } from '../market/spelling.js';
import type { TradingState } from '../risk/trading-state.js';
import type { ControlActionName, ControlInput } from '../store/control.js';

/** Why a command is refused: the bot's state forbids it (HTTP 409), or it names what the bot lacks (400). */
export type ControlRefusalKind = 'state' | 'input';

export type ControlOutcome =
  | { readonly ok: true; readonly done: string; readonly state: TradingState; readonly paused: boolean }
  | { readonly ok: false; readonly kind: ControlRefusalKind; readonly error: string };

/** Where a halted bot is re-armed, on every channel. */
const REARM_WHERE = (bot: string): string =>
  `the dashboard's Re-arm, POST /api/bots/${bot}/rearm, or /rearm ${bot} in Telegram`;

/** Why `action` is refused on a bot in `state` with `symbols`, or undefined when it may run. */
export function controlRefusal(o: {
  readonly bot: string;
  readonly action: ControlActionName;
  readonly symbol: string | undefined;
  readonly symbols: readonly string[];
  readonly state: TradingState;
}): { readonly kind: ControlRefusalKind; readonly error: string } | undefined {
  const { bot, action, symbol, symbols } = o;
  if (symbol !== undefined && action !== 'flatten')
    return { kind: 'input', error: `symbol is only taken by flatten, not by ${action}` };
  if (symbol !== undefined && !symbols.includes(symbol))
    return {
      kind: 'input',
      error: `bot ${bot} does not trade ${symbol}${didYouMean(symbol, symbols)}; its symbols are ${symbols.join(', ')}`,
    };
  // The gate would deny a flatten's sells TRADING_HALTED, and resume does not lift a halt: say so instead of
  // answering "done" (a resume accepted here would drop the operator's pause under the halt).
  if (o.state === 'HALTED' && action === 'flatten')
    return {
      kind: 'state',
      error: `bot ${bot} is HALTED: the risk gate denies every order, a flatten's sells too (TRADING_HALTED); re-arm it first (${REARM_WHERE(bot)}), pause it if it should not enter again, then flatten`,
    };
  if (o.state === 'HALTED' && action === 'resume')
    return {
      kind: 'state',
      error: `bot ${bot} is HALTED: resume does nothing on a halted bot (it lifts a pause, not a halt); re-arm it first (${REARM_WHERE(bot)}), then resume it if it is paused`,
    };
  return undefined;
}

/** What a command did, said from the state it left the bot in. */
export function controlDone(o: {
  readonly bot: string;
  readonly action: ControlActionName;
  readonly symbol: string | undefined;
  readonly state: TradingState;
  readonly paused: boolean;
}): string {
  const { bot } = o;
  switch (o.action) {
    case 'pause':
      return `${bot} paused: new entries are denied PAUSED until resumed; exits and flattens still run`;
    case 'resume':
      return `${bot} resumed: new entries are allowed again`;
    case 'flatten':
      return `${bot}: flattening ${o.symbol ?? 'every position'} at market; entries are paused until you resume the bot (else its strategy could buy back at its next signal)`;
    case 'halt':
      return `${bot} HALTED: nothing is placed, not even a flatten, until it is re-armed`;
    case 'rearm':
      return o.paused
        ? `${bot} re-armed: PAUSED, as the operator paused it before the halt; resume it to allow new entries`
        : `${bot} re-armed: ${o.state}`;
  }
}

/** What `commandBot` needs of a bot (a LiveBot). */
export interface CommandableBot {
  readonly symbols: readonly string[];
  readonly trader: { readonly tradingState: TradingState; readonly control: { readonly paused: boolean } };
  /** Journals and applies an operator's action (LiveBot.control). */
  control(c: Omit<ControlInput, 'bot'>): Promise<void>;
}

/**
 * An operator's command from any channel (dashboard, control API, Telegram): refused with the same words
 * everywhere when the bot's state forbids it (controlRefusal), else journaled and applied by the bot's one
 * control path, and said from the state it left the bot in.
 */
export async function commandBot(
  name: string,
  bot: CommandableBot,
  c: Omit<ControlInput, 'bot'>,
): Promise<ControlOutcome> {
  const { symbols, trader } = bot;
  const refusal = controlRefusal({
    bot: name,
    action: c.action,
    symbol: c.symbol,
    symbols,
    state: trader.tradingState,
  });
  if (refusal !== undefined) return { ok: false, ...refusal };
  await bot.control(c);
  const state = trader.tradingState;
  const paused = trader.control.paused;
  return {
    ok: true,
    state,
    paused,
    done: controlDone({ bot: name, action: c.action, symbol: c.symbol, state, paused }),
  };
}
