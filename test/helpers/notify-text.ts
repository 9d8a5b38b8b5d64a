// A notification's text without its time (`... · 2026-11-23 10:32:05 EST`, Notifier.compose), for tests that
// compare the words; `timeOf` gives the time, for tests that check it is the venue's.
import { TIME_SEPARATOR } from '../../src/notify/notifier.js';

const TIMED = /^(.*) · (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \S+)$/s;

export function untimed(text: string): string {
  const m = TIMED.exec(text);
  if (m === null) throw new Error(`notification without its time${TIME_SEPARATOR}...: ${text}`);
  return m[1] ?? '';
}

export function timeOf(text: string): string | undefined {
  return TIMED.exec(text)?.[2];
}
