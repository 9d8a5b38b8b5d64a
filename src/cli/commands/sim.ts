// `tradebot sim`: the simulated exchange on a port, until SIGINT/SIGTERM.
import type { Command } from 'commander';
import { z } from 'zod';
import { watchSignals } from '../../daemon/signals.js';
import { FaultConfigSchema, startSimulator } from '../../sim/index.js';
import { dateFlag, parseFlags } from '../flags.js';

/** A fault rate flag: a share of requests, from 0 to 1. */
const rate = (flag: string) => {
  const why = `${flag} must be a share from 0 to 1, such as 0.05`;
  return z.coerce.number({ error: why }).min(0, why).max(1, why).optional();
};
const SimFlags = z.strictObject({
  port: z.coerce
    .number({ error: '--port must be a number' })
    .int('--port must be a whole number, 0 (any free port) to 65535')
    .min(0, '--port must be 0 (any free port) to 65535')
    .max(65535, '--port must be 0 to 65535'),
  host: z.string().min(1),
  seed: z.coerce.number({ error: '--seed must be a whole number' }).int('--seed must be a whole number'),
  speed: z.coerce
    .number({ error: '--speed must be a number' })
    .positive('--speed must be greater than 0 (1 = real time)'),
  startTime: dateFlag('--start-time'),
  apiKey: z.string().min(1, '--api-key must not be empty'),
  apiSecret: z.string().min(1, '--api-secret must not be empty'),
  passphrase: z.string().min(1, '--passphrase must not be empty'),
  whitelisted: z.boolean(),
  rateLimits: z.boolean(),
  fillIds: z.boolean().optional(),
  errorRate: rate('--error-rate'),
  dropRate: rate('--drop-rate'),
  malformedRate: rate('--malformed-rate'),
  burst429Rate: rate('--burst429-rate'),
  latencyMs: z
    .string()
    .regex(/^\d+(-\d+)?$/, '--latency-ms must be N or MIN-MAX milliseconds')
    .refine((s) => {
      const [lo, hi] = s.split('-').map(Number);
      return hi === undefined || (lo as number) <= hi;
    }, '--latency-ms MIN-MAX needs MIN <= MAX, e.g. 10-50')
    .optional(),
});

export function register(program: Command): void {
  program
    .command('sim')
    .description('Run the simulated exchange (the whole v3 API) on a loopback port')
    .option('--port <n>', 'port to listen on (0 picks a free one)', '8080')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--seed <n>', 'seed of the market (same seed, same market)', '42')
    .option('--speed <x>', 'simulated time per real time (60 = a minute per second)', '1')
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
    .action(async (raw: Record<string, unknown>) => {
      const f = parseFlags(SimFlags, raw);
      const [lo, hi] = (f.latencyMs ?? '').split('-').map(Number);
      const faults = FaultConfigSchema.parse({
        ...(f.errorRate !== undefined ? { errorRate: f.errorRate } : {}),
        ...(f.dropRate !== undefined ? { dropRate: f.dropRate } : {}),
        ...(f.malformedRate !== undefined ? { malformedRate: f.malformedRate } : {}),
        ...(f.burst429Rate !== undefined ? { burst429Rate: f.burst429Rate } : {}),
        ...(f.latencyMs !== undefined ? { latencyMs: [lo ?? 0, hi ?? lo ?? 0] } : {}),
      });
      const sim = await startSimulator({
        port: f.port,
        host: f.host,
        seed: f.seed,
        speed: f.speed,
        ...(f.startTime !== undefined ? { startTime: f.startTime } : {}),
        accounts: [
          { apiKey: f.apiKey, apiSecret: f.apiSecret, passphrase: f.passphrase, whitelisted: f.whitelisted },
        ],
        rateLimits: f.rateLimits,
        ...(f.fillIds !== undefined ? { fillIds: f.fillIds } : {}),
        faults,
      });
      process.stdout.write(`listening on ${sim.baseUrl}\n`);
      await watchSignals();
      await sim.stop();
      process.stdout.write('simulator stopped\n');
    });
}
