// `tradebot doctor --config live.yaml` (or --base-url): checks a venue before the daemon trades on it —
// reachability and latency (held to the bots' risk.maxDataAgeMs), clock skew from requestTime, credentials, each permission the deployment
// needs (probed only where that has no side effect), whitelist, symbols, and the US session — and
// prints a checklist with a sentence and a fix per failure. Exit 0 all green, 1 a check failed, 2 bad input.
import type { Command } from 'commander';
import { ApiError, type Instrument } from '../../api/index.js';
import { RestClient, baseUrlProblem, type Credentials } from '../../client/index.js';
import { ConfigError, loadConfig } from '../../config/index.js';
import { liveClock } from '../../feeds/clock.js';
import { usSessionAt } from '../../market/sessions.js';
import { US_EASTERN } from '../../market/us-calendar.js';
import { formatZoned } from '../../market/zoned-time.js';
import { z } from 'zod';
import { FlagError } from '../flags.js';
import { counted, didYouMean } from '../../market/spelling.js';

/** The venue refuses a timestamp further than this from its clock (the simulator's window; spec: not shown). */
const SKEW_FAIL_MS = 30_000;
const SKEW_WARN_MS = 5_000;

type Status = 'ok' | 'fail' | 'skip';
interface Check {
  readonly name: string;
  readonly status: Status;
  readonly sentence: string;
  readonly fix?: string | undefined;
}

interface Target {
  readonly baseUrl: string;
  readonly credentials: Credentials | undefined;
  /** Where the credentials came from (the deployment's `${VAR}` or file, or the TRADEBOT_ variables). */
  readonly credentialSources: CredentialSources;
  /** The deployment's venue.timeScale: the venue runs that many times faster than real time. */
  readonly timeScale?: number | undefined;
  readonly whitelisted: boolean;
  /** The deployment's fills mode (undefined with --base-url: no deployment to read it from). */
  readonly fills?: 'venue' | 'estimated' | undefined;
  /** Symbols by category the deployment trades. */
  readonly symbols: ReadonlyMap<'SPOT' | 'MARGIN', readonly string[]>;
  readonly needsManagement: boolean;
  /** A paper run: public data only, so credentials are neither needed nor checked (docs/paper.md). */
  readonly paper?: boolean | undefined;
  /** The bot whose prices may age least: its risk.maxDataAgeMs and tickers poll (undefined with --base-url). */
  readonly freshness?:
    { readonly bot: string; readonly maxDataAgeMs: number; readonly tickersMs: number } | undefined;
}

type CredentialField = keyof Credentials;

/** Where each credential came from, as the fix names it: "the value of ${OP_API_SECRET}", "the content of ./s". */
type CredentialSources = Readonly<Record<CredentialField, string>>;

/** With --base-url the credentials come from these environment variables. */
const ENV_SOURCES: CredentialSources = {
  apiKey: 'TRADEBOT_API_KEY',
  apiSecret: 'TRADEBOT_API_SECRET',
  passphrase: 'TRADEBOT_PASSPHRASE',
};

/** What a refusal of a signed probe means, as a sentence and a fix naming where the credential came from. */
function authFailure(e: ApiError, from: CredentialSources): { sentence: string; fix: string } {
  switch (e.code) {
    case '90006':
      return {
        sentence: 'the venue does not know this API key (90006)',
        fix: `check ${from.apiKey}: copy the key again from the venue`,
      };
    case '90012':
      return {
        sentence: 'the passphrase does not match this API key (90012)',
        fix: `check ${from.passphrase}: it is the one chosen when the key was created`,
      };
    case '90009':
      return {
        sentence: 'the venue refused the signature (90009): the API secret is wrong',
        fix: `check ${from.apiSecret}: copy the secret of this key again`,
      };
    case '90008':
      return {
        sentence: 'the venue refused the timestamp as expired (90008)',
        fix: 'sync this machine clock with NTP (e.g. timedatectl set-ntp true)',
      };
    default:
      return { sentence: e.message, fix: 'see the error code in the README error table' };
  }
}

const credentialsOk: Check = {
  name: 'credentials',
  status: 'ok',
  sentence: 'the key, secret and passphrase are accepted',
};

/** Reachability and latency, on a public endpoint that needs nothing; its SPOT instruments when it answered. */
async function reachable(
  client: RestClient,
  baseUrl: string,
): Promise<{ check: Check; spot?: readonly Instrument[] }> {
  const started = performance.now();
  try {
    const spot = await client.instruments({ category: 'SPOT' });
    const latencyMs = Math.round(performance.now() - started);
    return {
      check: { name: 'reachable', status: 'ok', sentence: `${baseUrl} answered in ${latencyMs} ms` },
      spot,
    };
  } catch (e) {
    return {
      check: {
        name: 'reachable',
        status: 'fail',
        sentence: `${baseUrl} did not answer: ${e instanceof Error ? e.message : String(e)}`,
        fix: 'check the base URL (venue.baseUrl or --base-url), DNS, proxy and firewall',
      },
    };
  }
}

/** The venue's round trip once the connection is open: the best of three small public requests, in ms. */
async function steadyLatencyMs(client: RestClient): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    await client.rpiSymbols();
    best = Math.min(best, performance.now() - started);
  }
  return Math.round(best);
}

/**
 * Whether prices can arrive fresh enough for the tightest bot: a ticker is as old as its poll's period plus the
 * answer's latency (in the venue's time, `speed` times the real one) when the gate reads it; past the bot's
 * risk.maxDataAgeMs every order is denied STALE_DATA and the bot goes DEGRADED.
 */
function latencyCheck(latencyMs: number, speed: number, t: Target): Check {
  const f = t.freshness;
  if (f === undefined)
    return {
      name: 'latency',
      status: 'skip',
      sentence: `${latencyMs} ms; with --base-url there is no bot whose data age it could be held to (use --config)`,
    };
  const age = f.tickersMs + latencyMs * speed;
  const venueMs =
    speed === 1
      ? `${latencyMs} ms (best of 3)`
      : `${latencyMs} ms (best of 3; ${Math.round(latencyMs * speed)} ms of the venue's time at speed ${speed})`;
  if (age < f.maxDataAgeMs)
    return {
      name: 'latency',
      status: 'ok',
      sentence: `${venueMs}: a price is at most ${age} ms old when read, within ${f.bot}'s risk.maxDataAgeMs ${f.maxDataAgeMs}`,
    };
  return {
    name: 'latency',
    status: 'fail',
    sentence: `${venueMs}: a price would be ${age} ms old when read (poll every ${f.tickersMs} ms plus the answer), past ${f.bot}'s risk.maxDataAgeMs ${f.maxDataAgeMs}: every order denied STALE_DATA, the bot DEGRADED`,
    fix: `run the daemon nearer the venue, poll tickers faster (poll.tickersMs), or allow older data (risk.maxDataAgeMs) if the strategy can trade on it`,
  };
}

/**
 * How many times faster than real time the venue runs: a tradebot simulator says so on its admin API
 * (GET /sim/time, served on loopback), else the deployment's venue.timeScale; 1 for any other venue.
 */
async function venueSpeed(
  baseUrl: string,
  timeScale: number | undefined,
): Promise<{ speed: number; said: string }> {
  const fromConfig = { speed: timeScale ?? 1, said: `venue.timeScale: ${timeScale ?? 1} in the deployment` };
  try {
    const r = await fetch(new URL('/sim/time', baseUrl), { signal: AbortSignal.timeout(5_000) });
    if (!r.ok) return fromConfig;
    const body = SimTimeAnswer.safeParse(await r.json());
    return body.success
      ? {
          speed: body.data.data.speed,
          said: `its admin API (GET /sim/time) says speed ${body.data.data.speed}`,
        }
      : fromConfig;
  } catch {
    return fromConfig;
  }
}

/** The simulator's answer to GET /sim/time (src/sim/admin.ts), read tolerantly: anything else is no simulator. */
const SimTimeAnswer = z.object({ data: z.object({ now: z.number(), speed: z.number().positive() }) });

/** The clock check of a venue running `speed` times real time: its clock is meant to be far from this one. */
function acceleratedClockCheck(offset: number, venue: { speed: number; said: string }): Check {
  return {
    name: 'clock',
    status: 'ok',
    sentence: `the venue runs accelerated at ${venue.speed}x (${venue.said}): its clock reads ${formatZoned(liveClock.now() + offset, US_EASTERN)}, ${(Math.abs(offset) / 1000).toFixed(1)} s ${offset > 0 ? 'ahead of' : 'behind'} this machine by design, so it says nothing of this machine's clock (the simulator takes signatures stamped with the wall clock)`,
  };
}

/** Clock skew, from requestTime (the client learned the offset on the first answer). */
function clockCheck(skew: number): Check {
  const skewText = `this machine's clock is ${(Math.abs(skew) / 1000).toFixed(1)} s ${skew > 0 ? 'behind' : 'ahead of'} the venue`;
  return Math.abs(skew) > SKEW_WARN_MS
    ? {
        name: 'clock',
        status: 'fail',
        sentence: `${skewText}${Math.abs(skew) > SKEW_FAIL_MS ? ', more than the 30 s a signature may be off' : ''}; tradebot corrects its own signatures from requestTime, but logs, schedules and other tools use this clock`,
        fix: 'sync the clock with NTP (e.g. timedatectl set-ntp true, or chrony)',
      }
    : { name: 'clock', status: 'ok', sentence: `${skewText} (within ${SKEW_WARN_MS / 1000} s)` };
}

/**
 * Credentials, trade-read and whitelist in one side-effect-free probe (reality-fills reads), then the
 * permissions that cannot be probed without a side effect.
 */
async function credentialChecks(client: RestClient, t: Target): Promise<Check[]> {
  if (t.paper === true) return [paperCheck(t)];
  if (!t.credentials)
    return [
      {
        name: 'credentials',
        status: 'fail',
        sentence: 'no credentials were given, so nothing private can be checked',
        fix: 'set TRADEBOT_API_KEY, TRADEBOT_API_SECRET and TRADEBOT_PASSPHRASE (or credentials in the deployment)',
      },
    ];
  const probeSymbol = [...t.symbols.values()].flat()[0] ?? 'AAPLUSDT';
  let probed: Check[];
  try {
    await client.realityFills({ symbol: probeSymbol, limit: '1' });
    probed = [
      credentialsOk,
      { name: 'permission trade-read', status: 'ok', sentence: 'reality-fills answered' },
      { name: 'whitelist', status: 'ok', sentence: 'the account has whitelist access (reality-fills)' },
    ];
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    probed = refusedProbe(e, t);
  }
  const unprobed: Check[] = [
    {
      name: 'permission trade-read-write',
      status: 'skip',
      sentence: 'cannot be probed without placing an order; the first order will tell',
    },
  ];
  if (t.needsManagement)
    unprobed.push({
      name: 'permission management',
      status: 'skip',
      sentence: 'set-leverage is configured, but cannot be probed without changing leverage',
    });
  return [...probed, ...unprobed];
}

/** What the venue's refusal of the reality-fills probe says of the credentials, the permission and the whitelist. */
function refusedProbe(e: ApiError, t: Target): Check[] {
  if (e.code === '40014')
    return [
      credentialsOk,
      {
        name: 'permission trade-read',
        status: 'fail',
        sentence: 'the API key lacks the trade-read permission (40014): the bots cannot read their fills',
        fix: 'edit the API key at the venue and grant UTA trade (read and write)',
      },
    ];
  if (e.code === '90068')
    return [
      credentialsOk,
      { name: 'permission trade-read', status: 'ok', sentence: 'the key may read trades' },
      t.fills === 'estimated'
        ? {
            name: 'whitelist',
            status: 'ok',
            sentence:
              'the account has no whitelist access (90068), and the deployment books estimated fills (fills: estimated): market orders only, limit orders are refused',
          }
        : {
            name: 'whitelist',
            status: 'fail',
            sentence: `the account has no whitelist access (90068)${t.whitelisted ? ', though the deployment says whitelisted: true' : ''}: reality-fills is refused, so fills cannot be synced and the daemon will not start`,
            fix: 'apply for whitelist access through your business representative (then set whitelisted: true); until then, fills: estimated in the deployment trades market orders on fills estimated from the acknowledgement',
          },
    ];
  if (e.kind === 'auth' || e.code === '90008')
    return [{ name: 'credentials', status: 'fail', ...authFailure(e, t.credentialSources) }];
  return [
    {
      name: 'credentials',
      status: 'fail',
      sentence: `the probe failed: ${e.message}`,
      fix: 'run again; if it persists, check the venue status',
    },
  ];
}

/** Each configured symbol: an online instrument of its category (SPOT's already read by the reachability check). */
async function symbolChecks(client: RestClient, t: Target, spot: readonly Instrument[]): Promise<Check[]> {
  const instruments = new Map<string, readonly Instrument[]>([['SPOT', spot]]);
  const checks: Check[] = [];
  for (const [category, symbols] of t.symbols) {
    if (!instruments.has(category)) instruments.set(category, await client.instruments({ category }));
    const list = instruments.get(category) ?? [];
    for (const s of symbols) checks.push(symbolCheck(s, category, list));
  }
  return checks;
}

function symbolCheck(s: string, category: string, list: readonly Instrument[]): Check {
  const i = list.find((x) => x.symbol === s);
  if (!i)
    return {
      name: `symbol ${s}`,
      status: 'fail',
      sentence: `${s} is not an instrument of ${category} at this venue${didYouMean(
        s,
        list.map((x) => x.symbol),
      )}`,
      fix: `check bots[].symbols; Reality pairs look like AAPLUSDT (tradebot api instruments --category ${category})`,
    };
  if (i.status !== 'online')
    return {
      name: `symbol ${s}`,
      status: 'fail',
      sentence: `${s} is ${i.status}, not online: orders would be refused`,
      fix: 'trade another symbol until the venue brings it online',
    };
  return { name: `symbol ${s}`, status: 'ok', sentence: `${s} is online in ${category}` };
}

/** What a paper run needs instead of credentials: nothing private, so no set-leverage either. */
function paperCheck(t: Target): Check {
  return t.needsManagement
    ? {
        name: 'paper',
        status: 'fail',
        sentence:
          'a bot sets leverage (set-leverage), a private endpoint a paper run never calls; the run would be refused',
        fix: "remove the bots' leverage entries and set-leverage schedules for the dry run",
      }
    : {
        name: 'paper',
        status: 'ok',
        sentence:
          'a paper run reads public data only: no credentials are needed or sent, and orders fill on the paper account',
      };
}

/** The US session now and the next change, on the venue's clock. */
function sessionCheck(clockOffsetMs: number): Check {
  const s = usSessionAt(liveClock.now() + clockOffsetMs);
  return {
    name: 'session',
    status: 'ok',
    sentence: `the US market is ${s.session} (ET ${s.etDate}${s.closure ? `, ${s.closure}` : ''}) by the venue's clock; next change at ${formatZoned(s.nextChange, US_EASTERN)}`,
  };
}

/** Every check in the checklist's order; an unreachable venue ends the list at its first line. */
async function runChecks(t: Target): Promise<Check[]> {
  const client = new RestClient({
    baseUrl: t.baseUrl,
    ...(t.credentials && t.paper !== true ? { credentials: t.credentials } : {}),
    whitelisted: t.whitelisted,
    timeoutMs: 10_000,
    retry: { maxAttempts: 2 },
  });
  try {
    const reach = await reachable(client, t.baseUrl);
    if (reach.spot === undefined) return [reach.check];
    const venue = await venueSpeed(t.baseUrl, t.timeScale);
    const clock =
      venue.speed === 1
        ? clockCheck(client.clockOffsetMs)
        : acceleratedClockCheck(client.clockOffsetMs, venue);
    const credentials = await credentialChecks(client, t);
    const symbols = await symbolChecks(client, t, reach.spot);
    const latency = latencyCheck(await steadyLatencyMs(client), venue.speed, t);
    return [reach.check, latency, clock, ...credentials, ...symbols, sessionCheck(client.clockOffsetMs)];
  } finally {
    client.close();
  }
}

/**
 * Where each credential of a deployment came from, as its loader tells (its redaction names the source of a
 * value at a path): "the value of ${OP_API_SECRET} (venue.credentials.apiSecret)".
 */
function sourcesIn(loaded: ReturnType<typeof loadConfig>, c: Credentials): CredentialSources {
  const from = (k: CredentialField): string => {
    const path = `venue.credentials.${k}`;
    const said = loaded.redact(JSON.stringify(c[k]), path);
    return said === JSON.stringify(c[k]) ? path : `${said} (${path})`;
  };
  return { apiKey: from('apiKey'), apiSecret: from('apiSecret'), passphrase: from('passphrase') };
}

/** The bot whose prices may age least once polled: the one the latency check holds the venue to. */
function tightestFreshness(
  bots: readonly { name: string; risk: { maxDataAgeMs: number }; poll: { tickersMs: number } }[],
): Target['freshness'] {
  const slack = (b: (typeof bots)[number]) => b.risk.maxDataAgeMs - b.poll.tickersMs;
  const tightest = [...bots].sort((a, b) => slack(a) - slack(b))[0];
  return tightest === undefined
    ? undefined
    : { bot: tightest.name, maxDataAgeMs: tightest.risk.maxDataAgeMs, tickersMs: tightest.poll.tickersMs };
}

function targetFrom(o: { config?: string; baseUrl?: string; symbols?: string; paper?: boolean }): Target {
  if (o.config !== undefined && o.baseUrl !== undefined)
    throw new FlagError('give --config or --base-url, not both');
  if (o.config !== undefined) {
    let loaded;
    try {
      loaded = loadConfig(o.config, process.env, o.paper === true ? {} : undefined);
    } catch (e) {
      if (e instanceof ConfigError) throw new FlagError(e.message);
      throw e;
    }
    const cfg = loaded.config;
    const v = cfg.venue;
    if (v.kind === 'simulator')
      throw new FlagError(
        `${o.config} runs the embedded simulator (venue.kind: simulator); doctor checks a remote venue`,
      );
    const symbols = new Map<'SPOT' | 'MARGIN', string[]>();
    for (const b of cfg.bots) symbols.set(b.category, [...(symbols.get(b.category) ?? []), ...b.symbols]);
    const freshness = tightestFreshness(cfg.bots);
    if (v.kind === 'paper')
      return {
        baseUrl: v.baseUrl,
        credentials: undefined,
        whitelisted: false,
        symbols,
        needsManagement: cfg.bots.some(
          (b) => b.leverage.length > 0 || b.schedules.some((x) => x.task === 'set-leverage'),
        ),
        paper: true,
        freshness,
        // A paper run reads no credential: nothing to name.
        credentialSources: ENV_SOURCES,
      };
    return {
      baseUrl: v.baseUrl,
      credentials: v.credentials,
      credentialSources: sourcesIn(loaded, v.credentials),
      timeScale: v.timeScale,
      whitelisted: v.whitelisted,
      fills: cfg.fills,
      symbols,
      needsManagement: cfg.bots.some((b) => b.leverage.length > 0),
      freshness,
    };
  }
  if (o.baseUrl === undefined) throw new FlagError('give --config FILE or --base-url URL');
  const urlProblem = baseUrlProblem(o.baseUrl);
  if (urlProblem !== undefined)
    throw new FlagError(`--base-url: ${urlProblem} (got ${JSON.stringify(o.baseUrl)})`);
  const env = process.env;
  const credentials =
    env.TRADEBOT_API_KEY && env.TRADEBOT_API_SECRET && env.TRADEBOT_PASSPHRASE
      ? {
          apiKey: env.TRADEBOT_API_KEY,
          apiSecret: env.TRADEBOT_API_SECRET,
          passphrase: env.TRADEBOT_PASSPHRASE,
        }
      : undefined;
  const list = (o.symbols ?? '').split(',').filter((s) => s !== '');
  for (const s of list)
    if (!/^[A-Z0-9]+$/.test(s))
      throw new FlagError(
        /^[A-Z0-9]+$/.test(s.toUpperCase())
          ? `--symbols: symbols are written in capitals: ${s.toUpperCase()}`
          : `--symbols: ${JSON.stringify(s)} is not a symbol such as AAPLUSDT`,
      );
  return {
    baseUrl: o.baseUrl,
    credentials,
    credentialSources: ENV_SOURCES,
    whitelisted: false,
    symbols: new Map(list.length > 0 ? [['SPOT', list]] : []),
    needsManagement: false,
    paper: o.paper,
  };
}

const MARK: Record<Status, string> = { ok: '[ok]  ', fail: '[FAIL]', skip: '[--]  ' };

export function register(program: Command): void {
  program
    .command('doctor')
    .description(
      'Check a venue before trading: reachability, clock, credentials, permissions, whitelist, symbols, session',
    )
    .option('--config <file>', 'a deployment file with a remote venue')
    .option(
      '--base-url <url>',
      'a venue URL (credentials from TRADEBOT_API_KEY, TRADEBOT_API_SECRET, TRADEBOT_PASSPHRASE)',
    )
    .option('--symbols <list>', 'with --base-url: comma-separated SPOT symbols to check')
    .option(
      '--paper',
      'check what a paper run needs (reachability, clock, symbols, session), not credentials: a paper venue, or a live file read as `run --paper` reads it',
      false,
    )
    .addHelpText('after', '\nExit codes: 0 every check passed, 1 a check failed, 2 invalid input.')
    .action(async (o: { config?: string; baseUrl?: string; symbols?: string; paper?: boolean }) => {
      const target = targetFrom(o);
      const checks = await runChecks(target);
      for (const c of checks) {
        process.stdout.write(`${MARK[c.status]} ${c.name}: ${c.sentence}\n`);
        if (c.fix) process.stdout.write(`         fix: ${c.fix}\n`);
      }
      const failed = checks.filter((c) => c.status === 'fail').length;
      process.stdout.write(failed === 0 ? 'all checks passed\n' : `${counted(failed, 'check')} failed\n`);
      process.exitCode = failed === 0 ? 0 : 1;
    });
}
