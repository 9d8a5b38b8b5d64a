// `tradebot sim`: the simulated exchange on a port, until SIGINT/SIGTERM.
import type { Command } from 'commander';
import { z } from 'zod';
import { watchSignals } from '../../daemon/signals.js';
import {
  FaultConfigSchema,
  SimExtraPairsSchema,
  SimMarginModelSchema,
  SimPortSchema,
  SimSeedSchema,
  SimSpeedSchema,
  marginModelOf,
  startSimulator,
  type FaultConfig,
} from '../../sim/index.js';
import { DEFAULT_MARGIN_MODEL } from '../../market/margin.js';
import { dateFlag, flagNumber, numberFlag, parseFlags } from '../flags.js';

/** A fault flag: the `faults:` field of a deployment's simulator, the same schema. */
const fault = (field: Exclude<keyof FaultConfig, 'latencyMs'>) =>
  numberFlag(FaultConfigSchema.shape[field].unwrap()).optional();
/** `N` or `MIN-MAX` milliseconds: the `faults.latencyMs` pair of a deployment, the same schema. */
const LATENCY_RE = /^([^-]+)(?:-([^-]+))?$/;
const latency = z
  .string()
  .transform((s) => {
    const m = LATENCY_RE.exec(s.trim());
    if (m === null) return [Number.NaN, Number.NaN];
    const lo = flagNumber(m[1] ?? '');
    return [lo, m[2] === undefined ? lo : flagNumber(m[2])];
  })
  .pipe(FaultConfigSchema.shape.latencyMs.unwrap())
  .optional();

// One schema per option for flags and YAML (src/sim/options.ts): what one refuses, the other does too.
const SimFlags = z.strictObject({
  port: numberFlag(SimPortSchema),
  host: z.string().min(1, '--host must not be empty'),
  seed: numberFlag(SimSeedSchema),
  speed: numberFlag(SimSpeedSchema),
  extraPairs: numberFlag(SimExtraPairsSchema),
  startTime: dateFlag('--start-time'),
  apiKey: z.string().min(1, '--api-key must not be empty'),
  apiSecret: z.string().min(1, '--api-secret must not be empty'),
  passphrase: z.string().min(1, '--passphrase must not be empty'),
  whitelisted: z.boolean(),
  rateLimits: z.boolean(),
  fillIds: z.boolean().optional(),
  errorRate: fault('errorRate'),
  dropRate: fault('dropRate'),
  malformedRate: fault('malformedRate'),
  burst429Rate: fault('burst429Rate'),
  latencyMs: latency,
  // The deployment's `margin:` fields, the same schema (a remote venue's `margin:` must repeat them).
  interestRate: SimMarginModelSchema.shape.interestRate,
  interestPeriodMs: numberFlag(SimMarginModelSchema.shape.interestPeriodMs.unwrap()),
});

export function register(program: Command): void {
  program
    .command('sim')
    .description('Run the simulated exchange (the whole v3 API) on a loopback port')
    .option('--port <n>', 'port to listen on (0 picks a free one)', '8080')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--seed <n>', 'seed of the market (same seed, same market)', '42')
    .option('--speed <x>', 'simulated time per real time (60 = a minute per second)', '1')
    .option('--extra-pairs <n>', 'synthetic Reality pairs beside the real ones (XAAAUSDT, ...)', '0')
    .option('--start-time <iso>', 'simulated start time (default now)')
    .option('--api-key <key>', 'API key of the account', 'sim-key')
    .option('--api-secret <secret>', 'API secret of the account', 'sim-secret')
    .option('--passphrase <p>', 'API passphrase of the account', 'sim-passphrase')
    .option('--whitelisted', 'give the account whitelist access (reality-fills, 30 orders/s)', false)
    .option('--no-rate-limits', 'do not enforce the rate limits of spec section 8')
    .option('--fill-ids', 'add orderId and clientOid to reality-fills (a simulator extension)')
    .option('--no-fill-ids', "answer reality-fills with the spec's five fields only, as the venue does")
    .option('--error-rate <share>', 'fault injection: share of requests answered with 5xx')
    .option('--drop-rate <share>', 'fault injection: share of connections dropped')
    .option('--malformed-rate <share>', 'fault injection: share of answers with malformed JSON')
    .option('--burst429-rate <share>', 'fault injection: share of requests starting a burst of 429')
    .option('--latency-ms <n|min-max>', 'fault injection: added latency')
    .option(
      '--interest-rate <share>',
      "margin model: a loan's interest per period, of its basis",
      DEFAULT_MARGIN_MODEL.interestRate.toFixed(),
    )
    .option(
      '--interest-period-ms <ms>',
      'margin model: the interest period, venue time',
      String(DEFAULT_MARGIN_MODEL.interestPeriodMs),
    )
    .action(async (raw: Record<string, unknown>) => {
      const f = parseFlags(SimFlags, raw);
      const faults: FaultConfig = {
        ...(f.errorRate !== undefined ? { errorRate: f.errorRate } : {}),
        ...(f.dropRate !== undefined ? { dropRate: f.dropRate } : {}),
        ...(f.malformedRate !== undefined ? { malformedRate: f.malformedRate } : {}),
        ...(f.burst429Rate !== undefined ? { burst429Rate: f.burst429Rate } : {}),
        ...(f.latencyMs !== undefined ? { latencyMs: f.latencyMs } : {}),
      };
      const sim = await startSimulator({
        port: f.port,
        host: f.host,
        seed: f.seed,
        speed: f.speed,
        extraPairs: f.extraPairs,
        ...(f.startTime !== undefined ? { startTime: f.startTime } : {}),
        accounts: [
          { apiKey: f.apiKey, apiSecret: f.apiSecret, passphrase: f.passphrase, whitelisted: f.whitelisted },
        ],
        rateLimits: f.rateLimits,
        ...(f.fillIds !== undefined ? { fillIds: f.fillIds } : {}),
        faults,
        margin: marginModelOf({
          interestRate: f.interestRate,
          interestPeriodMs: f.interestPeriodMs,
        }),
      });
      process.stdout.write(`listening on ${sim.baseUrl}\n`);
      await watchSignals();
      await sim.stop();
      process.stdout.write('simulator stopped\n');
    });
}
