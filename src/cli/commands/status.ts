// `tradebot status`, `positions` and `trades`: what the bots of a deployment hold and did, read from its
// journal (see journal-report.ts), as aligned tables with units, or JSON (money as decimal strings).
import type { Command } from 'commander';
import { z } from 'zod';
import { formatTable } from '../../market/text-table.js';
import { US_EASTERN } from '../../market/us-calendar.js';
import { formatZoned } from '../../market/zoned-time.js';
import { parseDateFlag, parseFlags, FlagError } from '../flags.js';
import {
  botNames,
  botReports,
  deploymentNow,
  money,
  openJournalSource,
  parseSince,
  positionReports,
  type BotReport,
  type JournalSource,
} from '../journal-report.js';
import { counted, didYouMean } from '../../market/spelling.js';
import { isEstimatedFill } from '../../execution/trader.js';
import { Decimal } from '../../market/decimal.js';
import { VALUATION_RULE } from '../../portfolio/figures.js';
import type { StoredFill } from '../../store/index.js';
import { marginJson, marginNotes } from '../margin-report.js';
import { agesText, isPaperJournal, liveHeader, readLive, type LiveRead } from '../live-status.js';

const SourceFlags = z.object({
  config: z.string().min(1).optional(),
  journal: z.string().min(1).optional(),
  json: z.boolean().default(false),
});
const TradesFlags = SourceFlags.extend({
  bot: z.string().min(1).optional(),
  since: z.string().min(1).optional(),
  limit: z
    .string()
    .regex(/^[1-9]\d*$/, 'must be a whole number above zero, such as 50')
    .transform(Number)
    .optional(),
});

/** Reality tokens trade on US hours: times are shown in US Eastern, with the zone's name. */
const when = (ts: number | undefined): string => (ts === undefined ? '—' : formatZoned(ts, US_EASTERN));

const withSource =
  <T extends z.ZodType>(
    schema: T,
    fn: (src: JournalSource, flags: z.output<T>) => string | Promise<string>,
  ) =>
  async (raw: Record<string, unknown>): Promise<void> => {
    const flags = parseFlags(schema, raw);
    const src = openJournalSource(flags as { config?: string; journal?: string });
    try {
      process.stdout.write(`${await fn(src, flags)}\n`);
    } finally {
      src.close();
    }
  };

/** The first line of `positions` and `trades` on a paper run's journal. */
const paperLine = (src: JournalSource): string[] =>
  isPaperJournal(src) ? ['PAPER (pretend money, docs/paper.md)'] : [];
/** Each JSON row's `mode`: a paper run's pretend money, or the venue's. */
const modeOf = (src: JournalSource): 'paper' | 'live' => (isPaperJournal(src) ? 'paper' : 'live');

const checkBot = (src: JournalSource, bot: string | undefined): void => {
  if (bot === undefined) return;
  const names = botNames(src);
  if (!names.includes(bot))
    throw new FlagError(
      `--bot: no bot named ${bot} in this deployment${didYouMean(bot, names)}; its bots are ${names.join(', ') || '(none yet)'}`,
    );
};

/** A bot's blocked exits in `status --json` (absent when none was). */
const exitBlockedJson = (b: BotReport) =>
  b.exitBlocked === undefined
    ? {}
    : {
        exitBlocked: {
          count: b.exitBlocked.count,
          first: new Date(b.exitBlocked.firstTs).toISOString(),
          firstMessage: b.exitBlocked.firstMessage,
        },
      };

/** Exits the bots' own resting limit sells blocked: the first sentence names the order (issue 30). */
function blockedNotes(bots: readonly BotReport[]): string[] {
  const lines = bots.flatMap((b) =>
    b.exitBlocked === undefined
      ? []
      : [
          `  ${b.bot}: ${counted(b.exitBlocked.count, 'exit')} blocked, first ${when(b.exitBlocked.firstTs)}: ${b.exitBlocked.firstMessage}`,
        ],
  );
  return lines.length === 0
    ? []
    : ["exits blocked (the bot's own resting limit sells hold the position):", ...lines, ''];
}

/**
 * The deployment's book under the table: venue fills (or parts) no open order of a bot could take, booked to no
 * bot rather than lost (the fill router's conservation), with the net they hold per symbol.
 */
function deploymentNotes(src: JournalSource): string[] {
  const book = src.store.fills.deploymentBook();
  if (book.length === 0) return [];
  const net = new Map<string, { coin: string; qty: Decimal }>();
  for (const f of book) {
    const was = net.get(f.symbol) ?? { coin: f.baseCoin, qty: new Decimal(0) };
    net.set(f.symbol, {
      coin: was.coin,
      qty: f.side === 'buy' ? was.qty.plus(f.size) : was.qty.minus(f.size),
    });
  }
  const held = [...net.values()].map((x) => `${x.qty.toFixed()} ${x.coin}`).join(', ');
  return [
    `deployment's book: ${counted(book.length, 'fill')} of the account no bot's open order matched (booked to no bot, not lost), net ${held}; the log says each ("fill booked to the deployment").`,
    '',
  ];
}

/** Dust the bots hold: below the venue's minimum order quantity, no trade and no order can sell it alone. */
function dustNotes(bots: readonly BotReport[]): string[] {
  const lines = bots.flatMap((b) =>
    b.dust.map((d) => `  ${b.bot}: ${d.quantity.toFixed()} ${d.baseCoin} (${d.symbol})`),
  );
  return lines.length === 0
    ? []
    : [
        "dust (below the venue's minimum order quantity: no trade; the next entry's exit sells it with its own):",
        ...lines,
        '',
      ];
}

/** Each bot's newest drift check (src/drift): unexplained differences are an alarm, said first. */
function driftNotes(src: JournalSource): string[] {
  const latest = [...src.store.drift.latestByBot().values()];
  if (latest.length === 0) return [];
  const lines = latest.map(
    (r) =>
      `  ${r.bot}: ${r.unexplained > 0 ? `ALARM ${r.unexplained} unexplained` : '0 unexplained'} of ${counted(r.differences, 'difference')}, ${when(r.from)} to ${when(r.to)}`,
  );
  return ["drift (live against the replay of the venue's candles; tradebot drift --report):", ...lines, ''];
}

const driftJson = (src: JournalSource, bot: string) => {
  const r = src.store.drift.latestByBot().get(bot);
  return r === undefined
    ? {}
    : {
        drift: {
          from: new Date(r.from).toISOString(),
          to: new Date(r.to).toISOString(),
          differences: r.differences,
          unexplained: r.unexplained,
        },
      };
};

/** `status --json`: each bot's figures, money as decimal strings. */
function statusJson(src: JournalSource, bots: readonly BotReport[], live: LiveRead, paper: boolean): string {
  return JSON.stringify(
    bots.map((b) => ({
      bot: b.bot,
      state: b.state,
      quoteCoin: b.quoteCoin,
      intents: b.intents,
      denials: b.denials,
      ...exitBlockedJson(b),
      denialsByCode: b.denialCodes.map((d) => ({
        code: d.code,
        count: d.count,
        last: new Date(d.lastTs).toISOString(),
        lastMessage: d.lastMessage,
      })),
      orders: b.orders,
      fills: b.fills,
      realisedPnl: b.realisedPnl.toFixed(),
      unrealisedPnl: b.unrealisedPnl.toFixed(),
      fees: b.fees.toFixed(),
      net: b.net.toFixed(),
      equity: b.equity?.toFixed() ?? null,
      lastFill: b.lastFillTs === undefined ? null : new Date(b.lastFillTs).toISOString(),
      ...(b.dust.length === 0
        ? {}
        : {
            dust: b.dust.map((d) => ({
              symbol: d.symbol,
              baseCoin: d.baseCoin,
              quantity: d.quantity.toFixed(),
            })),
          }),
      ...driftJson(src, b.bot),
      ...(b.margin === undefined ? {} : { margin: marginJson(b.margin) }),
      mode: paper ? 'paper' : 'live',
      running: live.running,
      live: live.running ? (live.bots.get(b.bot) ?? null) : null,
    })),
    null,
    2,
  );
}

async function status(src: JournalSource, f: { json: boolean }): Promise<string> {
  const bots = botReports(src);
  const live = await readLive(src);
  const paper = isPaperJournal(src);
  if (f.json) return statusJson(src, bots, live, paper);
  const liveOf = (b: BotReport) => (live.running ? live.bots.get(b.bot) : undefined);
  const table = formatTable(
    [
      { header: 'BOT' },
      { header: 'STATE' },
      { header: 'INTENTS', numeric: true },
      { header: 'DENIED', numeric: true },
      { header: 'ORDERS', numeric: true },
      { header: 'FILLS', numeric: true },
      { header: 'REALISED PNL', numeric: true },
      { header: 'UNREALISED PNL', numeric: true },
      { header: 'FEES', numeric: true },
      { header: 'EQUITY', numeric: true },
      { header: 'LAST FILL' },
    ],
    bots.map((b) => [
      b.bot,
      liveOf(b)?.state ?? b.state,
      String(b.intents),
      String(b.denials),
      String(b.orders),
      String(b.fills),
      money(b.realisedPnl, b.quoteCoin),
      money(b.unrealisedPnl, b.quoteCoin),
      money(b.fees, b.quoteCoin),
      b.equity === undefined ? '—' : money(b.equity, b.quoteCoin),
      when(b.lastFillTs),
    ]),
  );
  // What the DENIED column counts: each code, how often, and the latest sentence.
  const denied = bots.flatMap((b) =>
    b.denialCodes.map((d) => `  ${b.bot}: ${d.code} x${d.count}, latest ${when(d.lastTs)}: ${d.lastMessage}`),
  );
  const ages = bots.flatMap((b) => {
    const l = liveOf(b);
    return l === undefined
      ? []
      : [`  ${b.bot}: ${agesText(l.ages)}${l.degraded ? `; ${l.problems.join('; ')}` : ''}`];
  });
  const notes = [
    ...(ages.length > 0 ? ['data ages (since each feed last arrived):', ...ages, ''] : []),
    ...driftNotes(src),
    ...marginNotes(bots),
    ...blockedNotes(bots),
    ...deploymentNotes(src),
    ...dustNotes(bots),
    ...(denied.length > 0 ? ['denied:', ...denied, ''] : []),
    `journal ${src.store.path}; ${VALUATION_RULE}; counts are the deployment's, across restarts.`,
    ...(src.bots === undefined
      ? ["equity needs the bots' capital: pass --config <deployment.yaml> instead of --journal."]
      : []),
  ];
  return `${liveHeader(live, paper, when(deploymentNow(src.store)))}\n${table}\n\n${notes.join('\n')}`;
}

function positions(src: JournalSource, f: { json: boolean }): string {
  const rows = positionReports(src);
  if (f.json)
    return JSON.stringify(
      rows.map((p) => ({
        bot: p.bot,
        symbol: p.symbol,
        baseCoin: p.baseCoin,
        quoteCoin: p.quoteCoin,
        size: p.size.toFixed(),
        avgPrice: p.avgPrice.toFixed(),
        lastPrice: p.lastPrice?.toFixed() ?? null,
        lastPriceAt: p.lastPriceTs === undefined ? null : new Date(p.lastPriceTs).toISOString(),
        unrealisedPnl: p.unrealisedPnl.toFixed(),
        realisedPnl: p.realisedPnl.toFixed(),
        fees: p.fees.toFixed(),
        mode: modeOf(src),
      })),
      null,
      2,
    );
  if (rows.length === 0) return [...paperLine(src), 'no open position'].join('\n');
  return (
    paperLine(src)
      .map((l) => `${l}\n`)
      .join('') +
    formatTable(
      [
        { header: 'BOT' },
        { header: 'SYMBOL' },
        { header: 'SIZE', numeric: true },
        { header: 'AVG PRICE', numeric: true },
        { header: 'MARK (LAST TRADED)', numeric: true },
        { header: 'MARK AT' },
        { header: 'UNREALISED PNL', numeric: true },
        { header: 'REALISED PNL', numeric: true },
        { header: 'FEES', numeric: true },
      ],
      rows.map((p) => [
        p.bot,
        p.symbol,
        `${p.size.toFixed()} ${p.baseCoin}`,
        money(p.avgPrice, p.quoteCoin, 4),
        // At the average price's places: an estimated buy's fill price has 12 (see trades).
        p.lastPrice === undefined ? '—' : money(p.lastPrice, p.quoteCoin, 4),
        p.lastPriceTs === undefined ? 'fill price' : when(p.lastPriceTs),
        money(p.unrealisedPnl, p.quoteCoin),
        money(p.realisedPnl, p.quoteCoin),
        money(p.fees, p.quoteCoin),
      ]),
    )
  );
}

/** `trades --json`: each fill with its exact values, as the journal keeps them. */
function tradesJson(src: JournalSource, fills: readonly StoredFill[]): string {
  return JSON.stringify(
    fills.map((x) => ({
      time: new Date(x.ts).toISOString(),
      bot: x.bot ?? null,
      side: x.side,
      symbol: x.symbol,
      size: x.size.toFixed(),
      baseCoin: x.baseCoin,
      price: x.price.toFixed(),
      value: x.price.mul(x.size).toFixed(),
      fee: x.fee.toFixed(),
      quoteCoin: x.quoteCoin,
      execId: x.execId,
      clientOid: x.clientOid ?? null,
      estimated: isEstimatedFill(x.execId),
      // The log's feeEstimated: the venue's fills do not say maker or taker, so the fee was computed at an
      // inferred liquidity. null for a fill journaled before the journal kept it.
      liquidity: x.liquidity ?? null,
      feeEstimated: x.feeEstimated ?? null,
      // A margin liquidation: the venue closed the bot's position (no order of its own; docs/margin.md).
      liquidation: x.liquidation === true,
      mode: modeOf(src),
    })),
    null,
    2,
  );
}

function trades(src: JournalSource, f: z.output<typeof TradesFlags>): string {
  checkBot(src, f.bot);
  const sinceTs =
    f.since === undefined ? undefined : parseSince(f.since, deploymentNow(src.store), parseDateFlag);
  let fills = src.store.fills.list({ bot: f.bot, sinceTs });
  if (f.limit !== undefined) fills = fills.slice(-f.limit);
  if (f.json) return tradesJson(src, fills);
  if (fills.length === 0) return [...paperLine(src), 'no fill in this range'].join('\n');
  // Prices and sizes of a symbol with as many decimals as its longest one has, so the points line up
  // ("151.90" under "151.83", never "151.9"); padding with zeros never changes a value. An estimated buy's
  // price (its quote amount over its size, to 12 places) does not set the column: it is shown rounded to
  // it, marked ≈ like every estimated fill, and its exact value is in --json.
  // A symbol whose every fill is an estimated buy (price places still -1) shows 4, as average prices are.
  const places = new Map<string, { price: number; size: number }>();
  for (const x of fills) {
    const p = places.get(x.symbol) ?? { price: -1, size: 0 };
    places.set(x.symbol, {
      price:
        isEstimatedFill(x.execId) && x.side === 'buy' ? p.price : Math.max(p.price, x.price.decimalPlaces()),
      size: Math.max(p.size, x.size.decimalPlaces()),
    });
  }
  const priceAt = (symbol: string) => {
    const p = places.get(symbol)?.price ?? -1;
    return p < 0 ? 4 : p;
  };
  const anyEstimated = fills.some((x) => isEstimatedFill(x.execId));
  return (
    paperLine(src)
      .map((l) => `${l}\n`)
      .join('') +
    formatTable(
      [
        { header: 'TIME' },
        { header: 'BOT' },
        { header: 'SIDE' },
        { header: 'SYMBOL' },
        { header: 'SIZE', numeric: true },
        { header: 'PRICE', numeric: true },
        { header: 'VALUE', numeric: true },
        { header: 'FEE', numeric: true },
        { header: 'CLIENT OID' },
      ],
      fills.map((x) => [
        when(x.ts),
        x.bot ?? '—',
        x.liquidation === true ? `${x.side} LIQUIDATED` : x.side,
        x.symbol,
        `${x.size.toFixed(places.get(x.symbol)?.size)} ${x.baseCoin}`,
        `${isEstimatedFill(x.execId) ? '≈' : ''}${x.price.toFixed(priceAt(x.symbol), Decimal.ROUND_HALF_EVEN)} ${x.quoteCoin}`,
        money(x.price.mul(x.size), x.quoteCoin),
        money(x.fee, x.quoteCoin, 4),
        x.clientOid ?? (x.liquidation === true ? 'liquidation' : '—'),
      ]),
    ) +
    (anyEstimated
      ? `\n≈ estimated (fills: estimated): booked from the order's acknowledgement at the touch, not read from the venue`
      : '')
  );
}

const source = (c: Command): Command =>
  c
    .option('--config <file>', "the deployment file (its store.path; adds equity from the bots' capital)")
    .option('--journal <file>', 'a journal file (SQLite) instead of --config')
    .option('--json', 'JSON for scripts (money as decimal strings)');

export function register(program: Command): void {
  source(
    program
      .command('status')
      .description(
        'Each bot of a deployment: trading state, intents, denials, orders, fills, PnL, fees, equity',
      ),
  ).action(withSource(SourceFlags, status));
  source(
    program.command('positions').description('Open positions of every bot: size, average price, PnL, fees'),
  ).action(withSource(SourceFlags, positions));
  source(
    program
      .command('trades')
      .description('Fills of the deployment, oldest first')
      .option('--bot <name>', 'only this bot')
      .option(
        '--since <when>',
        "a duration back from now on the venue's clock (30m, 4h, 2d: the wall clock for a real venue, the simulator's for a simulator) or a date (2026-11-23T14:30:00Z)",
      )
      .option('--limit <n>', 'only the newest n fills'),
  ).action(withSource(TradesFlags, trades));
}
