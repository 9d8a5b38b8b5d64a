// Telegram commands against a live bot on the simulator (pinned start) and a local stand-in for the Bot API:
// /pause from an allowed chat pauses the bot through its one control path (journaled under the chat), a
// chat not allowed is refused and changes nothing, a read-only configuration refuses /pause, /status
// answers; a command is run once, even when the commands are started again on the same journal.
import { timeOf, untimed } from '../../helpers/notify-text.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { z } from 'zod';
import { NotifySchema } from '../../../src/config/index.js';
import type { TraderEvent } from '../../../src/execution/trader.js';
import {
  notifyService,
  TelegramCommands,
  type CommandedBot,
  type NotifiableEvent,
} from '../../../src/notify/index.js';
import { RiskLimitsSchema } from '../../../src/risk/index.js';
import { defineStrategy } from '../../../src/strategy/index.js';
import { startFakeTelegram } from '../../helpers/fake-telegram.js';
import { startLiveVenue } from '../../helpers/live-venue.js';
import { waitFor } from '../../helpers/wait-for.js';

const TOKEN = '7700000001:AAF-telegramCommandsTestToken';
const START = Date.UTC(2026, 10, 23, 15, 0); // Monday 10:00 ET
const ALLOWED = 4242;
const STRANGER = 666;

const idle = defineStrategy({
  name: 'idle',
  description: 'Never trades, for tests.',
  params: z.object({}),
  intervals: ['1m'],
  init: () => undefined,
  onCandle: () => undefined,
});

describe('Telegram commands', () => {
  it('/pause from an allowed chat pauses the bot; another chat is refused; read-only refuses /pause', async () => {
    const venue = await startLiveVenue({
      credentials: { apiKey: 'tg-key', apiSecret: 'tg-secret', passphrase: 'tg-pass' },
      account: { whitelisted: true, balances: { USDT: '10000' } },
      sim: { seed: 3, speed: 60, startTime: START },
      runtime: { cadences: { tickersMs: 5_000 }, staleAfterMs: 60_000 },
    });
    const { bot } = await venue.createLiveBot({
      name: 'tg',
      strategy: idle,
      risk: RiskLimitsSchema.parse({ allowedSessions: ['regular'], whitelisted: true, maxDataAgeMs: 60_000 }),
    });
    bot.start();
    const tg = await startFakeTelegram(TOKEN);
    onTestFinished(() => tg.close());
    const logs: string[] = [];
    const logger = {
      info: (m: string, f?: Record<string, unknown>) => void logs.push(`${m} ${JSON.stringify(f ?? {})}`),
      warn: (m: string, f?: Record<string, unknown>) => void logs.push(`${m} ${JSON.stringify(f ?? {})}`),
    };
    const commands = (control: boolean) => {
      const c = new TelegramCommands({
        botToken: TOKEN,
        apiBaseUrl: tg.baseUrl,
        allowedChatIds: [String(ALLOWED)],
        control,
        pollTimeoutS: 1,
        bots: (): CommandedBot[] => [{ config: { name: 'tg' }, bot }],
        logger,
        meta: venue.store.meta,
        scrub: (s) => s.split(TOKEN).join('[redacted]'),
      });
      c.start();
      onTestFinished(() => c.stop());
      return c;
    };
    const repliesTo = (chat: number) => tg.sent.filter((m) => m.chat_id === String(chat)).map((m) => m.text);

    // Read-only (no control): /status answers, /pause is refused.
    const readOnly = commands(false);
    tg.say(ALLOWED, '/status');
    tg.say(ALLOWED, '/pause');
    await waitFor(() => repliesTo(ALLOWED).length >= 2, { what: 'two replies', timeoutMs: 20_000 });
    expect(repliesTo(ALLOWED)[0]).toMatch(/^tg ACTIVE: 0 orders, 0 fills, pnl 0\.00 USDT/);
    expect(repliesTo(ALLOWED)[1]).toMatch(/^\/pause refused: this bot is read-only/);
    expect(bot.trader.control.paused).toBe(false);
    await readOnly.stop();

    // With control: a stranger's /pause is refused; the allowed chat's pauses the bot.
    commands(true);
    tg.say(STRANGER, '/pause tg');
    tg.say(ALLOWED, '/pause tg news at 14:00');
    await waitFor(() => bot.trader.control.paused, { what: 'the bot paused', timeoutMs: 20_000 });
    await waitFor(() => repliesTo(ALLOWED).length >= 3, { what: 'the reply to /pause', timeoutMs: 20_000 });
    expect(repliesTo(STRANGER)).toEqual([
      `This chat (${STRANGER}) may not command this bot: add it to notify.telegram.commands.allowedChatIds.`,
    ]);
    expect(repliesTo(ALLOWED)[2]).toBe(
      'tg paused: new entries are denied PAUSED until resumed; exits and flattens still run',
    );
    const journaled = venue.store.control.list('tg');
    expect(journaled.map((c) => [c.action, c.who, c.reason])).toEqual([
      ['pause', `telegram:${ALLOWED}`, 'news at 14:00'],
    ]);
    expect(logs.join('\n')).toMatch(/Telegram command \/pause from chat 666 refused/);
    expect(logs.join('\n')).not.toContain(TOKEN);
  }, 60_000);

  it('as the daemon runs them: /halt from the notify chat halts the bot, and the halt and the action are told there', async () => {
    const venue = await startLiveVenue({
      credentials: { apiKey: 'tg-key', apiSecret: 'tg-secret', passphrase: 'tg-pass' },
      account: { whitelisted: true, balances: { USDT: '10000' } },
      sim: { seed: 4, speed: 60, startTime: START },
      runtime: { cadences: { tickersMs: 5_000 }, staleAfterMs: 60_000 },
    });
    const listeners: ((e: NotifiableEvent) => void)[] = [];
    const { bot } = await venue.createLiveBot(
      {
        name: 'tg',
        strategy: idle,
        risk: RiskLimitsSchema.parse({
          allowedSessions: ['regular'],
          whitelisted: true,
          maxDataAgeMs: 60_000,
        }),
      },
      { onEvent: (e: TraderEvent) => listeners.forEach((l) => l(e)) },
    );
    bot.start();
    const tg = await startFakeTelegram(TOKEN);
    onTestFinished(() => tg.close());
    const quiet = { info: () => undefined, warn: () => undefined };
    const service = await notifyService({
      config: {
        notify: NotifySchema.parse({
          telegram: {
            botToken: TOKEN,
            chatId: ALLOWED,
            apiBaseUrl: tg.baseUrl,
            commands: { control: true, pollTimeoutS: 1 },
          },
          perMinute: 600,
        }),
      },
      bots: () => [{ config: { name: 'tg' }, bot }],
      store: venue.store,
      logger: quiet,
      venue: { kind: 'simulator', speed: 60 },
      clock: venue.clock,
      previousRun: 'clean',
      subscribe: (l) => {
        listeners.push(l);
        return () => listeners.splice(listeners.indexOf(l), 1);
      },
    });
    onTestFinished(() => service?.close());
    tg.say(STRANGER, '/halt');
    tg.say(ALLOWED, '/halt drill');
    await waitFor(() => bot.trader.tradingState === 'HALTED', { what: 'the bot halted', timeoutMs: 20_000 });
    // The notifications carry their time; the command replies do not (they answer at once).
    const told = () =>
      tg.sent
        .filter((m) => m.chat_id === String(ALLOWED))
        .map((m) => (timeOf(m.text) ? untimed(m.text) : m.text));
    await waitFor(() => told().length >= 4, { what: 'four messages in the chat', timeoutMs: 20_000 });
    expect(told()).toEqual(
      expect.arrayContaining([
        'tradebot started on simulator: 1 bot (tg)',
        'tg HALTED: nothing is placed, not even a flatten, until it is re-armed',
        `tg halted (nothing is placed until re-armed) by telegram:${ALLOWED}: drill`,
        expect.stringMatching(/^tg trading state ACTIVE → HALTED: drill \(halt by telegram:4242\)/),
      ]),
    );
    expect(tg.sent.filter((m) => m.chat_id === String(STRANGER)).map((m) => m.text)).toEqual([
      `This chat (${STRANGER}) may not command this bot: add it to notify.telegram.commands.allowedChatIds.`,
    ]);
    await service?.close();
  }, 60_000);
});
