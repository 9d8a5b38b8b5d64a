// EXIT_BLOCKED live (issue 30): a paper bot on the simulator (pinned start, replayed candles) rests a limit
// take-profit, the price falls through its stop-loss, and the stop is denied because the resting sell holds
// the position. The bot's status, the terminal status line, the dashboard's JSON (redacted without a token)
// and one notification (not one per candle) say so, with the order that blocks; `tradebot status` reads it
// from the journal.
import { describe, expect, it } from 'vitest';
import { BotSchema, DashboardSchema, NotifySchema } from '../../../src/config/index.js';
import type { TraderEvent } from '../../../src/execution/trader.js';
import { VirtualClock } from '../../../src/feeds/clock.js';
import { botReports } from '../../../src/cli/journal-report.js';
import { statusLines } from '../../../src/daemon/status.js';
import { Notifier, webhookChannel } from '../../../src/notify/index.js';
import { parseExitRules } from '../../../src/strategy/exits.js';
import { startDashboard } from '../../../src/web/index.js';
import { RISK } from '../backtest/fixtures/exit-cases.js';
import { createPaperBot, startPaperParity } from '../backtest/fixtures/paper-parity.js';
import { restingTakeProfit } from '../backtest/fixtures/resting-take-profit.js';
import { startRecordingServer } from '../../helpers/recording-server.js';
import { untimed } from '../../helpers/notify-text.js';
import { waitFor } from '../../helpers/wait-for.js';

const MIN = 60_000;
const START = Date.UTC(2026, 10, 23, 15, 0); // Monday 10:00 ET
type Bar = [string, string, string, string];
const flat = (p: number, n: number): Bar[] =>
  Array.from({ length: n }, (): Bar => [
    p.toFixed(2),
    (p + 0.2).toFixed(2),
    (p - 0.2).toFixed(2),
    p.toFixed(2),
  ]);
// Flat at 190 (the limit buy at 189.05 rests), a dip that fills it, then the take-profit rests at 190.95
// and the price falls to 170, far through the 5% stop (179.60): every stop-loss after that is blocked.
const BARS: Bar[] = [
  ...flat(190, 2),
  ['190.00', '190.20', '188.50', '189.00'],
  ...flat(189, 2),
  ...flat(170, 8),
];

describe('a stop-loss behind a resting take-profit, live on the simulator', () => {
  it('is counted EXIT_BLOCKED with its order in the status, the dashboard and one notification', async () => {
    const candles = BARS.map(([open, high, low, close], i) => ({
      openTime: START + i * MIN,
      open,
      high,
      low,
      close,
      volume: '10',
    }));
    const { venue } = await startPaperParity({
      credentials: { apiKey: 'xb-key', apiSecret: 'xb-secret', passphrase: 'xb-pass' },
      start: START,
      speed: 120,
      candles,
      fees: { feeRate: '0.002', makerFeeRate: '0.0005' },
      slippageBps: 0,
      tickersMs: 5_000,
    });
    const rx = await startRecordingServer();
    rx.fallback = () => ({ body: 'ok' });
    const events: TraderEvent[] = [];
    const { bot } = await createPaperBot(
      venue,
      START,
      {
        strategy: restingTakeProfit,
        params: { size: '5' },
        risk: RISK,
        exits: parseExitRules({ stopLoss: '0.05' }, 'x'),
      },
      (e) => events.push(e),
    );
    const notifier = new Notifier({
      config: NotifySchema.parse({
        webhook: { url: `${rx.baseUrl}/hook` },
        events: ['exit', 'denials'],
        denialBurst: { count: 1000, windowMs: 60_000 },
      }),
      outbox: venue.store.outbox,
      host: {
        logger: { info: () => undefined, warn: () => undefined },
        clock: new VirtualClock(START),
        speed: 1,
        bots: () => [],
        subscribe: (l) => bot.subscribe(l),
      },
      channels: [webhookChannel(`${rx.baseUrl}/hook`)],
    });
    const config = BotSchema.parse({ name: 'paper', strategy: 'resting-take-profit', symbols: ['AAPLUSDT'] });
    const token = 'exit-blocked-dashboard-token-31';
    const dash = await startDashboard({
      config: DashboardSchema.parse({ enabled: true, port: 0, token }),
      bots: () => [{ config, bot }],
      store: venue.store,
    });
    const readOnly = await startDashboard({
      config: DashboardSchema.parse({ enabled: true, port: 0 }),
      bots: () => [{ config, bot }],
      store: venue.store,
    });
    try {
      bot.start();
      const blocked = () => events.filter((e) => e.type === 'denied' && e.code === 'EXIT_BLOCKED');
      await waitFor(() => blocked().length >= 3, { timeoutMs: 60_000, what: 'three blocked stop-losses' });
      const takeProfit = events.find(
        (e) => e.type === 'order' && e.intent.tag === 'take-profit' && e.outcome.status === 'acked',
      );
      const oid = takeProfit?.type === 'order' ? takeProfit.order.clientOid : '(none)';
      const first = blocked()[0];
      expect(first?.type === 'denied' ? [first.intent.tag, first.blockedBy] : []).toEqual(['stop_loss', oid]);

      const s = bot.status();
      expect(s.exitBlocked?.count).toBeGreaterThanOrEqual(3);
      expect(s.exitBlocked?.first).toMatchObject({ symbol: 'AAPLUSDT', tag: 'stop_loss', blockedBy: oid });
      expect(statusLines([s], START)[1]).toMatch(/ EXIT_BLOCKED \d+$/);

      const get = async (base: string, auth?: string) =>
        (await (
          await fetch(
            new URL('/api/bots/paper', base),
            auth ? { headers: { authorization: `Bearer ${auth}` } } : {},
          )
        ).json()) as { exitBlocked?: { count: number; first: Record<string, unknown> } };
      const shown = await get(dash.url, token);
      expect(shown.exitBlocked?.first).toMatchObject({ tag: 'stop_loss', blockedBy: oid });
      const redacted = await get(readOnly.url);
      expect(redacted.exitBlocked?.count).toBeGreaterThanOrEqual(3);
      expect(JSON.stringify(redacted)).not.toContain(oid);

      // `tradebot status` reads the journal: the count, and the first sentence, which names the order.
      const report = botReports({ store: venue.store, bots: undefined, close: () => undefined }).find(
        (b) => b.bot === 'paper',
      );
      expect(report?.exitBlocked?.count).toBeGreaterThanOrEqual(3);
      expect(report?.exitBlocked?.firstMessage).toContain(oid);

      // One message for the episode, however many candles the stop stays blocked.
      await waitFor(() => rx.requests.length >= 1, { timeoutMs: 10_000, what: 'the notification' });
      const texts = rx.requests.map((r) => untimed((JSON.parse(r.body) as { text: string }).text));
      expect(texts.filter((t) => t.includes('EXIT_BLOCKED'))).toEqual([
        `paper: stop_loss exit of AAPLUSDT blocked (EXIT_BLOCKED) by the bot's own resting limit sell ${oid}: the venue has no cancel, the position cannot be sold until it fills. Said once until a sell of AAPLUSDT fills`,
      ]);
    } finally {
      await notifier.stop();
      await dash.close();
      await readOnly.close();
      await bot.stop();
      await rx.close();
      await venue.close();
    }
  }, 90_000);
});
