// A running bot's status for unit tests of the surfaces that show it (the status block, /readyz, the stop
// summary, notifications): a flat, fresh, ACTIVE bot of 10000 USDT with nothing done, and what a test changes.
import type { LiveBotStatus } from '../../src/execution/live-bot.js';
import { OK_HEALTH } from './feed-health.js';

export const botStatus = (name: string, over: Partial<LiveBotStatus> = {}): LiveBotStatus => ({
  name,
  running: true,
  intents: 0,
  denials: 0,
  orders: 0,
  fills: 0,
  sinceStart: { intents: 0, denials: 0, orders: 0, fills: 0 },
  tradingState: 'ACTIVE',
  health: OK_HEALTH,
  paused: false,
  equity: '10000',
  quoteCoin: 'USDT',
  realisedPnl: '0',
  unrealisedPnl: '0',
  fees: '0',
  net: '0',
  positions: [],
  ...over,
});
