// One control function for every channel: each command (pause, resume, flatten, halt, rearm) in each trading
// state (ACTIVE, PAUSED, HALTED, HALTED under a pause) gives the same outcome through the dashboard's control
// API over a loopback socket and through Telegram (a local stand-in for the Bot API): accepted or refused, the
// same sentence, the same state after, the same journal rows. Telegram's /resume on a halted bot used to be
// accepted ("resume done") and drop the operator's pause under the halt.
import { describe, expect, it, onTestFinished } from 'vitest';
import { z } from 'zod';
import { BotSchema, DashboardSchema } from '../../../src/config/index.js';
import type { LiveBot } from '../../../src/execution/live-bot.js';
import { TelegramCommands } from '../../../src/notify/index.js';
import { RiskLimitsSchema } from '../../../src/risk/index.js';
import { CONTROL_ACTIONS, type ControlActionName } from '../../../src/store/index.js';
import { defineStrategy } from '../../../src/strategy/index.js';
import { startDashboard, type Dashboard } from '../../../src/web/index.js';
import { startFakeTelegram, type FakeTelegram } from '../../helpers/fake-telegram.js';
import { startLiveVenue, type LiveVenue } from '../../helpers/live-venue.js';
import { waitFor } from '../../helpers/wait-for.js';

const START = Date.UTC(2026, 10, 23, 15, 0); // Monday 10:00 ET
const TG_TOKEN = '7700000002:AAF-controlChannelsTestToken';
const DASH_TOKEN = 'control-channels-dashboard-token-31';
const CHAT = 5151;

const idle = defineStrategy({
  name: 'idle',
  description: 'Never trades, for tests.',
  params: z.object({}),
  intervals: ['1m'],
  init: () => undefined,
  onCandle: () => undefined,
});

type StartState = 'ACTIVE' | 'PAUSED' | 'HALTED' | 'HALTED+paused';
const STATES: readonly StartState[] = ['ACTIVE', 'PAUSED', 'HALTED', 'HALTED+paused'];

interface Outcome {
  readonly accepted: boolean;
  readonly text: string;
  readonly state: string;
  readonly paused: boolean;
  /** The journal's control rows the command added: action and reason (who is the channel's). */
  readonly journaled: readonly string[];
}

let venue: LiveVenue;
let bot: LiveBot;
let dash: Dashboard;
let tg: FakeTelegram;
let commands: TelegramCommands;

/** The bot on a pinned simulator, its dashboard and Telegram commands; closed when the test ends. */
async function setup(): Promise<void> {
  venue = await startLiveVenue({
    credentials: { apiKey: 'cc-key', apiSecret: 'cc-secret', passphrase: 'cc-pass' },
    account: { whitelisted: true, balances: { USDT: '10000' } },
    sim: { seed: 5, speed: 60, startTime: START },
    runtime: { cadences: { tickersMs: 5_000 }, staleAfterMs: 60_000 },
  });
  ({ bot } = await venue.createLiveBot({
    name: 'cc',
    strategy: idle,
    risk: RiskLimitsSchema.parse({ allowedSessions: ['regular'], whitelisted: true, maxDataAgeMs: 60_000 }),
  }));
  const config = BotSchema.parse({ name: 'cc', strategy: 'idle', symbols: ['AAPLUSDT'] });
  dash = await startDashboard({
    config: DashboardSchema.parse({ enabled: true, port: 0, token: DASH_TOKEN }),
    bots: () => [{ config, bot }],
    store: venue.store,
  });
  tg = await startFakeTelegram(TG_TOKEN);
  commands = new TelegramCommands({
    botToken: TG_TOKEN,
    apiBaseUrl: tg.baseUrl,
    allowedChatIds: [String(CHAT)],
    control: true,
    pollTimeoutS: 1,
    bots: () => [{ config: { name: 'cc' }, bot }],
    logger: { info: () => undefined, warn: () => undefined },
    meta: venue.store.meta,
    scrub: (s) => s.split(TG_TOKEN).join('[redacted]'),
  });
  commands.start();
  onTestFinished(async () => {
    await commands.stop();
    await tg.close();
    await dash.close();
  });
}

/** Brings the bot to `s` by its own control path (journaled as the test's setup). */
async function bringTo(s: StartState): Promise<void> {
  const c = (action: ControlActionName) => bot.control({ action, who: 'setup', reason: 'setup' });
  await c('rearm');
  await c('resume');
  if (s === 'PAUSED' || s === 'HALTED+paused') await c('pause');
  if (s.startsWith('HALTED')) await c('halt');
}

const journalAfter = (seq: number): string[] =>
  venue.store.control
    .list('cc')
    .filter((r) => r.seq > seq)
    .map((r) => `${r.action}: ${r.reason}`);

const lastSeq = (): number => venue.store.control.list('cc').at(-1)?.seq ?? 0;

async function viaApi(action: ControlActionName): Promise<Outcome> {
  const seq = lastSeq();
  const res = await fetch(new URL(`/api/bots/cc/${action}`, dash.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${DASH_TOKEN}` },
    body: JSON.stringify({ reason: 'table' }),
  });
  const body = (await res.json()) as { done?: string; error?: string };
  expect([200, 409]).toContain(res.status);
  return {
    accepted: res.status === 200,
    text: body.done ?? body.error ?? '',
    state: bot.trader.tradingState,
    paused: bot.trader.control.paused,
    journaled: journalAfter(seq),
  };
}

async function viaTelegram(action: ControlActionName): Promise<Outcome> {
  const seq = lastSeq();
  const before = tg.sent.length;
  tg.say(CHAT, `/${action} cc table`);
  await waitFor(() => tg.sent.length > before, { what: `the reply to /${action}`, timeoutMs: 20_000 });
  const text = tg.sent[before]?.text ?? '';
  const journaled = journalAfter(seq);
  return {
    accepted: journaled.length > 0,
    text,
    state: bot.trader.tradingState,
    paused: bot.trader.control.paused,
    journaled,
  };
}

describe('one control function for every channel', () => {
  it('every command in every trading state: the control API and Telegram give the same outcome, words and journal rows', async () => {
    await setup();
    const table: string[] = [];
    for (const state of STATES)
      for (const action of CONTROL_ACTIONS) {
        await bringTo(state);
        const api = await viaApi(action);
        await bringTo(state);
        const telegram = await viaTelegram(action);
        expect(telegram, `${action} on ${state}`).toEqual(api);
        table.push(
          `${state} ${action}: ${api.accepted ? `→ ${api.state}${api.paused ? ' (paused)' : ''}` : 'refused'}`,
        );
      }
    // The rules themselves: a halted bot refuses a resume and a flatten (re-arm first), on every channel.
    expect(table).toContain('HALTED resume: refused');
    expect(table).toContain('HALTED+paused resume: refused');
    expect(table).toContain('HALTED flatten: refused');
    expect(table).toContain('PAUSED resume: → ACTIVE');
    // A re-arm under the operator's pause leaves the bot PAUSED, and says so.
    expect(table).toContain('HALTED+paused rearm: → PAUSED (paused)');
  }, 120_000);

  it("Telegram /resume on a halted, paused bot is refused, so the re-arm leaves the operator's pause in force", async () => {
    await setup();
    await bringTo('HALTED+paused');
    const resumed = await viaTelegram('resume');
    expect(resumed.accepted).toBe(false);
    expect(resumed.text).toMatch(/is HALTED: resume does nothing .*re-arm it first/);
    const rearmed = await viaTelegram('rearm');
    expect(rearmed.state).toBe('PAUSED');
    expect(rearmed.text).toBe(
      'cc re-armed: PAUSED, as the operator paused it before the halt; resume it to allow new entries',
    );
  }, 60_000);
});
