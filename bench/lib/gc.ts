// A full collection between timed runs, so one step's garbage (the CSV written before the first run,
// a previous mode's decoding) is not collected on the next run's clock. A synchronous major collection,
// not the bare gc(): that one is V8's last-resort collection, which also throws the compiled code away,
// so every timed run would re-learn its code (about 250 ms of a 450 ms run here) and none would be warm.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as (o: { type: 'major'; execution: 'sync' }) => void;

/** Collects the whole heap now, keeping compiled code. */
export function collectGarbage(): void {
  collect({ type: 'major', execution: 'sync' });
}
