// `tradebot api <endpoint> --param value ...`: call any endpoint of the catalogue and print its data.
import type { Command } from 'commander';
import { ENDPOINTS, ENDPOINT_NAMES, type EndpointName } from '../../api/index.js';
import { RestClient } from '../../client/index.js';
import { startSimulator, type Simulator } from '../../sim/index.js';
import { FlagError, parseDateFlag } from '../flags.js';
import { didYouMean } from '../../market/spelling.js';

const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** Parses `--key value` pairs after the endpoint name. */
export function parseParams(args: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (!a.startsWith('--'))
      throw new FlagError(`unexpected argument ${JSON.stringify(a)}: parameters are --name value`);
    const eq = a.indexOf('=');
    const key = a.slice(2, eq < 0 ? undefined : eq).replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
    const value = eq < 0 ? args[++i] : a.slice(eq + 1);
    if (value === undefined) throw new FlagError(`--${key} needs a value`);
    out[key] = value;
  }
  return out;
}

export function register(program: Command): void {
  program
    .command('api')
    .description('Call any endpoint of the v3 API and print its data as JSON')
    .argument('<endpoint>', `one of: ${ENDPOINT_NAMES.map(kebab).join(', ')}`)
    .argument('[params...]', 'endpoint parameters as --name value, e.g. --category SPOT --symbol BTCUSDT')
    .option('--base-url <url>', 'venue base URL (default $TRADEBOT_BASE_URL)')
    .option('--sim', 'call an embedded simulator instead of a venue', false)
    .option(
      '--sim-start-time <iso>',
      "the embedded simulator's start time (default now), e.g. 2026-11-23T15:00:00Z",
    )
    .allowUnknownOption(true)
    .addHelpText(
      'after',
      '\nCredentials come from TRADEBOT_API_KEY, TRADEBOT_API_SECRET and TRADEBOT_PASSPHRASE.\nExample: tradebot api tickers --sim --category SPOT --symbol AAPLUSDT\n--sim starts the simulator at the current time; --sim-start-time pins it (a weekend or a holiday closes Reality orders).\nExit codes: 0 ok, 1 the venue refused, 2 bad parameters.',
    )
    .action(
      async (
        endpoint: string,
        rest: string[],
        opts: { baseUrl?: string; sim: boolean; simStartTime?: string },
      ) => {
        const name = ENDPOINT_NAMES.find((n) => n === endpoint || kebab(n) === endpoint) as
          EndpointName | undefined;
        if (!name)
          throw new FlagError(
            `unknown endpoint ${endpoint}${didYouMean(endpoint, ENDPOINT_NAMES.map(kebab))}; one of: ${ENDPOINT_NAMES.map(kebab).join(', ')}`,
          );
        // Options written after the endpoint's parameters reach us among them: take ours out.
        const at = rest.indexOf('--sim-start-time');
        const startFlag = opts.simStartTime ?? (at >= 0 ? rest[at + 1] : undefined);
        const own = rest.filter((a, i) => a !== '--sim' && !(at >= 0 && (i === at || i === at + 1)));
        const params = parseParams(own);
        const useSim = opts.sim || rest.includes('--sim');
        if (startFlag !== undefined && !useSim)
          throw new FlagError('--sim-start-time: only with --sim (a venue runs on its own clock)');
        const startTime = startFlag === undefined ? undefined : parseDateFlag('--sim-start-time', startFlag);
        let sim: Simulator | undefined;
        const env = process.env;
        try {
          if (useSim)
            sim = await startSimulator({ seed: 42, ...(startTime === undefined ? {} : { startTime }) });
          const baseUrl = sim?.baseUrl ?? opts.baseUrl ?? env.TRADEBOT_BASE_URL;
          if (!baseUrl)
            throw new FlagError('no venue: pass --base-url URL, set TRADEBOT_BASE_URL, or use --sim');
          const needsCreds = ENDPOINTS[name].permission !== 'none';
          const credentials = sim
            ? { apiKey: 'sim-key', apiSecret: 'sim-secret', passphrase: 'sim-passphrase' }
            : env.TRADEBOT_API_KEY && env.TRADEBOT_API_SECRET && env.TRADEBOT_PASSPHRASE
              ? {
                  apiKey: env.TRADEBOT_API_KEY,
                  apiSecret: env.TRADEBOT_API_SECRET,
                  passphrase: env.TRADEBOT_PASSPHRASE,
                }
              : undefined;
          if (needsCreds && !credentials)
            throw new FlagError(
              `${kebab(name)} needs credentials: set TRADEBOT_API_KEY, TRADEBOT_API_SECRET and TRADEBOT_PASSPHRASE`,
            );
          const client = new RestClient({ baseUrl, ...(credentials ? { credentials } : {}) });
          try {
            const data = await client.request(name, params);
            process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
          } finally {
            client.close();
          }
        } finally {
          await sim?.stop();
        }
      },
    );
}
