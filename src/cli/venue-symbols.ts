// `validate`'s check of each bot's symbols against the venue's instrument list, the check `run` makes at its
// start (pairProblems): against the embedded simulator's list (started in process on a loopback port, the
// same answer `run` gets), or against a remote venue's public `instruments` when it answers in time. When
// neither is at hand, it says so: a check that did not run is never an "ok".
import { RestClient } from '../client/index.js';
import type { ConfigProblem, Deployment, LoadedConfig } from '../config/index.js';
import { pairProblems } from '../daemon/start-checks.js';
import { startSimulator } from '../sim/index.js';

/** The symbols' problems, or why they were not checked. */
export type SymbolCheck =
  | { readonly checked: true; readonly against: string; readonly problems: readonly ConfigProblem[] }
  | { readonly checked: false; readonly why: string };

/** How long a remote venue has to answer `instruments` before `validate` says it could not check. */
export const VENUE_CHECK_TIMEOUT_MS = 5_000;

export async function checkVenueSymbols(
  loaded: LoadedConfig<Deployment>,
  o: { readonly offline: boolean },
): Promise<SymbolCheck> {
  const { config: cfg, file } = loaded;
  const v = cfg.venue;
  if (v.kind === 'simulator') {
    // The instrument list does not depend on the simulated date: a file without startTime is checked on
    // today's (`run` would start there too).
    const sim = await startSimulator({
      port: 0,
      seed: v.seed,
      speed: 1,
      extraPairs: v.extraPairs,
      startTime: v.startTime !== undefined ? Date.parse(v.startTime) : Date.now(),
      accounts: [],
    });
    try {
      const client = new RestClient({ baseUrl: sim.baseUrl, timeoutMs: VENUE_CHECK_TIMEOUT_MS });
      const problems = await pairProblems(file, cfg, loaded, client);
      return { checked: true, against: 'the embedded simulator', problems };
    } finally {
      await sim.stop();
    }
  }
  if (o.offline) return { checked: false, why: '--offline: the venue was not asked' };
  const client = new RestClient({
    baseUrl: v.baseUrl,
    timeoutMs: Math.min(v.timeoutMs, VENUE_CHECK_TIMEOUT_MS),
    // One try: validate says it could not check rather than wait through a retry schedule.
    retry: { maxAttempts: 1 },
  });
  try {
    const problems = await pairProblems(file, cfg, loaded, client);
    return { checked: true, against: v.baseUrl, problems };
  } catch (e) {
    return {
      checked: false,
      why: `${v.baseUrl} did not answer instruments (${e instanceof Error ? e.message : String(e)})`,
    };
  }
}
