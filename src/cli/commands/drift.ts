// `tradebot drift`: each bot's journal against the replay of the venue's own closed candles through the same
// strategy, parameters, exits and limits (src/drift), every difference with its cause; or, with --report, the
// reports the daemon kept at each venue day's close. Exit 0 when nothing is unexplained, 1 otherwise.
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { z } from 'zod';
import { loadDeployment, type Deployment } from '../../config/index.js';
import { RestClient } from '../../client/index.js';
import type { DriftReport } from '../../drift/compare.js';
import { driftBotOf } from '../../drift/bot.js';
import { formatDriftReport } from '../../drift/format.js';
import { runDrift } from '../../drift/monitor.js';
import { DriftSpanError } from '../../drift/replay.js';
import { liveClock } from '../../feeds/clock.js';
import { didYouMean } from '../../market/spelling.js';
import { openStore, type Store } from '../../store/index.js';
import { FlagError, parseDateFlag, parseFlags } from '../flags.js';
import { parseSince } from '../journal-report.js';

const Flags = z.object({
  config: z
    .string({ error: 'needs --config <deployment.yaml> (the deployment whose journal is checked)' })
    .min(1),
  bot: z.string().min(1).optional(),
  since: z.string().min(1).optional(),
  report: z.boolean().default(false),
  json: z.boolean().default(false),
});

/** Where the venue answers: a remote or paper venue's baseUrl, an embedded simulator's fixed port. */
function venueUrl(v: Deployment['venue']): string {
  if (v.kind !== 'simulator') return v.baseUrl;
  if (v.port === 0)
    throw new FlagError(
      'venue.kind is simulator on a free port (port 0): the drift check cannot reach it once the daemon picked one; give venue.port a fixed port, or run the check from the daemon (it runs at each venue day close)',
    );
  return `http://127.0.0.1:${v.port}`;
}

function checkBot(cfg: Deployment, bot: string | undefined): void {
  if (bot === undefined) return;
  const names = cfg.bots.map((b) => b.name);
  if (!names.includes(bot))
    throw new FlagError(
      `--bot: no bot named ${bot} in this deployment${didYouMean(bot, names)}; its bots are ${names.join(', ')}`,
    );
}

function openJournal(cfg: Deployment): Store {
  if (!existsSync(cfg.store.path))
    throw new FlagError(
      `no journal at ${cfg.store.path}: run the deployment first (tradebot run --config ...) or check store.path`,
    );
  return openStore(cfg.store.path, { busyTimeoutMs: 5000 });
}

/** The kept reports: each bot's newest (of one bot with --bot). */
function keptReports(store: Store, bot: string | undefined): DriftReport[] {
  const latest = store.drift.latestByBot();
  return [...latest.values()]
    .filter((r) => bot === undefined || r.bot === bot)
    .map((r) => r.report as DriftReport);
}

async function checkNow(
  file: string,
  cfg: Deployment,
  store: Store,
  flags: z.output<typeof Flags>,
): Promise<DriftReport[]> {
  const client = new RestClient({ baseUrl: venueUrl(cfg.venue), timeoutMs: 15_000 });
  try {
    // The venue's clock: the span ends at its last candle boundary (an accelerated simulator runs ahead).
    await client.instruments({ category: 'SPOT' });
    const now = Math.round(liveClock.now() + client.clockOffsetMs);
    const since = flags.since === undefined ? undefined : parseSince(flags.since, now, parseDateFlag);
    if (since !== undefined && since >= now)
      throw new FlagError(
        `--since must be in the past of the venue's clock (now ${new Date(now).toISOString()})`,
      );
    const out: DriftReport[] = [];
    for (const b of cfg.bots) {
      if (flags.bot !== undefined && b.name !== flags.bot) continue;
      try {
        out.push(await runDrift({ bot: await driftBotOf(file, cfg, b), store, client, now, since }));
      } catch (e) {
        if (e instanceof DriftSpanError) throw new FlagError(e.message);
        throw e;
      }
    }
    return out;
  } finally {
    client.close();
  }
}

export function register(program: Command): void {
  program
    .command('drift')
    .description(
      "Each bot's journal against the replay of the venue's closed candles (same strategy, parameters, exits, limits): every difference with its cause. Exit 0: none unexplained; 1: some unexplained",
    )
    .requiredOption('--config <file>', 'the deployment (its journal, bots and venue)')
    .option('--bot <name>', 'one bot of the deployment')
    .option(
      '--since <when>',
      "start of the span: a duration back from the venue's now (6h, 2d) or a date (default: one venue day)",
    )
    .option('--report', "show the reports the daemon kept (each bot's newest) instead of checking now", false)
    .option('--json', 'JSON: { reports: [...] } (the reports as kept)', false)
    .action(async (raw: Record<string, unknown>) => {
      const flags = parseFlags(Flags, raw);
      if (flags.report && flags.since !== undefined)
        throw new FlagError(
          '--since is for a check now; --report shows the kept reports (leave out one of them)',
        );
      const loaded = await loadDeployment(flags.config, process.env);
      const cfg = loaded.config;
      checkBot(cfg, flags.bot);
      const store = openJournal(cfg);
      try {
        const reports = flags.report
          ? keptReports(store, flags.bot)
          : await checkNow(flags.config, cfg, store, flags);
        process.stdout.write(
          flags.json
            ? `${JSON.stringify({ reports }, null, 2)}\n`
            : `${reports.length === 0 ? 'no drift report kept yet: the daemon keeps one at each venue day close (or run tradebot drift without --report)' : reports.map(formatDriftReport).join('\n\n')}\n`,
        );
        process.exitCode = reports.some((r) => r.unexplained > 0) ? 1 : 0;
      } finally {
        store.close();
      }
    });
}
