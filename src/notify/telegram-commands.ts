// Telegram commands of a running deployment: /status, /pause, /resume, /flatten, /halt, /rearm, read by long
// polling the Bot API's getUpdates through fetch (one small loop, the same fetch, timeout and abort as the
// channel that sends: no second HTTP stack, no dependency). The rules are the control API's: only the
// allowed chats are answered, and what can move money or stop trading needs `control: true` (without it,
// as the dashboard without a token, the bot is read-only). Each action goes through the bot's one control
// path, journaled under `telegram:<chat id>`. The update offset is kept in the journal, so a restart does
// not run a command twice. The token is in the URL's path only: never logged.
import { z } from 'zod';
import { commandBot, type CommandableBot } from '../execution/control-outcome.js';
import type { LiveBotStatus } from '../execution/live-bot.js';
import type { ControlActionName } from '../store/index.js';
import { telegramMethodUrl } from './channels.js';
import type { NotifyLogger } from './dispatcher.js';
import { botLine } from './format.js';

/** A bot as the commands see it (the daemon's slot: its name, and the running bot unless it restarts). */
export interface CommandedBot {
  readonly config: { readonly name: string };
  readonly bot: ({ status(): LiveBotStatus } & CommandableBot) | undefined;
}

export interface TelegramCommandsOptions {
  readonly botToken: string;
  readonly apiBaseUrl: string;
  readonly allowedChatIds: readonly string[];
  readonly control: boolean;
  readonly pollTimeoutS: number;
  readonly bots: () => readonly CommandedBot[];
  readonly logger: NotifyLogger;
  /** Where the next update's offset is kept (the journal's meta table). */
  readonly meta: { get(key: string): string | undefined; set(key: string, value: string): void };
  readonly scrub: (s: string) => string;
  /** First backoff after a failed poll (default 1 s; doubled up to 30 s). */
  readonly backoffMs?: number | undefined;
}

const OFFSET_KEY = 'telegram:update-offset';

/** The part of getUpdates read (the Bot API answers much more; unknown fields are ignored). */
const UpdatesSchema = z.object({
  ok: z.literal(true),
  result: z.array(
    z.object({
      update_id: z.number().int(),
      message: z
        .object({
          chat: z.object({ id: z.union([z.number().int(), z.string()]) }),
          text: z.string().optional(),
        })
        .optional(),
    }),
  ),
});
type Update = z.output<typeof UpdatesSchema>['result'][number];

const MONEY_MOVING: Readonly<Record<string, ControlActionName>> = {
  '/pause': 'pause',
  '/resume': 'resume',
  '/flatten': 'flatten',
  '/halt': 'halt',
  '/rearm': 'rearm',
};

export class TelegramCommands {
  private stopped = false;
  private readonly abort = new AbortController();
  private loopDone: Promise<void> | undefined;
  private failingNow = false;

  constructor(private readonly o: TelegramCommandsOptions) {}

  start(): void {
    this.loopDone ??= this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort(new Error('the daemon stops'));
    await this.loopDone;
  }

  private async loop(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      try {
        const updates = await this.getUpdates();
        failures = 0;
        this.recovered();
        for (const u of updates) {
          // The offset first: a command is run at most once, even across a crash while it runs.
          this.o.meta.set(OFFSET_KEY, String(u.update_id + 1));
          await this.handle(u);
        }
      } catch (err) {
        if (this.stopped) return;
        this.failing(err);
        const wait = Math.min(30_000, (this.o.backoffMs ?? 1000) * 2 ** Math.min(failures++, 5));
        await new Promise<void>((r) => {
          const t = setTimeout(r, wait);
          this.abort.signal.addEventListener('abort', () => (clearTimeout(t), r()), { once: true });
        });
      }
    }
  }

  private async getUpdates(): Promise<Update[]> {
    const offset = Number(this.o.meta.get(OFFSET_KEY) ?? '0');
    const signal = AbortSignal.any([
      this.abort.signal,
      AbortSignal.timeout((this.o.pollTimeoutS + 10) * 1000),
    ]);
    const res = await fetch(telegramMethodUrl(this.o, 'getUpdates'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ offset, timeout: this.o.pollTimeoutS, allowed_updates: ['message'] }),
      signal,
    });
    const body: unknown = await res.json().catch(() => undefined);
    if (!res.ok) throw new Error(`the Telegram Bot API answered getUpdates with HTTP ${res.status}`);
    const parsed = UpdatesSchema.safeParse(body);
    if (!parsed.success)
      throw new Error(
        `the Telegram Bot API answered getUpdates with an unexpected body (${parsed.error.issues[0]?.path.join('.') ?? ''}: ${parsed.error.issues[0]?.message ?? ''})`,
      );
    return parsed.data.result;
  }

  /** One message: answered when it is a command from an allowed chat, refused (and logged) otherwise. */
  private async handle(u: Update): Promise<void> {
    const m = u.message;
    const text = m?.text?.trim();
    if (m === undefined || text === undefined || !text.startsWith('/')) return;
    const chat = String(m.chat.id);
    const [word = '', ...args] = text.split(/\s+/);
    const command = word.replace(/@\w+$/, '').toLowerCase();
    if (!this.o.allowedChatIds.includes(chat)) {
      this.o.logger.warn('telegram command refused', {
        chat,
        command,
        what: `Telegram command ${command} from chat ${chat} refused: the chat is not in notify.telegram.commands.allowedChatIds`,
      });
      await this.reply(
        chat,
        `This chat (${chat}) may not command this bot: add it to notify.telegram.commands.allowedChatIds.`,
      );
      return;
    }
    await this.reply(chat, await this.answer(chat, command, args));
  }

  private async answer(chat: string, command: string, args: readonly string[]): Promise<string> {
    if (command === '/status' || command === '/start')
      return (
        this.o
          .bots()
          .map((s) => (s.bot === undefined ? `${s.config.name}: restarting` : botLine(s.bot.status())))
          .join('\n') || 'no bots'
      );
    const action = MONEY_MOVING[command];
    if (action === undefined)
      return `Unknown command ${command}: /status, /pause, /resume, /flatten, /halt, /rearm`;
    if (!this.o.control) {
      this.o.logger.warn('telegram command refused', {
        chat,
        command,
        what: `Telegram command ${command} from chat ${chat} refused: commands are read-only (set notify.telegram.commands.control: true)`,
      });
      return `${command} refused: this bot is read-only (only /status); set notify.telegram.commands.control: true to allow it.`;
    }
    return this.act(chat, action, args);
  }

  /** `/<action> [bot|all] [reason...]`: the bot may be left out when there is only one. */
  private async act(chat: string, action: ControlActionName, args: readonly string[]): Promise<string> {
    const slots = this.o.bots();
    const names = slots.map((s) => s.config.name);
    const [first, ...rest] = args;
    let targets: readonly CommandedBot[];
    let reasonWords: readonly string[] = rest;
    if (first === 'all') targets = slots;
    else if (first !== undefined && names.includes(first))
      targets = slots.filter((s) => s.config.name === first);
    else if (slots.length === 1) {
      targets = slots;
      reasonWords = args;
    } else return `/${action} needs a bot: /${action} <${names.join('|')}|all> [reason]`;
    const reason = reasonWords.join(' ') || 'from Telegram';
    const who = `telegram:${chat}`;
    const done: string[] = [];
    for (const s of targets) {
      const bot = s.bot;
      if (bot === undefined) {
        done.push(`${s.config.name}: not running (it restarts); try again`);
        continue;
      }
      // The bot's own rules and words (commandBot), the control API's: a halted bot refuses a resume.
      const out = await commandBot(s.config.name, bot, { action, who, reason });
      if (!out.ok) {
        this.o.logger.warn('control refused', { bot: s.config.name, action, who, error: out.error });
        done.push(out.error);
        continue;
      }
      this.o.logger.warn('control action', { bot: s.config.name, action, who, reason });
      done.push(out.done);
    }
    return done.join('\n');
  }

  private async reply(chat: string, text: string): Promise<void> {
    const res = await fetch(telegramMethodUrl(this.o, 'sendMessage'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chat_id: chat, text, disable_web_page_preview: true }),
      signal: AbortSignal.any([this.abort.signal, AbortSignal.timeout(10_000)]),
    });
    await res.arrayBuffer().catch(() => undefined);
  }

  private failing(err: unknown): void {
    if (this.failingNow) return;
    this.failingNow = true;
    const why = this.o.scrub(err instanceof Error ? err.message : String(err));
    this.o.logger.warn('telegram commands failing', {
      what: `Telegram commands cannot be read: ${why}; polling again with backoff`,
      error: why,
    });
  }

  private recovered(): void {
    if (!this.failingNow) return;
    this.failingNow = false;
    this.o.logger.info('telegram commands recovered', { what: 'Telegram commands are read again' });
  }
}
