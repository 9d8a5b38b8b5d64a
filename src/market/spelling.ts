// "Did you mean ...?" for a name a user typed: a parameter, an endpoint, a strategy, a bot.

/** Levenshtein distance, case-insensitive. */
function distance(x: string, y: string): number {
  const a = x.toLowerCase();
  const b = y.toLowerCase();
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j] as number;
      row[j] = Math.min(
        (row[j] as number) + 1,
        (row[j - 1] as number) + 1,
        prev + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      prev = tmp;
    }
  }
  return row[b.length] as number;
}

/**
 * The candidate `word` most likely meant: a typo ("fsat" for "fast", a third of its letters at most) or a
 * name with every part of it ("place-order" for "place-reality-order"); the nearest when several are.
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const parts = word
    .toLowerCase()
    .split(/[-_ ]+/)
    .filter((p) => p.length > 0);
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = distance(word, c);
    const near = d <= Math.max(2, Math.floor(word.length / 3));
    const hasParts = parts.length > 0 && parts.every((p) => c.toLowerCase().includes(p));
    if ((near || hasParts) && d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best;
}

/** ` (did you mean "x"?)` when a candidate is close, else '': written right after the unknown name. */
export const didYouMean = (word: string, candidates: readonly string[]): string => {
  const near = closest(word, candidates);
  return near === undefined ? '' : ` (did you mean "${near}"?)`;
};

/** A count with its noun, singular for one: `counted(1, 'order')` is "1 order", `counted(7, 'order')` "7 orders". */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}

/** The fields of a schema issue (zod's) that plainIssue reads. */
interface SchemaIssue {
  readonly code?: string | undefined;
  readonly expected?: string | undefined;
  readonly origin?: string | undefined;
  readonly minimum?: unknown;
  readonly maximum?: unknown;
  readonly inclusive?: boolean | undefined;
  readonly divisor?: unknown;
  readonly values?: readonly unknown[] | undefined;
  /** invalid_union: each alternative's issues, their messages already said. */
  readonly errors?: readonly (readonly {
    readonly code?: string;
    readonly path?: readonly unknown[];
    readonly message?: string;
  }[])[];
}

const EXPECTED: Readonly<Record<string, string>> = {
  int: 'must be a whole number',
  number: 'must be a number',
  string: 'must be text (put a number in quotes: "5")',
  boolean: 'must be true or false',
  array: 'must be a list',
  object: 'must be a mapping of keys to values',
};

/**
 * A schema rule broken, as a sentence of what to write ("must be at least 2"), for the rules a schema
 * states without a message of its own (zod's error map: undefined keeps zod's message). Used where YAML
 * and strategy parameters are checked.
 */
export function plainIssue(issue: SchemaIssue): string | undefined {
  const bound = (limit: unknown, inclusive: boolean | undefined, at: string, past: string) => {
    const n = typeof limit === 'bigint' || typeof limit === 'number' ? Number(limit) : Number.NaN;
    if (!Number.isFinite(n)) return undefined;
    if (issue.origin === 'number') return `must be ${inclusive === false ? past : at} ${String(limit)}`;
    if (issue.origin === 'string') return `must have ${at} ${counted(n, 'character')}`;
    if (issue.origin === 'array' || issue.origin === 'set') return `must have ${at} ${counted(n, 'item')}`;
    return undefined;
  };
  switch (issue.code) {
    case 'invalid_type':
      return issue.expected === undefined ? undefined : EXPECTED[issue.expected];
    case 'too_small':
      return bound(issue.minimum, issue.inclusive, 'at least', 'above');
    case 'too_big':
      return bound(issue.maximum, issue.inclusive, 'at most', 'below');
    case 'invalid_union': {
      const alternatives = issue.errors ?? [];
      // An alternative that took the value's kind and refused its content says the most ("each session
      // must be one of ..."); when none took it, what each alternative wants ("must be true or false, or
      // a list").
      const typeOnly = (a: (typeof alternatives)[number]) =>
        a.length === 1 && a[0]?.code === 'invalid_type' && (a[0].path?.length ?? 0) === 0;
      const deeper = alternatives.find((a) => a.length > 0 && !typeOnly(a))?.[0]?.message;
      if (deeper !== undefined) return deeper;
      const wants = alternatives.map((a) => a[0]?.message).filter((m): m is string => m !== undefined);
      return wants.length > 0
        ? wants.map((m, k) => (k === 0 ? m : m.replace(/^must be /, ''))).join(', or ')
        : undefined;
    }
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`;
    case 'invalid_value':
      return issue.values !== undefined && issue.values.length > 0
        ? `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`
        : undefined;
    default:
      return undefined;
  }
}
