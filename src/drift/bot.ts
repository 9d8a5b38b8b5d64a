// A deployment's bot as the drift monitor replays it: its strategy loaded and its exits and protections read
// as the daemon builds the live bot from them, and the fee rate the venue charges it.
import { strategyLookupFor, type BotConfig, type Deployment } from '../config/index.js';
import { parseExitRules, parseProtections } from '../strategy/exits.js';
import { loadStrategy } from '../strategy/loader.js';
import type { DriftBot } from './replay.js';

/** The taker fee rate of the deployment's venue (the simulator's account, the paper account, or the remote's). */
export function venueFeeRate(venue: Deployment['venue']): string {
  return venue.kind === 'remote' ? venue.feeRate : venue.account.feeRate;
}

/** The bot of deployment file `file` as `DriftBot`. */
export async function driftBotOf(file: string, cfg: Deployment, b: BotConfig): Promise<DriftBot> {
  const strategy = await loadStrategy(b.strategy, strategyLookupFor(file, cfg.strategiesDir));
  return {
    name: b.name,
    strategy,
    params: b.params,
    symbols: b.symbols,
    interval: b.interval,
    quoteCoin: b.quoteCoin,
    capital: b.capital,
    feeRate: venueFeeRate(cfg.venue),
    risk: b.risk,
    exits: b.exits === undefined ? undefined : parseExitRules(b.exits, `bots.${b.name}.exits`),
    protections:
      b.protections === undefined ? undefined : parseProtections(b.protections, `bots.${b.name}.protections`),
    maxSignalAgeMs: b.maxSignalAgeMs,
  };
}
