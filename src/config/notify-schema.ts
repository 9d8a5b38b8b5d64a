// The `notify:` block of a deployment: where notifications go (a webhook with Slack-compatible JSON, a
// Telegram bot), which events, and how hard to try. Secrets (the bot token, a webhook URL with its key)
// come from the environment or a file, never written in the file.
import cron from 'node-cron';
import { z } from 'zod';

const ms = (what: string, min: number, def: number) =>
  z
    .number({ error: `${what} must be a number of milliseconds` })
    .int()
    .min(min, `${what} must be at least ${min} ms`)
    .default(def)
    .describe(what);

export const NOTIFY_EVENTS = [
  'fill',
  'exit',
  'denials',
  'trading-state',
  'restart',
  'feed-health',
  'daily-summary',
] as const;
export type NotifyEventKind = (typeof NOTIFY_EVENTS)[number];

export const NotifySchema = z
  .strictObject({
    webhook: z
      .strictObject({
        url: z
          .url({
            protocol: /^https?$/,
            error:
              'notify.webhook.url must be an absolute http or https URL such as https://hooks.slack.com/services/...',
          })
          .describe(
            'where a JSON POST {"text": ...} goes (Slack incoming webhooks take it); use ${ENV_VAR} when it holds a key',
          ),
      })
      .optional()
      .describe('a webhook target'),
    telegram: z
      .strictObject({
        botToken: z
          .string({ error: 'notify.telegram.botToken must be a string (use ${ENV_VAR} or { file: path })' })
          .min(1, 'notify.telegram.botToken must not be empty')
          .describe('the bot token from @BotFather; use ${TRADEBOT_TELEGRAM_TOKEN} or { file: path }'),
        chatId: z
          .union([z.string().min(1), z.number().int()], {
            error: 'notify.telegram.chatId must be a chat id such as "123456789" or "@channel"',
          })
          .transform(String)
          .describe('the chat the bot writes to'),
        apiBaseUrl: z
          .url({
            protocol: /^https?$/,
            error: 'notify.telegram.apiBaseUrl must be an absolute http or https URL',
          })
          .default('https://api.telegram.org')
          .describe('the Bot API base URL (a local server in tests)'),
      })
      .optional()
      .describe('a Telegram bot (Bot API sendMessage)'),
    events: z
      .array(z.enum(NOTIFY_EVENTS, { error: `events are ${NOTIFY_EVENTS.join(', ')}` }))
      .default([...NOTIFY_EVENTS])
      .describe('which events are sent'),
    denialBurst: z
      .strictObject({
        count: z.number().int().min(1).default(5).describe('denials of one bot that make a burst'),
        windowMs: ms('notify.denialBurst.windowMs', 1000, 60_000),
      })
      .default({ count: 5, windowMs: 60_000 })
      .describe('one message when a bot is denied this many intents within the window (venue time)'),
    dailySummary: z
      .strictObject({
        cron: z
          .string()
          .refine(
            (c) => cron.validate(c),
            'notify.dailySummary.cron must be a cron expression such as "5 16 * * 1-5"',
          )
          .default('5 16 * * 1-5'),
        timezone: z.string().default('America/New_York'),
      })
      .default({ cron: '5 16 * * 1-5', timezone: 'America/New_York' })
      .describe("when the daily summary is sent, on the venue's clock"),
    perMinute: z
      .number()
      .int()
      .min(1)
      .max(600)
      .default(20)
      .describe('messages per minute and target, at most'),
    queue: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .default(200)
      .describe('messages waiting per target; past it the oldest are dropped (and counted)'),
    timeoutMs: ms('notify.timeoutMs', 100, 5000),
    retries: z.number().int().min(0).max(10).default(4).describe('resends of a failed message, with backoff'),
  })
  .refine((n) => n.webhook !== undefined || n.telegram !== undefined, {
    message: 'notify needs a target: webhook, telegram or both',
  })
  .describe('notifications: webhook and Telegram');

export type NotifyConfig = z.output<typeof NotifySchema>;
