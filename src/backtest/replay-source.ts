// The hot source the replay loop pushes candles, sessions and tickers into, as the Observables a strategy reads.
import { Observable, type Subscriber } from 'rxjs';

/**
 * The replay loop's hot source: a minimal multicast that hands each value straight to its subscribers.
 * rxjs' Subject wraps every `next` in an error-context closure and walks its observers with an iterator
 * (the ES5 build node loads), which costs measurably at millions of candles. Strategies see a plain
 * Observable either way; errors still reach them through their Subscriber.
 */
export class ReplaySource<T> {
  private subscribers: Subscriber<T>[] = [];
  readonly observable = new Observable<T>((s) => {
    this.subscribers.push(s);
    return () => {
      this.subscribers = this.subscribers.filter((x) => x !== s);
    };
  });
  get observed(): boolean {
    return this.subscribers.length > 0;
  }
  next(value: T): void {
    const subs = this.subscribers;
    for (let i = 0; i < subs.length; i++) (subs[i] as Subscriber<T>).next(value);
  }
}
