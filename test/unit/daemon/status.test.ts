// The terminal's status block: a bot paused by the operator reads PAUSED, not ACTIVE.
import { describe, expect, it } from 'vitest';
import type { LiveBotStatus } from '../../../src/execution/live-bot.js';
import { STATUS_LEGEND, statusLines } from '../../../src/daemon/status.js';

const bot = (name: string, over: Partial<LiveBotStatus> = {}): LiveBotStatus => ({
  name,
  running: true,
  intents: 0,
  denials: 0,
  orders: 0,
  fills: 0,
  tradingState: 'ACTIVE',
  paused: false,
  equity: '10000.00',
  quoteCoin: 'USDT',
  realisedPnl: '0',
  unrealisedPnl: '0',
  fees: '0',
  positions: [],
  ...over,
});
const NOW = Date.UTC(2026, 10, 23, 15);

describe('the status block', () => {
  it('shows a paused bot as PAUSED, a paused and halted one as HALTED+PAUSED, and says what PAUSED means', () => {
    const [, ...rows] = statusLines(
      [
        bot('running'),
        bot('paused', { paused: true }),
        bot('halted', { tradingState: 'HALTED', paused: true }),
      ],
      NOW,
    );
    expect(rows.map((r) => r.split(/\s+/).slice(0, 2).join(' '))).toEqual([
      'running ACTIVE',
      'paused PAUSED',
      'halted HALTED+PAUSED',
    ]);
    expect(STATUS_LEGEND).toMatch(/PAUSED \(paused by the operator: no new entries/);
  });
});
