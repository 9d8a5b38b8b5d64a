// Group commit: the writes that precede the sends of many bots' orders, decided at one candle boundary,
// share one transaction of the journal they share (one fsync under synchronous=FULL) instead of one each.
// Each write still runs in its own savepoint, and its caller hears of it only once the transaction that
// holds it is committed: an order is sent after that, never before. With one writer (one bot) the commit
// is made at once, synchronously, as before: a lone order waits for nothing.

/** Runs a function in a transaction of the store (a savepoint when one is open). */
export type Transact = (fn: () => unknown) => unknown;

interface Waiting {
  readonly fn: () => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (reason: unknown) => void;
}

/** Counts of a group commit (what the tests and the bench read). */
export interface GroupCommitStats {
  /** Transactions committed for group-commit writes. */
  readonly commits: number;
  /** Writes committed in them. */
  readonly writes: number;
  /** The most writes one transaction took. */
  readonly largest: number;
}

export class GroupCommit {
  private waiting: Waiting[] = [];
  private scheduled = false;
  private writers = 0;
  private commits = 0;
  private writes = 0;
  private largest = 0;

  constructor(private readonly transact: Transact) {}

  /** One more writer shares this journal's group commits (a bot's pipeline). Answers its leave. */
  join(): () => void {
    this.writers++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.writers--;
    };
  }

  /**
   * Runs `fn` (synchronous writes) in the next group commit. With one writer or fewer, committed at once
   * and answered synchronously; otherwise in the transaction made at the end of this turn of the event
   * loop (setImmediate) for every write asked for until then, answered by a promise settled once it
   * committed. A write that throws fails alone (its savepoint is rolled back); a commit that fails fails
   * every write it held.
   */
  run<T>(fn: () => T): T | Promise<T> {
    if (this.writers <= 1 && this.waiting.length === 0) {
      const out = this.transact(fn) as T;
      this.counted(1);
      return out;
    }
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.flush);
      }
    });
  }

  /** Commits what waits now (also what a close does first). */
  readonly flush = (): void => {
    this.scheduled = false;
    const batch = this.waiting;
    if (batch.length === 0) return;
    this.waiting = [];
    const outcomes: { ok: boolean; value: unknown }[] = [];
    try {
      this.transact(() => {
        for (const w of batch) {
          try {
            outcomes.push({ ok: true, value: this.transact(w.fn) });
          } catch (e) {
            outcomes.push({ ok: false, value: e });
          }
        }
      });
    } catch (e) {
      for (const w of batch) w.reject(e);
      return;
    }
    this.counted(batch.length);
    batch.forEach((w, i) => {
      const o = outcomes[i] as { ok: boolean; value: unknown };
      if (o.ok) w.resolve(o.value);
      else w.reject(o.value);
    });
  };

  get stats(): GroupCommitStats {
    return { commits: this.commits, writes: this.writes, largest: this.largest };
  }

  private counted(writes: number): void {
    this.commits++;
    this.writes += writes;
    if (writes > this.largest) this.largest = writes;
  }
}
