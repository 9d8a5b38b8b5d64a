// Validation of command-line flags at the boundary: every problem names the flag and the fix.
import type { z } from 'zod';

/** A flag problem; the CLI prints it and exits 2. */
export class FlagError extends Error {
  readonly exitCode = 2;
}

const flagName = (key: string) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** Parses commander's option object with a zod schema; throws FlagError listing every problem. */
export function parseFlags<T extends z.ZodType>(schema: T, raw: Record<string, unknown>): z.output<T> {
  const r = schema.safeParse(raw);
  if (r.success) return r.data;
  const lines = r.error.issues.map((i) => {
    const key = String(i.path[0] ?? '');
    const msg = i.message.startsWith('--') ? i.message : `${flagName(key)}: ${i.message}`;
    return `  ${msg} (got ${JSON.stringify(raw[key])})`;
  });
  throw new FlagError(`invalid options:\n${lines.join('\n')}`);
}
