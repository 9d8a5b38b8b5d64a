// What only the venue can tell, checked before a bot trades: that it lists every configured symbol as a Reality
// pair in the bot's quote coin, and that the account may read its fills. A refusal is explained, then thrown.
import type { Writable } from 'node:stream';
import { ApiError } from '../api/index.js';
import type { RestClient } from '../client/index.js';
import {
  ConfigError,
  type BotConfig,
  type ConfigProblem,
  type Deployment,
  type LoadedConfig,
} from '../config/index.js';
import { botPairs, instrumentsFor, type VenueRuntime } from '../execution/runtime.js';
import { counted } from '../market/spelling.js';
import type { Logger } from './logger.js';

/** A start step ended the start with this exit code (a refusal already explained to the operator). */
export class StartRefused extends Error {
  constructor(
    readonly exitCode: number,
    readonly why: string,
  ) {
    super(why);
  }
}

/** What the checks read and where they explain a refusal. */
export interface StartCheckContext {
  readonly file: string;
  readonly cfg: Deployment;
  /** Where a value is in the file, so a problem is said at its line. */
  readonly source: Pick<LoadedConfig<Deployment>, 'locate' | 'redact'>;
  readonly logger: Logger;
  readonly stderr: Writable;
}

/**
 * Every bot's symbols against the venue's instruments, before anything is read or traded: a symbol the
 * venue does not list, that is no Reality pair, or that is quoted in another coin than the bot's is a
 * problem of the configuration (exit 2), said at its line as `validate` says the ones it can know.
 */
export async function checkPairs(ctx: StartCheckContext, rt: VenueRuntime): Promise<void> {
  const problems = await pairProblems(ctx.file, ctx.cfg, ctx.source, rt.client);
  if (problems.length === 0) return;
  const e = new ConfigError(problems, undefined, ctx.source.redact);
  ctx.logger.error('start refused: the venue cannot trade a configured symbol', {
    problems: e.problems.map((p) => p.message).join('; '),
  });
  ctx.stderr.write(
    `tradebot: the configuration has ${counted(e.problems.length, 'problem')} the venue found; the daemon did not start:\n${e.message}\n`,
  );
  throw new StartRefused(2, 'start refused');
}

/**
 * Each bot's symbols the venue cannot trade for it (not listed, no Reality pair, another quote coin), each at
 * its line: what `run` refuses at its start, and what `validate` finds when the venue's list is at hand.
 */
export async function pairProblems(
  file: string,
  cfg: Pick<Deployment, 'bots'>,
  source: Pick<LoadedConfig<Deployment>, 'locate'>,
  client: RestClient,
): Promise<ConfigProblem[]> {
  const lists = new Map<BotConfig['category'], ReturnType<typeof instrumentsFor>>();
  const problems: ConfigProblem[] = [];
  for (const [i, b] of cfg.bots.entries()) {
    const listed = lists.get(b.category) ?? instrumentsFor(client, b.category);
    lists.set(b.category, listed);
    for (const p of botPairs(b, await listed).problems)
      problems.push({
        file,
        ...source.locate(['bots', i, 'symbols', p.index]),
        path: `bots[${i}].symbols[${p.index}]`,
        message: p.message,
      });
  }
  return problems;
}

/**
 * Fills are read from reality-fills, which needs whitelist access (spec §5): without it the bots
 * could place orders but never book them, so the daemon refuses to start unless told to estimate.
 */
export async function checkFillAccess(ctx: StartCheckContext, rt: VenueRuntime): Promise<void> {
  const { cfg, logger } = ctx;
  // A paper venue's fills are its own (the paper account's): reality-fills is never read.
  if (cfg.venue.kind === 'paper') return;
  const first = cfg.bots[0];
  const firstSymbol = first?.symbols[0];
  if (cfg.fills === 'venue' && first !== undefined && firstSymbol !== undefined) {
    try {
      await rt.client.realityFills({ symbol: firstSymbol, limit: 1 });
    } catch (e) {
      // Any other refusal says which bot and symbol it was about.
      if (!(e instanceof ApiError && e.code === '90068'))
        throw new Error(
          `bot ${first.name}: reading the fills of ${firstSymbol} (reality-fills) failed: ${e instanceof Error ? e.message : String(e)}`,
          { cause: e },
        );
      const why =
        'the account has no whitelist access, so its fills (reality-fills) cannot be read and no order could be booked. ' +
        'Apply for whitelist access through a business representative of the venue, or set `fills: estimated` in the configuration ' +
        '(market orders booked from the acknowledgement at the touch and marked estimated, limit orders refused).';
      logger.error('start refused: no whitelist access', { code: e.code, fix: why });
      ctx.stderr.write(`tradebot: ${ctx.file}: start refused: ${why}\n`);
      throw new StartRefused(1, 'start refused');
    }
  } else if (cfg.fills === 'estimated') {
    logger.warn('fills are estimated', {
      why: 'fills: estimated: market orders are booked from the acknowledgement at the touch; limit orders are refused (LIMIT_WITHOUT_FILLS)',
    });
  }
}

/** What a paper run says on its log lines, metrics, status line, dashboard and notifications. */
export const PAPER = 'PAPER';

/**
 * A paper run calls no private endpoint (its client has no credentials and would refuse one): a bot whose
 * start or schedules would (set-leverage) is refused before anything trades, said at its line.
 */
export function checkPaperCalls(ctx: StartCheckContext): void {
  if (ctx.cfg.venue.kind !== 'paper') return;
  const problems: ConfigProblem[] = [];
  ctx.cfg.bots.forEach((b, i) => {
    if (b.leverage.length === 0 && !b.schedules.some((s) => s.task === 'set-leverage')) return;
    problems.push({
      file: ctx.file,
      ...ctx.source.locate(['bots', i, 'leverage']),
      path: `bots[${i}].leverage`,
      message: `bot ${b.name}: set-leverage is a private endpoint, which a paper run never calls; remove its leverage entries and set-leverage schedules for the dry run (the paper account trades without leverage)`,
    });
  });
  if (problems.length === 0) return;
  const e = new ConfigError(problems, undefined, ctx.source.redact);
  ctx.logger.error('start refused: a paper run would call a private endpoint', {
    problems: e.problems.map((p) => p.message).join('; '),
  });
  ctx.stderr.write(`tradebot: the paper run was refused; the daemon did not start:\n${e.message}\n`);
  throw new StartRefused(2, 'start refused');
}
