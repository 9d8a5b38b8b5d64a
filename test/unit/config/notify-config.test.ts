// The notify: block of a deployment: a Telegram token written in the file is refused (never echoed), one
// from the environment is taken and registered as a secret; a block without a target is refused.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ConfigError, loadConfig } from '../../../src/config/index.js';

const dir = mkdtempSync(join(tmpdir(), 'tradebot-notify-cfg-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (notify: unknown) => {
  const f = join(dir, `${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(
    f,
    stringify({
      venue: { kind: 'simulator' },
      notify,
      bots: [{ name: 'a', strategy: 'ma-crossover', symbols: ['AAPLUSDT'] }],
    }),
  );
  return f;
};
const problems = (f: string, env: NodeJS.ProcessEnv = {}) => {
  try {
    loadConfig(f, env);
    return '';
  } catch (e) {
    if (e instanceof ConfigError) return e.message;
    throw e;
  }
};

describe('notify: in a deployment', () => {
  it('refuses a literal Telegram token without echoing it, and says where it goes', () => {
    const msg = problems(file({ telegram: { botToken: '123:literal-secret-token', chatId: 1 } }));
    expect(msg).toContain(
      'notify.telegram.botToken: a secret written in the file is refused: use ${TRADEBOT_TELEGRAM_TOKEN}',
    );
    expect(msg).not.toContain('literal-secret-token');
  });

  it('takes the token from the environment and lists it among the secrets to redact', () => {
    const loaded = loadConfig(file({ telegram: { botToken: '${TG}', chatId: '@ops_room' } }), {
      TG: '123:from-env-token',
    });
    expect(loaded.config.notify?.telegram).toMatchObject({
      chatId: '@ops_room',
      apiBaseUrl: 'https://api.telegram.org',
    });
    expect(loaded.secrets).toContain('123:from-env-token');
  });

  it('refuses a notify block without a target', () => {
    expect(problems(file({ events: ['fill'] }))).toContain(
      'notify needs a target: webhook, telegram or both',
    );
  });

  it('takes Telegram commands read-only by default, answering the notify chat, and names a bad field with its fix', () => {
    const loaded = loadConfig(file({ telegram: { botToken: '${TG}', chatId: 4242, commands: {} } }), {
      TG: '123:from-env-token',
    });
    expect(loaded.config.notify?.telegram?.commands).toEqual({
      enabled: true,
      control: false,
      pollTimeoutS: 25,
    });
    const msg = problems(
      file({
        telegram: { botToken: '${TG}', chatId: 1, commands: { allowedChatIds: [true], control: 'yes' } },
      }),
      { TG: '123:from-env-token' },
    );
    expect(msg).toMatch(
      /notify\.telegram\.commands\.allowedChatIds\[0\]: .*must be a chat id such as "123456789" or "-1001234567890" — got true/,
    );
    expect(msg).toContain('notify.telegram.commands.control: must be true or false');
    expect(msg).not.toContain('from-env-token');
  });

  it('refuses a Telegram chat that is not a chat id, and a webhook URL with user:password that fetch could never send to', () => {
    const env = { TG: '123:from-env-token' };
    expect(problems(file({ telegram: { botToken: '${TG}', chatId: 'not a chat' } }), env)).toMatch(
      /notify\.telegram\.chatId: .*must be a numeric chat id such as "123456789".* or a public channel as "@channelname"/,
    );
    expect(
      problems(
        file({ telegram: { botToken: '${TG}', chatId: 1, commands: { allowedChatIds: ['@ops_room'] } } }),
        env,
      ),
    ).toMatch(/allowedChatIds\[0\]: .*must be a numeric chat id.*message\.chat\.id/);
    expect(problems(file({ webhook: { url: 'https://user:password@hooks.example.com/x' } }))).toMatch(
      /notify\.webhook\.url: .*must not carry user:password \(fetch refuses such a URL/,
    );
    expect(problems(file({ webhook: { url: 'https://hooks.example.com/services/T0/B0/key' } }))).toBe('');
    expect(problems(file({ telegram: { botToken: '${TG}', chatId: '-1001234567890' } }), env)).toBe('');
  });
});
