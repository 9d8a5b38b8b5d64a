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
