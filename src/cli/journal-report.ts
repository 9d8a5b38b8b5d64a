// What a deployment's journal says, as the operator asks it from the command line (`tradebot status`,
// `positions`, `trades`): bots with their state, counts, PnL and fees; open positions; fills. Read from
// the SQLite journal only, so it works while the daemon runs (WAL readers) and after it stopped.
// Positions are valued as the daemon values them (VALUATION_RULE): at the venue's last traded price the daemon
// journaled, with its time; the figures are moneyFigures', the one computation every surface shows.
import { existsSync } from 'node:fs';
import { loadJournalSettings } from '../config/index.js';
import type { Decimal } from '../market/decimal.js';
import { formatMoney } from '../market/decimal.js';
import { liveClock } from '../feeds/clock.js';
import { isDust } from '../market/dust.js';
import { dustPositions } from '../portfolio/dust-view.js';
import { moneyFigures } from '../portfolio/figures.js';
import { Portfolio } from '../portfolio/portfolio.js';
import { stateWord } from '../market/trading-state.js';
import {
  journalCounts,
  openStore,
  pausedKey,
  readInstrumentRules,
  readLastPrice,
  venueNow,
  type Store,
  type StoredFill,
} from '../store/index.js';
import { FlagError } from './flags.js';
import { marginReport, type MarginReport } from './margin-report.js';
import { DEFAULT_MARGIN_MODEL, type MarginModel } from '../market/margin.js';
import { marginModelOf } from '../sim/options.js';

/** A bot as the journal (and the deployment file, when given) knows it. */
export interface BotReport {
  readonly bot: string;
  readonly state: string;
  readonly quoteCoin: string;
  readonly intents: number;
  readonly denials: number;
  /** The denials by code, most first, each with its latest refusal (time and sentence). */
  readonly denialCodes: readonly DenialCount[];
  /** Exits denied EXIT_BLOCKED: how many, and the first (its sentence names the resting order that blocked it). */
  readonly exitBlocked?: { count: number; firstTs: number; firstMessage: string } | undefined;
  readonly orders: number;
  readonly fills: number;
  readonly realisedPnl: Decimal;
  readonly unrealisedPnl: Decimal;
  readonly fees: Decimal;
  /** realised + unrealised - fees. */
  readonly net: Decimal;
  /** Capital + PnL - fees, at the marks; only with the deployment file (it holds the capital). */
  readonly equity: Decimal | undefined;
  readonly lastFillTs: number | undefined;
  /** Positions below the venue's minimum order quantity (src/market/dust.ts), shown apart; none when empty. */
  readonly dust: readonly { symbol: string; baseCoin: string; quantity: Decimal }[];
  /** A MARGIN bot's loans, interest and risk ratio at the venue's now; undefined for a SPOT bot. */
  readonly margin?: MarginReport | undefined;
}

/** How often a bot's intents were refused with one code, and the latest refusal's time and sentence. */
export interface DenialCount {
  readonly code: string;
  readonly count: number;
  readonly lastTs: number;
  readonly lastMessage: string;
}

export interface PositionReport {
  readonly bot: string;
  readonly symbol: string;
  readonly baseCoin: string;
  readonly quoteCoin: string;
  readonly size: Decimal;
  readonly avgPrice: Decimal;
  /** The mark: the venue's last traded price (the first fill's price when the journal holds none). */
  readonly lastPrice: Decimal | undefined;
  /** The venue time of the mark; undefined when it is a fill's price. */
  readonly lastPriceTs: number | undefined;
  readonly unrealisedPnl: Decimal;
  readonly realisedPnl: Decimal;
  readonly fees: Decimal;
}

/** A bot as the deployment file tells a journal reader. */
export interface JournalBot {
  readonly capital: string;
  readonly quoteCoin: string;
  readonly category?: string | undefined;
}

/** The journal of a deployment, and the bots' capital when the deployment file was given. */
export interface JournalSource {
  readonly store: Store;
  /** Bot name -> capital, quote coin and category, from the deployment file. */
  readonly bots: ReadonlyMap<string, JournalBot> | undefined;
  /** The venue's margin model from the deployment file (default the simulator's). */
  readonly marginModel?: MarginModel | undefined;
  close(): void;
}

/**
 * Opens the journal named by `--journal`, or by `--config`'s `store.path`. The deployment's secrets are
 * not needed to read it (loadJournalSettings). A journal that does not exist is
 * invalid input (nothing to report), never created.
 */
export function openJournalSource(o: {
  config?: string | undefined;
  journal?: string | undefined;
}): JournalSource {
  if (o.config !== undefined && o.journal !== undefined)
    throw new FlagError('give --config or --journal, not both (--journal reads a journal file directly)');
  if (o.config === undefined && o.journal === undefined)
    throw new FlagError(
      'which deployment? pass --config <deployment.yaml> (its store.path) or --journal <file.db>',
    );
  let path = o.journal;
  let bots: Map<string, JournalBot> | undefined;
  let marginModel: MarginModel | undefined;
  if (o.config !== undefined) {
    const cfg = loadJournalSettings(o.config);
    path = cfg.store.path;
    bots = new Map(
      cfg.bots.map((b) => [b.name, { capital: b.capital, quoteCoin: b.quoteCoin, category: b.category }]),
    );
    if (cfg.venue?.margin !== undefined) marginModel = marginModelOf(cfg.venue.margin);
  }
  if (path === undefined || !existsSync(path))
    throw new FlagError(
      `no journal at ${path ?? '(none)'}: run the deployment first (tradebot run --config ...) or check the path`,
    );
  const store = openStore(path, { busyTimeoutMs: 2000 });
  return { store, bots, marginModel, close: () => store.close() };
}

const denialCodes = (s: Store, bot: string): DenialCount[] =>
  (
    s.db
      .prepare(
        `SELECT d.code AS code, g.n AS count, d.ts AS lastTs, d.message AS lastMessage
           FROM (SELECT code, COUNT(*) AS n, MAX(id) AS last FROM denials WHERE bot = ? GROUP BY code) g
           JOIN denials d ON d.id = g.last
          ORDER BY g.n DESC, d.code`,
      )
      .all(bot) as DenialCount[]
  ).map((d) => ({ ...d }));

const exitBlocked = (s: Store, bot: string): Pick<BotReport, 'exitBlocked'> => {
  const row = s.db
    .prepare(
      `SELECT COUNT(*) AS count, MIN(id) AS first FROM denials WHERE bot = ? AND code = 'EXIT_BLOCKED'`,
    )
    .get(bot) as { count: number; first: number | null };
  if (row.first === null) return {};
  const first = s.db.prepare(`SELECT ts, message FROM denials WHERE id = ?`).get(row.first) as {
    ts: number;
    message: string;
  };
  return { exitBlocked: { count: row.count, firstTs: first.ts, firstMessage: first.message } };
};

/** Every bot of the deployment file and of the journal, in the file's order, then by name. */
export function botNames(src: JournalSource): string[] {
  const inJournal = src.store.db
    .prepare(
      `SELECT bot FROM orders WHERE bot IS NOT NULL UNION SELECT bot FROM fills WHERE bot IS NOT NULL
       UNION SELECT bot FROM intents WHERE bot IS NOT NULL ORDER BY bot`,
    )
    .pluck()
    .all() as string[];
  const names = [...(src.bots?.keys() ?? [])];
  for (const b of inJournal) if (!names.includes(b)) names.push(b);
  return names;
}

/** MARGIN in the deployment file, or (a journal alone) its orders are MARGIN. */
function isMarginBot(src: JournalSource, bot: string): boolean {
  const category = src.bots?.get(bot)?.category;
  if (category !== undefined) return category === 'MARGIN';
  return (
    src.store.db.prepare(`SELECT 1 FROM orders WHERE bot = ? AND category = 'MARGIN' LIMIT 1`).get(bot) !==
    undefined
  );
}

function portfolioOf(src: JournalSource, bot: string, fills: readonly StoredFill[]) {
  const cfg = src.bots?.get(bot);
  const quoteCoin = cfg?.quoteCoin ?? fills[0]?.quoteCoin ?? 'USDT';
  const p = Portfolio.fromFills(fills, {
    quoteCoin,
    cash: { [quoteCoin]: cfg?.capital ?? '0' },
    ...(isMarginBot(src, bot) ? { margin: src.marginModel ?? DEFAULT_MARGIN_MODEL } : {}),
  });
  // The marks the daemon valued at (LiveBot journals each ticker's last traded price).
  const markTs = new Map<string, number>();
  for (const symbol of new Set(fills.map((f) => f.symbol))) {
    const last = readLastPrice(src.store, symbol);
    if (last === undefined) continue;
    p.mark(symbol, last.price);
    markTs.set(symbol, last.ts);
  }
  return { p, quoteCoin, capital: cfg?.capital, markTs };
}

export function botReports(src: JournalSource): BotReport[] {
  const s = src.store;
  return botNames(src).map((bot) => {
    const fills = s.fills.list({ bot });
    const { p, quoteCoin, capital } = portfolioOf(src, bot, fills);
    const dust = dustPositions(p.positions(), (symbol) => readInstrumentRules(s, symbol));
    const m = moneyFigures(p);
    const counts = journalCounts(s, bot);
    return {
      bot,
      state: stateWord(s.meta.get(`trading-state:${bot}`) ?? 'ACTIVE', s.meta.get(pausedKey(bot)) === 'true'),
      quoteCoin,
      intents: counts.intents,
      denials: counts.denials,
      denialCodes: denialCodes(s, bot),
      ...exitBlocked(s, bot),
      orders: counts.orders,
      fills: counts.fills,
      realisedPnl: m.realisedPnl,
      unrealisedPnl: m.unrealisedPnl,
      fees: m.fees,
      net: m.net,
      equity: capital === undefined ? undefined : m.equity,
      lastFillTs: fills.at(-1)?.ts,
      dust: dust.map((x) => ({ symbol: x.symbol, baseCoin: x.baseCoin, quantity: x.quantity })),
      margin: marginReport(p, deploymentNow(s), s, fills),
    };
  });
}

/** Open positions (size not zero) of every bot, or of one. */
export function positionReports(src: JournalSource, onlyBot?: string): PositionReport[] {
  const s = src.store;
  const out: PositionReport[] = [];
  for (const bot of botNames(src)) {
    if (onlyBot !== undefined && bot !== onlyBot) continue;
    const { p, markTs } = portfolioOf(src, bot, s.fills.list({ bot }));
    for (const pos of p.positions()) {
      // Dust is no position to manage (status shows it apart).
      if (pos.quantity.isZero() || isDust(readInstrumentRules(s, pos.symbol), pos.quantity)) continue;
      out.push({
        bot,
        symbol: pos.symbol,
        baseCoin: pos.baseCoin,
        quoteCoin: pos.quoteCoin,
        size: pos.quantity,
        avgPrice: pos.avgPrice,
        lastPrice: pos.mark,
        lastPriceTs: markTs.get(pos.symbol),
        unrealisedPnl: pos.unrealisedPnl,
        realisedPnl: pos.realisedPnl,
        fees: pos.fees,
      });
    }
  }
  return out;
}

/**
 * Now on the venue's clock, as `--since 10m` counts back from it: the wall clock for a real venue; for a
 * simulator, its clock (advanced at its speed while the daemon runs; where it stopped once the run ended).
 * See venueNow in src/store.
 */
export function deploymentNow(s: Store): number {
  return venueNow(s, liveClock.now());
}

const DURATION_RE = /^(\d+(?:\.\d+)?)(s|m|h|d|w)$/;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `--since`: a duration (30m, 4h, 2d) back from `now`, or a date (see parseDateFlag). */
export function parseSince(s: string, now: number, parseDate: (flag: string, s: string) => number): number {
  const m = DURATION_RE.exec(s.trim());
  if (m) return now - Number(m[1]) * (UNIT_MS[m[2] as string] as number);
  try {
    return parseDate('--since', s);
  } catch {
    throw new FlagError(
      `--since must be a duration such as 30m, 4h or 2d (back from now on the venue's clock) or a date such as 2026-11-23T14:30:00Z; got ${JSON.stringify(s)}`,
    );
  }
}

/** Money with its coin (see formatMoney). */
export const money = formatMoney;
