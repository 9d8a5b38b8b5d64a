// Exit parity between the backtester and paper trading on the simulator (the daemon's live pipeline over
// the wire, the simulator replaying the same candles with the shared candle fill model): a stop-loss that
// the market gaps through, a time exit and a session-end exit are sold at the same open on both paths,
// with their exit reason. (An exit that
// triggers inside a candle fills at the trigger in a backtest, while paper trading sends a market order
// when a poll sees the price through it: the venue has no stop order, see docs/strategies.md.)
import { describe, expect, it } from 'vitest';
import { runBacktest } from '../../../src/backtest/engine.js';
import type { TraderEvent } from '../../../src/execution/trader.js';
import {
  parseExitRules,
  parseProtections,
  type ExitRulesInput,
  type ProtectionsInput,
} from '../../../src/strategy/exits.js';
import { waitFor } from '../../helpers/wait-for.js';
import { RISK, entryScript } from './fixtures/exit-cases.js';
import { createPaperBot, startPaperParity } from './fixtures/paper-parity.js';

const MIN = 60_000;
const SPEED = 120;
const CREDS = { apiKey: 'x-key', apiSecret: 'x-secret', passphrase: 'x-pass' };

type Bar = [string, string, string, string];
const flat = (p: number, n: number): Bar[] =>
  Array.from({ length: n }, (): Bar => [
    p.toFixed(2),
    (p + 0.2).toFixed(2),
    (p - 0.2).toFixed(2),
    p.toFixed(2),
  ]);

interface Case {
  readonly name: string;
  readonly start: number;
  readonly exits: ExitRulesInput;
  /** Protections of the bot; their locks show in its status (what /readyz answers for it). */
  readonly protections?: ProtectionsInput;
  readonly locks?: readonly string[];
  readonly bars: readonly Bar[];
  readonly fills: readonly string[];
}

// 1000 USDT at 190: 5.2631 AAPL (4 decimals, rounded down), fee 0.2% of 999.989 = 1.999978.
const ENTRY = 'entry buy 190 5.2631 fee 1.999978 -';
const CASES: readonly Case[] = [
  {
    // A gap to 180, under the stop 190 x 0.95 = 180.50, and flat there: whichever candle a poll sees the
    // gap in, the market sell meets the open 180 (fee 0.2% of 947.358).
    name: 'a stop-loss the market gaps through',
    start: Date.UTC(2026, 10, 23, 15, 0), // Monday 10:00 ET
    exits: { stopLoss: '0.05' },
    protections: { cooldownAfterStop: 30 },
    locks: ['cooldownAfterStop AAPLUSDT'],
    bars: [...flat(190, 3), ...flat(180, 7)],
    fills: [ENTRY, 'stop_loss sell 180 5.2631 fee 1.894716 stop_loss'],
  },
  {
    // Entered in the 10:01 candle; 3 minutes later the exit goes out in the 10:04 candle, open 191.
    name: 'a time exit',
    start: Date.UTC(2026, 10, 23, 15, 0),
    exits: { maxTradeMinutes: 3 },
    bars: [...flat(190, 4), ...flat(191, 6)],
    fills: [ENTRY, 'time_exit sell 191 5.2631 fee 2.0105042 time_exit'],
  },
  {
    // 15:55 ET; the regular session ends at 16:00 and after-hours is not traded: out in the 15:59 candle.
    name: 'a session-end exit',
    start: Date.UTC(2026, 10, 23, 20, 55),
    exits: { sessionEnd: true },
    bars: [...flat(190, 4), ...flat(192, 3)],
    fills: [ENTRY, 'session_end sell 192 5.2631 fee 2.0210304 session_end'],
  },
];
const FEES = { feeRate: '0.002', makerFeeRate: '0.0005' };

const fillLine = (e: TraderEvent): string | undefined =>
  e.type === 'fill'
    ? `${e.fill.tag} ${e.fill.side} ${e.fill.price.toFixed()} ${e.fill.size.toFixed()} fee ${e.fill.fee.toFixed()} ${e.fill.exitReason ?? '-'}`
    : undefined;

describe('exit parity between the backtester and paper trading on the simulator', () => {
  it.each(CASES.map((c) => [c.name, c] as const))(
    '%s: the same open, size, fee and reason',
    async (_n, c) => {
      const START = c.start;
      const candles = c.bars.map(([open, high, low, close], i) => ({
        openTime: START + i * MIN,
        open,
        high,
        low,
        close,
        volume: '10',
      }));
      const exits = parseExitRules(c.exits, c.name);
      const { venue, source } = await startPaperParity({
        credentials: CREDS,
        start: START,
        speed: SPEED,
        candles,
        fees: FEES,
        slippageBps: 0,
        tickersMs: 5_000,
      });
      const backtestFills: string[] = [];
      await runBacktest({
        source,
        dataset: 'exit-parity',
        bot: 'paper',
        strategy: entryScript,
        risk: RISK,
        capital: '100000',
        ...FEES,
        exits,
        onEvent: (e) => {
          const l = fillLine(e);
          if (l) backtestFills.push(l);
        },
      });

      const paperFills: string[] = [];
      const paperSpec = {
        strategy: entryScript,
        risk: RISK,
        ...FEES,
        exits,
        protections: parseProtections(c.protections ?? {}, c.name),
      };
      const { bot } = await createPaperBot(venue, START, paperSpec, (e) => {
        const l = fillLine(e);
        if (l) paperFills.push(l);
      });
      bot.start();
      await waitFor(() => paperFills.length >= 2, {
        timeoutMs: 60_000,
        what: 'the paper bot to enter and exit',
      });
      expect((bot.status().protections ?? []).map((l) => `${l.protection} ${l.symbol ?? 'all'}`)).toEqual(
        c.locks ?? [],
      );
      await venue.close();

      expect(backtestFills).toEqual(c.fills);
      expect(paperFills).toEqual(backtestFills);
    },
    90_000,
  );
});
