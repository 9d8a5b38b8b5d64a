// What only the running daemon knows, for `tradebot status`: each bot's live state (DEGRADED by a starving feed,
// PAUSED, HALTED) and its data ages, read from the /readyz of the daemon that holds the journal (the address it
// journaled when it started serving it, checked to name this very journal); and whether the journal is a paper
// run's. Without an answer the status is the journal's, and says so.
import { resolve } from 'node:path';
import { z } from 'zod';
import { PAPER_ACCOUNT_KEY } from '../execution/paper-journal.js';
import { formatDuration } from '../market/duration.js';
import { runningHealthUrl } from '../store/index.js';
import type { JournalSource } from './journal-report.js';

/** A bot as the running daemon sees it. */
export interface LiveBotState {
  readonly name: string;
  /** The trading state, DEGRADED first when a feed starves: `DEGRADED (ACTIVE)`, `HALTED+PAUSED`. */
  readonly state: string;
  readonly degraded: boolean;
  readonly problems: readonly string[];
  /** Each feed's age in ms (candles, tickers, fills), as the daemon's clock reads it. */
  readonly ages: Readonly<Record<string, number>>;
}

export type LiveRead =
  | {
      readonly running: true;
      readonly url: string;
      readonly ready: boolean;
      readonly bots: ReadonlyMap<string, LiveBotState>;
    }
  | { readonly running: false; readonly why: string };

/** The part of /readyz read (the daemon's own answer, still checked: a port may be another program's). */
const ReadyzSchema = z.object({
  status: z.enum(['ready', 'not ready']),
  journal: z.string(),
  bots: z.array(
    z
      .object({
        name: z.string(),
        tradingState: z.string(),
        paused: z.boolean().optional(),
        health: z.object({
          state: z.enum(['OK', 'DEGRADED']),
          problems: z.array(z.string()),
          ages: z.record(z.string(), z.number()),
        }),
      })
      .nullable(),
  ),
});

/** How long `status` waits for the daemon's answer. */
const LIVE_TIMEOUT_MS = 2_000;

/** Asks the daemon that holds the journal, when its run marker says one runs. */
export async function readLive(src: JournalSource): Promise<LiveRead> {
  const url = runningHealthUrl(src.store);
  if (url === undefined) return { running: false, why: 'no daemon runs on this journal' };
  let body: unknown;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(LIVE_TIMEOUT_MS) });
    body = await res.json();
  } catch {
    return {
      running: false,
      why: `the journal says a daemon runs, but ${url} does not answer (it was killed, or health is served elsewhere)`,
    };
  }
  const r = ReadyzSchema.safeParse(body);
  if (!r.success || resolve(r.data.journal) !== resolve(src.store.path))
    return { running: false, why: `${url} answers for another journal: not this deployment's daemon` };
  const bots = new Map<string, LiveBotState>();
  for (const b of r.data.bots) {
    if (b === null) continue;
    const trading = b.paused === true && b.tradingState === 'HALTED' ? 'HALTED+PAUSED' : b.tradingState;
    const degraded = b.health.state === 'DEGRADED';
    bots.set(b.name, {
      name: b.name,
      state: degraded ? `DEGRADED (${trading})` : trading,
      degraded,
      problems: b.health.problems,
      ages: b.health.ages,
    });
  }
  return { running: true, url, ready: r.data.status === 'ready', bots };
}

/** Whether the journal is a paper run's: its pretend account is kept there (docs/paper.md). */
export const isPaperJournal = (src: JournalSource): boolean =>
  src.store.meta.get(PAPER_ACCOUNT_KEY) !== undefined;

/** The first line of `status`: the mode, and whether the states below are the running daemon's or the journal's. */
export function liveHeader(live: LiveRead, paper: boolean, asOf: string): string {
  const mode = paper ? 'PAPER (pretend money, docs/paper.md): ' : '';
  return live.running
    ? `${mode}running: states and data ages from the daemon (${live.url}), ${live.ready ? 'ready' : 'NOT ready'}`
    : `${mode}not running (${live.why}): states from the journal as of ${asOf}`;
}

/** A bot's data ages in one line: `candles 42s, tickers 3s, fills 2s`. */
export const agesText = (ages: Readonly<Record<string, number>>): string =>
  Object.entries(ages)
    .map(([feed, ms]) => `${feed} ${formatDuration(ms)}`)
    .join(', ');
