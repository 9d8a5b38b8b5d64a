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
  'account',
  'drift',
  'margin',
  'daily-summary',
  'lifecycle',
  'control',
] as const;
export type NotifyEventKind = (typeof NOTIFY_EVENTS)[number];

/** A Telegram chat id: a number (negative for groups and channels), or a public channel's @username. */
const CHAT_ID_RE = /^-?[1-9]\d{0,19}$/;
const CHANNEL_RE = /^@[A-Za-z][A-Za-z0-9_]{4,31}$/;

const chatId = (field: string) =>
  z
    .union([z.string().min(1), z.number().int()], {
      error: `${field} must be a chat id such as "123456789" or "-1001234567890"`,
    })
    .transform(String)
    .refine((v) => CHAT_ID_RE.test(v), {
      message: `${field} must be a numeric chat id such as "123456789" or "-1001234567890" (getUpdates gives it as message.chat.id)`,
    });

/**
 * Commands the bot answers in its chats (long polling of getUpdates). Like the control API without a
 * token, it is read-only (/status) unless `control` is true: /pause, /resume, /flatten, /halt and /rearm act on
 * the bots, and only ever from a chat of `allowedChatIds`.
 */
const TelegramCommandsSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(true)
      .describe('answer commands (/status, /pause, /resume, /flatten, /halt, /rearm)'),
    allowedChatIds: z
      .array(chatId('notify.telegram.commands.allowedChatIds[]'))
      .min(
        1,
        'notify.telegram.commands.allowedChatIds needs at least one chat id (or leave it out: the notify chat)',
      )
      .optional()
      .describe(
        'the chats whose commands are answered (default: the chat notifications go to); others are refused',
      ),
    control: z
      .boolean()
      .default(false)
      .describe(
        'allow /pause, /resume, /flatten, /halt and /rearm from the allowed chats; without it only /status answers',
      ),
    pollTimeoutS: z
      .number()
      .int()
      .min(0)
      .max(50)
      .default(25)
      .describe('seconds a getUpdates long poll may wait for a command'),
  })
  .describe("Telegram commands, with the control API's rules: allowed chats only, read-only unless control");

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
          // fetch refuses a URL with credentials in it: such a target could never be sent to.
          .refine((u) => !/^https?:\/\/[^/?#]*@/.test(u), {
            message:
              'notify.webhook.url must not carry user:password (fetch refuses such a URL, so no message would ever be sent); use a URL whose path or query holds the key, as Slack and Discord webhooks do',
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
          .refine((v) => CHAT_ID_RE.test(v) || CHANNEL_RE.test(v), {
            message:
              'notify.telegram.chatId must be a numeric chat id such as "123456789" or "-1001234567890", or a public channel as "@channelname"',
          })
          .describe('the chat the bot writes to'),
        apiBaseUrl: z
          .url({
            protocol: /^https?$/,
            error: 'notify.telegram.apiBaseUrl must be an absolute http or https URL',
          })
          .default('https://api.telegram.org')
          .describe('the Bot API base URL (a local server in tests)'),
        commands: TelegramCommandsSchema.optional(),
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
      .optional()
      .describe(
        "the default of every bot's denialBurst: this many denials of one code within the window (venue time) are one alarm; without it, 5 within ten of the bot's candles",
      ),
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
      .describe(
        'messages waiting per target; past it the oldest of the lowest priority (fills first) are dropped, counted and logged',
      ),
    timeoutMs: ms('notify.timeoutMs', 100, 5000),
    retries: z
      .number()
      .int()
      .min(0)
      .max(10)
      .default(4)
      .describe(
        'doublings of the wait between resends of a failed message (from 500 ms, at most 30 s); the message is kept until delivered',
      ),
    fillWindowMs: ms('notify.fillWindowMs', 0, 3000).describe(
      'fills of one order within this many milliseconds (real time) are told in one message',
    ),
    stopFlushMs: ms('notify.stopFlushMs', 0, 3000).describe(
      'how long a stop waits for the backlog to go out; what remains is sent at the next start',
    ),
  })
  .refine((n) => n.webhook !== undefined || n.telegram !== undefined, {
    message: 'notify needs a target: webhook, telegram or both',
  })
  .describe('notifications: webhook and Telegram');

export type NotifyConfig = z.output<typeof NotifySchema>;
