// The order bots start in: bots that share a symbol (directly or through another bot) form a chain and start
// one after another in the file's order, since their reconciliations read the same account fills of that
// symbol; chains share nothing and start side by side, a few at a time (every request still passes the
// venue's limiter). 200 bots on 50 symbols started one by one took 83 s.

/** How many chains start at once. */
export const START_CONCURRENCY = 8;

/**
 * The bots' indexes grouped in chains: bots linked by a shared symbol in one chain, each chain in the file's
 * order, the chains ordered by their first bot.
 */
export function symbolChains(bots: readonly { readonly symbols: readonly string[] }[]): number[][] {
  const parent = bots.map((_, i) => i);
  const root = (i: number): number => {
    let r = i;
    while (parent[r] !== r) r = parent[r] as number;
    parent[i] = r;
    return r;
  };
  const firstBotOf = new Map<string, number>();
  bots.forEach((b, i) => {
    for (const s of b.symbols) {
      const other = firstBotOf.get(s);
      if (other === undefined) firstBotOf.set(s, i);
      else {
        const [a, c] = [root(other), root(i)];
        if (a !== c) parent[Math.max(a, c)] = Math.min(a, c);
      }
    }
  });
  const chains = new Map<number, number[]>();
  bots.forEach((_, i) => {
    const r = root(i);
    const chain = chains.get(r) ?? [];
    chain.push(i);
    chains.set(r, chain);
  });
  return [...chains.values()].sort((x, y) => (x[0] as number) - (y[0] as number));
}

/**
 * Runs `start` for every bot, the bots of a chain in turn and up to `concurrency` chains at once. After a
 * failure no further bot starts; the ones under way finish, then the first failure is thrown.
 */
export async function startInChains(
  chains: readonly (readonly number[])[],
  concurrency: number,
  start: (index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < chains.length) {
      const chain = chains[next++] as readonly number[];
      for (const i of chain) {
        if (failure !== undefined) return;
        try {
          await start(i);
        } catch (error) {
          failure ??= { error };
          return;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, chains.length)) }, worker));
  if (failure !== undefined) throw failure.error;
}
