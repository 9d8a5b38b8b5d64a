// Logs never carry secrets: neither in fields named like secrets nor inside messages or nested values.
import { Writable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createLogger, registerSecrets } from '../../../src/daemon/logger.js';

const capture = () => {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  return { lines, stream };
};

describe('logger', () => {
  it('redacts secret fields and registered secret values anywhere, in JSON', () => {
    registerSecrets(['s3cr3t-value-XYZ', 'pass-phrase-123']);
    const { lines, stream } = capture();
    const log = createLogger({ format: 'json', stream });
    log.info('connecting with s3cr3t-value-XYZ in the message', {
      apiSecret: 'anything',
      headers: { 'ACCESS-SIGN': 'sig', nested: ['pass-phrase-123'] },
      url: 'https://x/?p=pass-phrase-123',
    });
    log.child({ passphrase: 'pass-phrase-123' }).warn('child');
    const text = lines.join('');
    expect(text).not.toContain('s3cr3t-value-XYZ');
    expect(text).not.toContain('pass-phrase-123');
    expect(text).not.toContain('anything');
    expect(text).not.toContain('"sig"');
    const first = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    expect(first.message).toBe('connecting with [redacted] in the message');
    expect(first.apiSecret).toBe('[redacted]');
  });

  it('writes readable lines in pretty format and JSON otherwise', () => {
    const pretty = capture();
    createLogger({ format: 'pretty', stream: pretty.stream }).info('bot started', { bot: 'a' });
    expect(pretty.lines[0]).toMatch(/\d\d:\d\d:\d\d .*info.* bot started bot=a/);
    const json = capture();
    createLogger({ format: 'auto', stream: json.stream }).info('bot started', { bot: 'a' });
    expect(JSON.parse(json.lines[0] ?? '')).toMatchObject({
      level: 'info',
      message: 'bot started',
      bot: 'a',
    });
  });

  it("reads the venue's clock with its zone (a simulator's, hours from the wall clock), the wall clock kept as a field", () => {
    const venue = Date.UTC(2026, 10, 23, 15, 4, 5); // 10:04:05 EST
    const venueClock = { now: () => venue, zone: 'America/New_York' };
    const json = capture();
    createLogger({ format: 'json', stream: json.stream, venueClock }).info('fill', { bot: 'a' });
    const line = JSON.parse(json.lines[0] ?? '{}') as Record<string, unknown>;
    expect(line.venueTime).toBe('2026-11-23 10:04:05 EST');
    expect(Math.abs(Date.parse(String(line.timestamp)) - Date.now())).toBeLessThan(60_000);
    const pretty = capture();
    createLogger({ format: 'pretty', stream: pretty.stream, venueClock }).info('fill', { bot: 'a' });
    expect(stripVTControlCharacters(pretty.lines[0] ?? '')).toMatch(/^10:04:05 EST info fill bot=a/);
    // Before the venue is known, the wall clock.
    const early = capture();
    createLogger({
      format: 'json',
      stream: early.stream,
      venueClock: { now: () => undefined, zone: 'UTC' },
    }).info('x');
    expect(JSON.parse(early.lines[0] ?? '{}')).not.toHaveProperty('venueTime');
  });

  it("keeps text from outside inert in a terminal's line: an escape sequence is shown, a newline cannot forge a line", () => {
    const pretty = capture();
    const log = createLogger({ format: 'pretty', stream: pretty.stream });
    const reason = 'news\u001b[2J\u001b]0;pwned\u0007\n12:00:00 info order placed: forged';
    log.warn('control action', { bot: 'a', action: 'pause', reason });
    log.info('venue said', { what: `the venue refused: ${reason}` });
    const [first = '', second = ''] = pretty.lines;
    // winston's own colours are the only escape sequences left; the reason's are shown as text.
    for (const line of [first, second]) {
      const controls = [...stripVTControlCharacters(line).trimEnd()].filter((c) => c.charCodeAt(0) < 0x20);
      expect(controls).toEqual([]);
      expect(line.trimEnd().split('\n')).toHaveLength(1);
    }
    expect(first).toContain('reason=news\\e[2J\\e]0;pwned\\x07\\n12:00:00 info order placed: forged');
    expect(second).toContain('the venue refused: news\\e[2J');
    // JSON keeps the exact text (escaped by JSON itself).
    const json = capture();
    createLogger({ format: 'json', stream: json.stream }).warn('control action', { reason });
    expect((JSON.parse(json.lines[0] ?? '{}') as { reason: string }).reason).toBe(reason);
  });
});
