// `tradebot compare`: a paper run (its journal) and the backtest of the same candles (its result.json) side by
// side, trade by trade, each difference explained by the fill model (src/research/paper-compare.ts).
import { existsSync, readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { z } from 'zod';
import { DECIMAL_RE, INTERVAL_MS, type CandleInterval } from '../../api/index.js';
import { PAPER_ACCOUNT_KEY, decodePaperAccount } from '../../execution/paper-journal.js';
import { Decimal } from '../../market/decimal.js';
import { didYouMean } from '../../market/spelling.js';
import { formatTable } from '../../market/text-table.js';
import { US_EASTERN } from '../../market/us-calendar.js';
import { formatZoned } from '../../market/zoned-time.js';
import {
  compareIntents,
  comparePaperBacktest,
  executionsOf,
  type CompareFill,
  type ComparedIntent,
  type ComparedTrade,
  type Execution,
  type IntentDecision,
} from '../../research/paper-compare.js';
import type { Store } from '../../store/index.js';
import { FlagError, parseFlags } from '../flags.js';
import { botNames, openJournalSource, type JournalSource } from '../journal-report.js';

const Flags = z.object({
  config: z.string().min(1).optional(),
  journal: z.string().min(1).optional(),
  backtest: z.string({ error: 'needs --backtest <result.json> (the backtest of the same candles)' }).min(1),
  bot: z.string().min(1).optional(),
  json: z.boolean().default(false),
});

const dec = z.string().regex(DECIMAL_RE, 'must be a decimal string');
/** The part of a backtest's result.json read here: its fills, and the intents with the gate's decisions. */
const ResultFills = z.object({
  meta: z.object({
    symbol: z.string(),
    symbols: z.array(z.string()).optional(),
    interval: z.enum(Object.keys(INTERVAL_MS) as [CandleInterval, ...CandleInterval[]]),
    from: z.number(),
    to: z.number(),
  }),
  intents: z
    .array(
      z.object({
        ts: z.number(),
        symbol: z.string(),
        side: z.enum(['buy', 'sell']),
        tag: z.string(),
        approved: z.boolean(),
        code: z.string().optional(),
      }),
    )
    .optional(),
  fills: z.array(
    z.object({
      ts: z.number(),
      symbol: z.string(),
      side: z.enum(['buy', 'sell']),
      price: dec,
      size: dec,
      liquidity: z.enum(['maker', 'taker']),
      tag: z.string(),
    }),
  ),
});

/** The backtest's fills and intents, checked at the boundary: a file that is no result.json is named with what is wrong. */
function readBacktest(path: string): {
  fills: CompareFill[];
  intents: IntentDecision[] | undefined;
  meta: z.output<typeof ResultFills>['meta'];
} {
  if (!existsSync(path)) throw new FlagError(`--backtest: no file at ${path}; give a backtest's result.json`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    throw new FlagError(`--backtest: ${path} is not JSON; give a backtest's result.json`);
  }
  const r = ResultFills.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new FlagError(
      `--backtest: ${path} is not a backtest's result.json (${i?.path.join('.') ?? ''}: ${i?.message ?? ''})`,
    );
  }
  const fills = r.data.fills.map((f) => ({
    ...f,
    price: new Decimal(f.price),
    size: new Decimal(f.size),
    key: `${f.ts}|${f.symbol}|${f.side}|${f.tag}`,
  }));
  const intents = r.data.intents?.map((i) => ({
    ts: i.ts,
    symbol: i.symbol,
    side: i.side,
    tag: i.tag,
    decision: i.approved ? 'approved' : (i.code ?? 'denied'),
  }));
  return { fills, intents, meta: r.data.meta };
}

/**
 * Why this journal and this backtest cannot be compared, or undefined: a bot the journal does not hold, no
 * symbol in common, or no time in common (a backtest of another symbol or year compared with exit 0 before).
 */
function mismatch(
  src: JournalSource,
  bot: string | undefined,
  paper: readonly CompareFill[],
  meta: z.output<typeof ResultFills>['meta'],
): string | undefined {
  if (bot !== undefined) {
    // The journal's bots only (not the deployment file's): a bot that never traded has nothing to compare.
    const bots = botNames({ ...src, bots: undefined });
    if (!bots.includes(bot))
      return `--bot: no bot named ${bot} in this journal${didYouMean(bot, bots)}; its bots are ${bots.join(', ') || '(none)'}`;
  }
  if (paper.length === 0) return undefined;
  const theirs = meta.symbols ?? meta.symbol.split(',');
  const ours = [...new Set(paper.map((f) => f.symbol))];
  if (!ours.some((s) => theirs.includes(s)))
    return `--backtest: the backtest trades ${theirs.join(', ')} and the paper run ${ours.join(', ')}: no symbol in common; give the backtest of the paper run's recorded candles`;
  const first = Math.min(...paper.map((f) => f.ts));
  const last = Math.max(...paper.map((f) => f.ts));
  if (last < meta.from || first > meta.to)
    return `--backtest: the backtest spans ${formatZoned(meta.from, US_EASTERN)} to ${formatZoned(meta.to, US_EASTERN)} and the paper run traded ${formatZoned(first, US_EASTERN)} to ${formatZoned(last, US_EASTERN)}: no time in common; give the backtest of the paper run's recorded candles`;
  return undefined;
}

/** The paper run's intents from its journal, each with the gate's decision (a denial is journaled with its intent). */
function paperIntents(store: Store, bot: string | undefined): IntentDecision[] {
  const filter = bot === undefined ? {} : { bot };
  const denied = new Map(
    store.denials.list(filter).map((d) => [`${d.ts}|${d.symbol}|${d.intent.tag}`, d.code]),
  );
  return store.intents.list(filter).map((i) => ({
    ts: i.ts,
    symbol: i.symbol,
    side: i.intent.side,
    tag: i.intent.tag,
    decision: denied.get(`${i.ts}|${i.symbol}|${i.intent.tag}`) ?? 'approved',
  }));
}

/** The paper run's fills from its journal, with each one's liquidity and book age from the paper account. */
function paperFills(store: Store, bot: string | undefined): CompareFill[] {
  const saved = store.meta.get(PAPER_ACCOUNT_KEY);
  if (saved === undefined)
    throw new FlagError(
      'this journal holds no paper account: give the journal of a paper run (tradebot run --paper)',
    );
  const account = decodePaperAccount(saved);
  const core = new Map(account.core.accounts.flatMap((a) => a.fills).map((f) => [f.execId, f]));
  const tags = new Map(store.orders.list({}).map((o) => [o.clientOid, o.intent?.tag ?? '']));
  return store.fills.list(bot === undefined ? {} : { bot }).map((f) => ({
    ts: f.ts,
    symbol: f.symbol,
    side: f.side,
    price: f.price,
    size: f.size,
    liquidity: core.get(f.execId)?.liquidity ?? 'taker',
    tag: tags.get(f.clientOid ?? core.get(f.execId)?.clientOid ?? '') ?? '',
    key: f.clientOid ?? core.get(f.execId)?.clientOid ?? f.execId,
    bookAgeMs: account.bookAgeMs[f.execId],
  }));
}

const cell = (e: Execution | undefined): string =>
  e === undefined ? '—' : `${e.size.toFixed()} @ ${e.price.toDecimalPlaces(4).toFixed()} ${e.liquidity}`;

function text(rows: readonly ComparedTrade[]): string {
  const table = formatTable(
    ['time (ET)', 'symbol', 'side', 'tag', 'paper', 'backtest', 'cost bps', 'why'].map((header) => ({
      header,
      numeric: header === 'cost bps',
    })),
    rows.map((r) => [
      formatZoned((r.paper ?? (r.backtest as Execution)).ts, US_EASTERN),
      r.symbol,
      r.side,
      r.tag,
      cell(r.paper),
      cell(r.backtest),
      r.costBps === undefined ? '—' : r.costBps.toFixed(2),
      r.why,
    ]),
  );
  const both = rows.filter((r) => r.paper !== undefined && r.backtest !== undefined).length;
  return `${table}\n${both} of ${rows.length} trades in both runs; cost bps > 0: paper paid more than the backtest`;
}

const decided = (d: IntentDecision | undefined): string =>
  d === undefined ? '—' : `${d.side} ${d.tag} ${d.decision}`;

/** The intents and the gate's decisions: a count that agree, and each that does not, with why. */
function intentsText(rows: readonly ComparedIntent[] | undefined): string {
  if (rows === undefined)
    return 'intents: this result.json has none (written before they were kept): run the backtest again to compare intents and gate decisions';
  const off = rows.filter((r) => !r.agree);
  const line = `intents: ${rows.length - off.length} of ${rows.length} intents agree (side, tag and gate decision)`;
  if (off.length === 0) return line;
  const table = formatTable(
    ['time (ET)', 'symbol', 'paper', 'backtest', 'why'].map((header) => ({ header })),
    off.map((r) => [
      formatZoned((r.backtest ?? (r.paper as IntentDecision)).ts, US_EASTERN),
      r.symbol,
      decided(r.paper),
      decided(r.backtest),
      r.why,
    ]),
  );
  return `${line}; these differ:\n${table}`;
}

export function register(program: Command): void {
  program
    .command('compare')
    .description(
      "A paper run's journal against the backtest of the same candles, trade by trade, each difference explained by the fill model",
    )
    .option('--config <file>', 'the paper deployment (its store.path)')
    .option('--journal <file.db>', "the paper run's journal")
    .requiredOption('--backtest <result.json>', 'result.json of the backtest of the same candles')
    .option('--bot <name>', 'one bot of the paper run')
    .option('--json', 'JSON: { trades, intents } rows (money as decimal strings)', false)
    .action((raw: Record<string, unknown>) => {
      const flags = parseFlags(Flags, raw);
      const bt = readBacktest(flags.backtest);
      const backtest = executionsOf(bt.fills);
      const src = openJournalSource(flags);
      try {
        const fills = paperFills(src.store, flags.bot);
        const problem = mismatch(src, flags.bot, fills, bt.meta);
        if (problem !== undefined) throw new FlagError(problem);
        // A trade pairs with the other run's within two candles of it (see comparePaperBacktest).
        const rows = comparePaperBacktest(executionsOf(fills), backtest, 2 * INTERVAL_MS[bt.meta.interval]);
        const intents =
          bt.intents === undefined
            ? undefined
            : compareIntents(paperIntents(src.store, flags.bot), bt.intents);
        process.stdout.write(
          `${flags.json ? JSON.stringify({ trades: rows, intents: intents ?? null }, null, 2) : `${text(rows)}\n${intentsText(intents)}`}\n`,
        );
      } finally {
        src.close();
      }
    });
}
