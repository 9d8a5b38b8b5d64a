// The deployment file: every field with a description and a default, unknown keys refused, cross-field
// rules checked. `tradebot schema` prints it as JSON Schema for editor completion.
import cron from 'node-cron';
import { z } from 'zod';
import { DECIMAL_RE, REALITY_CANDLE_INTERVALS, SetLeverageParams, namesLeverage } from '../api/index.js';
import { baseUrlProblem } from '../client/base-url.js';
import { Decimal } from '../market/decimal.js';
import { baseFromName } from '../market/instrument-rules.js';
import { RiskLimitsSchema } from '../risk/limits.js';
import { ExitRulesYamlSchema, ProtectionsYamlSchema } from '../strategy/exits.js';
import { FaultConfigSchema } from '../sim/faults.js';
import {
  SimExtraPairsSchema,
  SimMarginModelSchema,
  SimPortSchema,
  SimSeedSchema,
  SimSpeedSchema,
} from '../sim/options.js';
import { NotifySchema } from './notify-schema.js';

export const decimal = (what: string) =>
  z
    .string({ error: `${what} must be a decimal string such as "100" (quote it so YAML keeps it exact)` })
    .regex(DECIMAL_RE, `${what} must be a plain decimal string such as "100"`);
const positiveDecimal = (what: string) =>
  decimal(what).refine(
    (v) => !DECIMAL_RE.test(v) || /[1-9]/.test(v),
    `${what} must be above zero, such as "10000"`,
  );

/** The most digits an amount of money from a file or a flag may have before and after its point. */
export const AMOUNT_DIGITS = { integer: 15, fraction: 18 } as const;

/**
 * Why a plain decimal string is too long to be an amount of money (more than AMOUNT_DIGITS), or undefined:
 * Decimal would keep it, but the journal would store 1e+400 and no venue holds such a balance.
 */
export function amountDigitsProblem(what: string, v: string): string | undefined {
  const [int = '', frac = ''] = v.split('.');
  if (int.length <= AMOUNT_DIGITS.integer && frac.length <= AMOUNT_DIGITS.fraction) return undefined;
  return `${what} ${v.length > 40 ? `${v.slice(0, 20)}…(${v.length} characters)` : v} has more than ${AMOUNT_DIGITS.integer} digits before the point or ${AMOUNT_DIGITS.fraction} after it; write an amount such as "10000"`;
}

/** An amount of money: a positive decimal string of at most AMOUNT_DIGITS. */
export const amountDecimal = (what: string) =>
  positiveDecimal(what).superRefine((v, ctx) => {
    const problem = DECIMAL_RE.test(v) ? amountDigitsProblem(what, v) : undefined;
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  });

/** The highest fee rate a file may set: a rate is a fraction of each fill (0.001 is 0.1%). */
export const MAX_FEE_RATE = '0.1';

/** A fee rate: a decimal fraction of each fill, from 0 to MAX_FEE_RATE. */
export const feeRateDecimal = (what: string) =>
  decimal(what).refine(
    (v) => !DECIMAL_RE.test(v) || Number(v) <= Number(MAX_FEE_RATE),
    `${what} is a fraction of each fill (0.001 is 0.1%), at most ${MAX_FEE_RATE} (10%); "2" would be 200%`,
  );
/** Whether the tz database (through Intl) knows a zone; `Mars/Olympus` and typos are refused. */
const knownTimeZone = (tz: string): boolean => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};
const secret = (what: string) =>
  z
    .string({ error: `${what} must be a string (use \${ENV_VAR} or { file: path })` })
    .min(1, `${what} must not be empty`);
const ms = (what: string, min: number, def: number) =>
  z
    .number({ error: `${what} must be a number of milliseconds` })
    .int()
    .min(min, `${what} must be at least ${min} ms to stay inside the rate limits`)
    .default(def)
    .describe(what);

export const SimAccountSchema = z
  .strictObject({
    apiKey: secret('apiKey').default('sim-key').describe('API key of the simulated account'),
    apiSecret: secret('apiSecret').default('sim-secret').describe('API secret of the simulated account'),
    passphrase: secret('passphrase')
      .default('sim-passphrase')
      .describe('API passphrase of the simulated account'),
    whitelisted: z.boolean().default(true).describe('whitelist access (reality-fills, 30 orders/s)'),
    balances: z
      .record(z.string(), amountDecimal('balance').or(z.literal('0')))
      .default({ USDT: '100000' })
      .describe('starting balances by coin'),
    feeRate: feeRateDecimal('feeRate')
      .default('0.001')
      .describe('fee rate of Reality fills, charged in the quote coin'),
  })
  .describe('the account the bots trade on in the embedded simulator');

export const SimVenueSchema = z
  .strictObject({
    kind: z.literal('simulator').describe('the embedded simulated exchange'),
    seed: SimSeedSchema.default(42).describe('seed of the simulated market (same seed, same market)'),
    speed: SimSpeedSchema.default(1).describe('simulated time per real time (60: a minute per second)'),
    startTime: z
      .string()
      .refine(
        (s) => !Number.isNaN(Date.parse(s)),
        'startTime must be an ISO date such as 2026-11-23T14:29:00Z',
      )
      .optional()
      .describe('simulated start time (default: now)'),
    port: SimPortSchema.default(0).describe('port of the simulator (0 picks a free port)'),
    extraPairs: SimExtraPairsSchema.default(0).describe(
      'synthetic Reality pairs listed beside the real ones, same rules (XAAAUSDT, XAABUSDT, ...)',
    ),
    faults: FaultConfigSchema.optional().describe('fault injection'),
    account: SimAccountSchema.default(SimAccountSchema.parse({})),
    margin: SimMarginModelSchema.optional().describe(
      "the simulator's margin model of MARGIN loans (interestRate per interestPeriodMs; default 0.00002 per hour); the bots' own accounts of their loans use it too",
    ),
  })
  .describe('run against the embedded simulated exchange');

export const RemoteVenueSchema = z
  .strictObject({
    kind: z.literal('remote').describe('a venue speaking the v3 API over HTTP'),
    baseUrl: z
      .string({ error: 'baseUrl must be an absolute URL such as https://api.example.com' })
      .superRefine((url, ctx) => {
        const problem = baseUrlProblem(url);
        if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
      })
      .describe('base URL of the venue (http or https)'),
    credentials: z
      .strictObject({
        apiKey: secret('credentials.apiKey').describe('API key; use ${ENV_VAR} or { file: path }'),
        apiSecret: secret('credentials.apiSecret').describe('API secret; use ${ENV_VAR} or { file: path }'),
        passphrase: secret('credentials.passphrase').describe(
          'API passphrase; use ${ENV_VAR} or { file: path }',
        ),
      })
      .describe('API credentials; never written in clear in the file'),
    whitelisted: z
      .boolean()
      .default(false)
      .describe('the account has whitelist access (reality-fills, 30 orders/s)'),
    channelApiCode: z.string().optional().describe('X-CHANNEL-API-CODE broker code sent with orders'),
    locale: z.string().default('en-US').describe('locale header'),
    timeoutMs: ms('timeoutMs', 500, 10_000),
    feeRate: feeRateDecimal('feeRate').default('0.001').describe("the account's fee rate on Reality pairs"),
    timeScale: SimSpeedSchema.optional().describe(
      'only for a tradebot simulator started with --speed: the daemon then runs on the venue time (paper trading on an accelerated market)',
    ),
    margin: SimMarginModelSchema.optional().describe(
      "the margin model MARGIN bots assume for their own account of loans, which the spec does not publish: a tradebot simulator's --interest-rate and --interest-period-ms (default the simulator's: 0.00002 per hour)",
    ),
  })
  .describe('run against a remote venue');

/** The pretend account of a paper run: its starting balances and fee rate. */
export const PaperAccountSchema = z
  .strictObject({
    balances: z
      .record(
        z.string().regex(/^[A-Z0-9]+$/, 'a balance is keyed by a coin in upper case, e.g. USDT'),
        amountDecimal('balance'),
      )
      .default({ USDT: '100000' })
      .describe('starting balances of a new paper account, by coin (a journal that has one keeps its own)'),
    feeRate: feeRateDecimal('feeRate')
      .default('0.001')
      .describe('fee rate charged on paper fills, in the quote coin'),
  })
  .describe('the paper account (see docs/paper.md)');

/** Where a paper run records the candles its bots decide on (one file per symbol and interval). */
export const PaperRecordSchema = z
  .strictObject({
    dir: z
      .string({ error: 'record.dir is the folder the candles are recorded into, e.g. paper-candles' })
      .min(1, 'record.dir is the folder the candles are recorded into, e.g. paper-candles')
      .describe('folder of the recorded candles: <SYMBOL>-<interval>.csv each, appended to across restarts'),
  })
  .describe(
    "record the paper run's candles in the `tradebot record` format, to backtest the same period (docs/paper.md)",
  );

export const PaperVenueSchema = z
  .strictObject({
    kind: z.literal('paper').describe("a dry run: the venue's public data, orders filled locally"),
    baseUrl: RemoteVenueSchema.shape.baseUrl,
    locale: RemoteVenueSchema.shape.locale,
    timeoutMs: ms('timeoutMs', 500, 10_000),
    timeScale: RemoteVenueSchema.shape.timeScale,
    account: PaperAccountSchema.default(PaperAccountSchema.parse({})),
    record: PaperRecordSchema.optional(),
  })
  .describe(
    "a dry run on a venue's public market data (no credentials, no private endpoint); orders filled locally by the matching core (docs/paper.md)",
  );

export const ScheduleSchema = z
  .strictObject({
    cron: z
      .string()
      .refine((c) => cron.validate(c), 'cron must be a valid cron expression such as "0 21 * * 1-5"')
      .describe('when the task runs (node-cron syntax)'),
    timezone: z
      .string()
      .refine(
        knownTimeZone,
        'timezone must be a time zone of the tz database, such as America/New_York or Europe/London',
      )
      .default('America/New_York')
      .describe('IANA time zone of the cron expression'),
    task: z
      .enum(['report', 'flatten', 'set-leverage'], { error: 'task must be report, flatten or set-leverage' })
      .describe('what to do'),
  })
  .describe('a scheduled task');

/** The set-leverage call's own parameter schema (spec 4.4): what the venue would refuse, the file does. */
export const LeverageSchema = SetLeverageParams.superRefine((p, ctx) => {
  if (!namesLeverage(p))
    ctx.addIssue({
      code: 'custom',
      path: ['leverage'],
      message:
        'leverage is missing: an entry without leverage (or longLeverage/shortLeverage) sets nothing; add leverage: "5"',
    });
}).describe('set-leverage parameters (category, symbol or coin, leverage, ...), applied at start');

/** The user's strategy folder, shared by deployment and backtest files. */
export const strategiesDirField = z
  .string()
  .min(1)
  .optional()
  .describe(
    'folder of your own strategies, looked up by name before the bundled ones; relative to this file (default: strategies next to this file)',
  );

export const BotSchema = z
  .strictObject({
    name: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{0,31}$/, 'name must be 1-32 lower-case letters, digits or dashes')
      .describe('unique bot name'),
    strategy: z
      .string()
      .min(1)
      .describe(
        'strategy name (your strategiesDir first, then the bundled ones, e.g. ma-crossover) or a path to a .ts/.js module',
      ),
    params: z
      .record(z.string(), z.unknown())
      .default({})
      .describe("strategy parameters, checked against the strategy's own schema"),
    category: z.enum(['SPOT', 'MARGIN']).default('SPOT').describe('category of the orders'),
    symbols: z
      .array(z.string().regex(/^[A-Z0-9]+$/, 'symbols are upper-case, e.g. AAPLUSDT'))
      .min(1, 'a bot needs at least one symbol')
      // Twice in one bot, every candle of the symbol would reach the strategy twice.
      .superRefine((symbols, ctx) =>
        symbols.forEach((sym, j) => {
          const first = symbols.indexOf(sym);
          if (first !== j)
            ctx.addIssue({
              code: 'custom',
              path: [j],
              message: `${sym} is listed twice (also symbols[${first}]): remove the duplicate, each symbol once per bot`,
            });
        }),
      )
      .describe('Reality pairs the bot trades'),
    // Spec 4.1: the candles of a Reality stock pair come in these intervals only; any other is a
    // parameter error on every poll.
    interval: z
      .enum(REALITY_CANDLE_INTERVALS, {
        error: `interval must be one of ${REALITY_CANDLE_INTERVALS.join(', ')}: the venue serves no other candles for Reality stock pairs (spec 4.1)`,
      })
      .default('1m')
      .describe('candle interval fed to the strategy (the intervals of Reality stock pairs)'),
    quoteCoin: z
      .string()
      .regex(/^[A-Z0-9]+$/, 'quoteCoin is a coin in upper case, e.g. USDT')
      .default('USDT')
      .describe('coin the bot accounts in: the quote coin of its symbols'),
    capital: amountDecimal('capital')
      .default('10000')
      .describe("the bot's share of the account, in the quote coin"),
    maxSignalAgeMs: z
      .number()
      .int()
      .min(0)
      .default(180_000)
      .describe('signals from candles older than this are not traded (after a gap)'),
    poll: z
      .strictObject({
        tickersMs: ms('poll.tickersMs', 100, 2_000),
        instrumentsMs: ms('poll.instrumentsMs', 1_000, 60_000),
        suspensionMs: ms('poll.suspensionMs', 1_000, 60_000),
        calendarMs: ms('poll.calendarMs', 60_000, 21_600_000),
        fillsMs: ms('poll.fillsMs', 200, 2_000),
      })
      .default({
        tickersMs: 2_000,
        instrumentsMs: 60_000,
        suspensionMs: 60_000,
        calendarMs: 21_600_000,
        fillsMs: 2_000,
      })
      .describe('poll cadences (simulated ms when the venue is the accelerated simulator)'),
    risk: RiskLimitsSchema.default(RiskLimitsSchema.parse({})),
    exits: ExitRulesYamlSchema.optional().describe(
      "exits the pipeline evaluates on every price (stopLoss, takeProfit, trailingStop, minimalRoi, maxTradeMinutes, sessionEnd); each overrides the strategy's",
    ),
    protections: ProtectionsYamlSchema.optional().describe(
      "entry locks (cooldownAfterStop, maxDrawdown, lowProfitPair); each overrides the strategy's",
    ),
    leverage: z.array(LeverageSchema).default([]).describe('set-leverage calls made at start'),
    schedules: z.array(ScheduleSchema).default([]).describe('cron jobs of this bot'),
    denialBurst: z
      .strictObject({
        count: z
          .number({ error: 'denialBurst.count must be a whole number of denials, e.g. 5' })
          .int('denialBurst.count must be a whole number of denials, e.g. 5')
          .min(1, 'denialBurst.count must be at least 1')
          .max(10_000, 'denialBurst.count must be at most 10000')
          .optional()
          .describe('denials of one code that make a burst (default 5)'),
        windowMs: z
          .number({ error: 'denialBurst.windowMs must be a number of milliseconds, e.g. 600000' })
          .int('denialBurst.windowMs must be a whole number of milliseconds')
          .min(1000, 'denialBurst.windowMs must be at least 1000 ms')
          .max(604_800_000, 'denialBurst.windowMs must be at most a week (604800000 ms)')
          .optional()
          .describe("within how long, venue time (default ten of the bot's candles)"),
      })
      .optional()
      .describe(
        "one alarm (log, metric, notification) when the bot is denied this many intents of one code within the window; default notify.denialBurst, else 5 within ten of the bot's candles",
      ),
  })
  .describe('one bot: a strategy on some symbols with its risk limits');

/** Whether a host name or address is the loopback interface (only this machine can connect). */
export const isLoopbackHost = (host: string): boolean =>
  host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);

/** Shortest dashboard token accepted: a guessable token on a port that can move money is none at all. */
export const MIN_DASHBOARD_TOKEN_LENGTH = 16;

export const DashboardSchema = z
  .strictObject({
    enabled: z.boolean().default(false).describe('serve the web dashboard and the control API'),
    host: z
      .string()
      .min(1)
      .default('127.0.0.1')
      .describe(
        'address the dashboard listens on; anything but loopback needs a token (the daemon refuses to start otherwise)',
      ),
    port: z
      .number()
      .int()
      .min(0)
      .max(65535)
      .default(8787)
      .describe('port of the dashboard (0 picks a free port; the URL is logged at start)'),
    token: z
      // ${TRADEBOT_DASHBOARD_TOKEN:-} left empty means no token: the dashboard is then read-only.
      .preprocess(
        (v) => (v === '' ? undefined : v),
        secret('dashboard.token')
          .min(
            MIN_DASHBOARD_TOKEN_LENGTH,
            `dashboard.token must be at least ${MIN_DASHBOARD_TOKEN_LENGTH} characters (e.g. openssl rand -hex 24)`,
          )
          .optional(),
      )
      .describe(
        'bearer token of the control API and the live stream; use ${TRADEBOT_DASHBOARD_TOKEN} or { file: path }. Without one the dashboard is read-only',
      ),
  })
  .describe('the web dashboard and control API (see docs/dashboard.md)');

export const DeploymentSchema = z
  .strictObject({
    strategiesDir: strategiesDirField,
    venue: z
      .discriminatedUnion('kind', [SimVenueSchema, RemoteVenueSchema, PaperVenueSchema], {
        error: 'venue.kind must be simulator, remote or paper',
      })
      .describe('where orders go'),
    paper: PaperAccountSchema.extend({ record: PaperRecordSchema.optional() })
      .optional()
      .describe(
        'the paper account `tradebot run --paper` uses with this file (a live file run as a dry run), and where it records its candles',
      ),
    store: z
      .strictObject({
        path: z
          .string()
          .min(1)
          // Checked again at start, with the disk (see checkJournalPath); a kernel file system is never right.
          .refine(
            (p) => !/^\/(?:proc|sys|dev)(?:\/|$)/.test(p),
            'store.path must be a file on a disk, not under /proc, /sys or /dev (e.g. .tradebot/tradebot.db)',
          )
          .default('.tradebot/tradebot.db')
          .describe('SQLite journal file, one per deployment'),
      })
      .default({ path: '.tradebot/tradebot.db' }),
    logging: z
      .strictObject({
        level: z.enum(['error', 'warn', 'info', 'debug']).default('info').describe('log level'),
        format: z
          .enum(['auto', 'json', 'pretty'])
          .default('auto')
          .describe('auto: pretty on a terminal, JSON otherwise'),
      })
      .default({ level: 'info', format: 'auto' }),
    metrics: z
      .strictObject({
        enabled: z.boolean().default(true).describe('serve /healthz, /readyz and /metrics'),
        host: z.string().default('127.0.0.1').describe('address of the metrics server'),
        port: z
          .number()
          .int()
          .min(0)
          .max(65535)
          .default(9464)
          .describe('port of the metrics server (0 picks a free port)'),
      })
      .default({ enabled: true, host: '127.0.0.1', port: 9464 }),
    dashboard: DashboardSchema.default({ enabled: false, host: '127.0.0.1', port: 8787 }),
    status: z
      .strictObject({ enabled: z.boolean().default(true).describe('a live status line on a terminal') })
      .default({ enabled: true }),
    shutdownTimeoutMs: z
      .number()
      .int()
      .min(1000)
      .default(10_000)
      .describe('how long SIGTERM waits for orders in flight'),
    fills: z
      .enum(['venue', 'estimated'], { error: 'fills must be venue or estimated' })
      .default('venue')
      .describe(
        'venue: fills read from reality-fills (needs whitelist access); estimated: without whitelist access, market orders are booked from the acknowledgement at the touch, marked estimated, and limit orders are refused',
      ),
    fillAttribution: z
      .enum(['fifo'], { error: 'fillAttribution must be fifo' })
      .optional()
      .describe(
        'how fills without order ids are shared by bots trading the same symbol: fifo gives each fill to the matching open order (same side, placed before the fill, price within its limit, enough left) placed first, market orders before limit orders. Required when two bots share a symbol',
      ),
    notify: NotifySchema.optional(),
    drift: z
      .strictObject({
        enabled: z.boolean().default(true).describe('run the drift check of every bot on the schedule'),
        cron: ScheduleSchema.shape.cron
          .default('30 2 0 * * *')
          .describe(
            "when the drift check runs, on the venue's clock (default 00:02:30: after the venue day's last candle, 30 s off a candle boundary)",
          ),
        timezone: ScheduleSchema.shape.timezone,
      })
      .default({ enabled: true, cron: '30 2 0 * * *', timezone: 'America/New_York' })
      .describe(
        "the drift monitor: each bot's journal against the replay of the venue's candles (docs/operating.md, drift)",
      ),
    bots: z
      .array(BotSchema)
      .min(1, 'a deployment needs at least one bot')
      .describe('the bots of this deployment'),
  })
  .superRefine((d, ctx) => {
    if (d.dashboard.enabled && d.dashboard.token === undefined && !isLoopbackHost(d.dashboard.host))
      ctx.addIssue({
        code: 'custom',
        path: ['dashboard', 'host'],
        message: `the dashboard would listen on ${d.dashboard.host} without a token: anyone who reaches that address could watch the bots, so a non-loopback address needs dashboard.token (\${TRADEBOT_DASHBOARD_TOKEN} or { file: path }); or listen on 127.0.0.1`,
      });
    // The venue's fills carry no order ids: bots sharing a symbol need a rule to share its fills.
    const traders = new Map<string, number>();
    d.bots.forEach((b, i) =>
      b.symbols.forEach((sym, j) => {
        const other = traders.get(sym);
        if (other !== undefined && other !== i && d.fillAttribution === undefined)
          ctx.addIssue({
            code: 'custom',
            path: ['bots', i, 'symbols', j],
            message: `${sym} is also traded by bots[${other}] (${d.bots[other]?.name ?? ''}) on the same account; the venue's fills carry no order ids, so set fillAttribution: fifo to share it (each fill goes to the matching open order placed first) or give the symbol to one bot`,
          });
        if (other === undefined) traders.set(sym, i);
      }),
    );
    // A bot accounts in one coin: a pair quoted in another could never be bought with its cash. The
    // venue's instruments tell each pair's quote coin (checked at start); its name ends with it.
    d.bots.forEach((b, i) => {
      const others = b.symbols
        .map((sym, j) => ({ sym, j }))
        .filter(({ sym }) => baseFromName(sym, b.quoteCoin) === undefined);
      const fix = `a pair's name ends with its quote coin, and a bot accounts in the quote coin of its symbols: set quoteCoin to theirs, or trade pairs quoted in ${b.quoteCoin}`;
      const names = [...new Set(others.map((o) => o.sym))];
      if (others.length === b.symbols.length && others.length > 0)
        ctx.addIssue({
          code: 'custom',
          path: ['bots', i, 'quoteCoin'],
          message: `${names.join(', ')} ${names.length === 1 ? 'is' : 'are'} not quoted in ${b.quoteCoin}: ${fix}`,
        });
      else
        for (const { sym, j } of others)
          ctx.addIssue({
            code: 'custom',
            path: ['bots', i, 'symbols', j],
            message: `${sym} is not quoted in ${b.quoteCoin}, the bot's quoteCoin: ${fix}`,
          });
    });
    // A paper account is the bots' whole money: capital it cannot back would be spent twice.
    if (d.venue.kind === 'paper') {
      const balances = d.venue.account.balances;
      const wanted = new Map<string, Decimal>();
      for (const b of d.bots)
        wanted.set(b.quoteCoin, (wanted.get(b.quoteCoin) ?? new Decimal(0)).plus(b.capital));
      for (const [coin, sum] of wanted) {
        const has = new Decimal(balances[coin] ?? '0');
        if (sum.gt(has))
          ctx.addIssue({
            code: 'custom',
            path: ['venue', 'account', 'balances', coin],
            message: `the bots' capital in ${coin} adds up to ${sum.toFixed()} but the paper account starts with ${has.toFixed()} ${coin}; raise the balance (or --paper-balances ${coin}=${sum.toFixed()}) or lower the bots' capital`,
          });
      }
    }
    const seen = new Map<string, number>();
    d.bots.forEach((b, i) => {
      const prev = seen.get(b.name);
      if (prev !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['bots', i, 'name'],
          message: `bot name ${b.name} is already used by bots[${prev}]; names must be unique`,
        });
      seen.set(b.name, i);
      if (b.schedules.some((s) => s.task === 'set-leverage') && b.leverage.length === 0) {
        ctx.addIssue({
          code: 'custom',
          path: ['bots', i, 'leverage'],
          message: 'a set-leverage schedule needs leverage entries to apply',
        });
      }
    });
  })
  .describe('a tradebot deployment');

export type Deployment = z.output<typeof DeploymentSchema>;
export type BotConfig = Deployment['bots'][number];

/** The JSON Schema of the deployment file. */
export function configJsonSchema(): unknown {
  return z.toJSONSchema(DeploymentSchema, { io: 'input', unrepresentable: 'any' });
}

/** Fields whose values are secrets: the logger scrubs them. */
export const SECRET_KEYS = ['apiKey', 'apiSecret', 'passphrase', 'token', 'botToken'] as const;
