// The end of a run: the bots drained within the deadline, then each bot's summary line in the operator's words.
import { describe, expect, it } from 'vitest';
import { botSummary, drainBots } from '../../../src/daemon/shutdown.js';
import { botStatus } from '../../helpers/bot-status.js';

const status = botStatus('momentum', {
  running: false,
  intents: 4,
  denials: 1,
  orders: 3,
  fills: 1,
  sinceStart: { intents: 2, denials: 0, orders: 1, fills: 1 },
  equity: '10010.504321',
  realisedPnl: '12.005',
  unrealisedPnl: '-0.5',
  fees: '2',
  net: '9.505',
  positions: [
    { symbol: 'AAPLUSDT', baseCoin: 'AAPL', quantity: '3', avgPrice: '150', unrealisedPnl: '-0.5' },
  ],
});

describe('botSummary', () => {
  it("says a bot's orders, fills, PnL, fees, equity and holdings in one sentence, with the numbers as fields", () => {
    expect(botSummary(status)).toEqual({
      bot: 'momentum',
      what:
        'momentum: 3 orders, 1 fill (1 and 1 since this start), realised 12.00 USDT, unrealised -0.50 USDT, ' +
        'fees 2.00 USDT, net 9.50 USDT, equity 10010.50 USDT; holds 3 AAPL',
      intents: 4,
      orders: 3,
      fills: 1,
      denials: 1,
      sinceStart: { intents: 2, denials: 0, orders: 1, fills: 1 },
      realisedPnl: '12.005',
      unrealisedPnl: '-0.5',
      fees: '2',
      net: '9.505',
      equity: '10010.504321',
      quoteCoin: 'USDT',
    });
  });

  it('says nothing of holdings for a flat bot', () => {
    expect(botSummary({ ...status, positions: [] }).what).toMatch(/equity 10010\.50 USDT$/);
  });
});

describe('drainBots', () => {
  it('marks every slot stopping and answers false once every bot has stopped', async () => {
    const stopped: string[] = [];
    const slots: { stopping: boolean; bot?: { stop(): Promise<void> } | undefined }[] = [
      { stopping: false, bot: { stop: async () => void stopped.push('a') } },
      { stopping: false, bot: { stop: async () => void stopped.push('b') } },
      { stopping: false, bot: undefined }, // a bot that failed to start again
    ];
    await expect(drainBots(slots, 60_000)).resolves.toBe(false);
    expect(stopped).toEqual(['a', 'b']);
    expect(slots.every((s) => s.stopping)).toBe(true);
  });

  it('answers true when a bot is still draining its orders at the deadline', async () => {
    const slots = [{ stopping: false, bot: { stop: () => new Promise<void>(() => undefined) } }];
    await expect(drainBots(slots, 20)).resolves.toBe(true);
  });
});
