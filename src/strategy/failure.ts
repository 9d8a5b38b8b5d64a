// Where a strategy failed, said so its author can go there: the hook, the place in the strategy's own file
// (file:line:col, source-mapped when the process maps sources: the CLI turns that on), the symbol and the
// time of the candle it was deciding. A throw that reads a field of null gets the likely cause with it.
import { dirname, isAbsolute, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { noop, type Observer, type Subscriber } from 'rxjs';

/** A place in a source file, 1-based as editors count. */
export interface SourcePlace {
  readonly file: string;
  readonly line: number;
  readonly col: number;
}

/** What a failed hook was doing: the symbol and the time (a candle's open time, else the clock's). */
export interface FailureScene {
  readonly symbol?: string | undefined;
  readonly time?: number | undefined;
  /** Whether `time` is the open time of the candle being decided. */
  readonly candle?: boolean | undefined;
}

// `    at fn (file:///x/y.ts:3:7)`, `    at file:///x/y.ts:3:7`, `    at /x/y.js:3:7`.
const FRAME_RE = /(?:\(|at )((?:file:\/\/)?[^\s()]+?):(\d+):(\d+)\)?\s*$/;
const here = dirname(fileURLToPath(import.meta.url));
/** This package's strategy modules, built or source-mapped back: never the strategy author's place. */
const OWN_RE = /[\\/]src[\\/]strategy[\\/](?:contract|failure)\.[jt]s$/;

function framePlace(frame: string): SourcePlace | undefined {
  const m = FRAME_RE.exec(frame);
  if (m?.[1] === undefined) return undefined;
  let file = m[1];
  if (file.startsWith('file://')) {
    try {
      file = fileURLToPath(file);
    } catch {
      return undefined;
    }
  }
  if (!isAbsolute(file)) return undefined; // node:internal, native, eval
  return { file, line: Number(m[2]), col: Number(m[3]) };
}

/** The places of a stack's frames, top first. */
export const stackPlaces = (stack: string | undefined): SourcePlace[] =>
  (stack ?? '')
    .split('\n')
    .slice(1)
    .map(framePlace)
    .filter((p): p is SourcePlace => p !== undefined);

/**
 * The file that called into this package's strategy module (`defineStrategy(...)` in a strategy's module):
 * read from a stack taken there.
 */
export function callerFile(stack: string | undefined): string | undefined {
  return stackPlaces(stack).find((p) => !p.file.startsWith(here + sep) && !OWN_RE.test(p.file))?.file;
}

/** The first frame of an error's stack inside `file` (the strategy's own), else undefined. */
export function placeIn(err: unknown, file: string | undefined): SourcePlace | undefined {
  if (file === undefined || !(err instanceof Error)) return undefined;
  return stackPlaces(err.stack).find((p) => p.file === file);
}

/** A file as a message shows it: relative to the working directory when inside it. */
function shown(file: string): string {
  const rel = relative(process.cwd(), file);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
}

/** What a TypeError on null most often means in a strategy, said after its message. */
export function failureHint(cause: unknown): string {
  return cause instanceof TypeError && /of null\b/.test(cause.message)
    ? ': an indicator answers null until it is stable: check for null before reading it (if (bands === null) return;)'
    : '';
}

/** Wraps a callback error so the log says which strategy, hook, place, symbol and candle failed. */
export class StrategyRuntimeError extends Error {
  override readonly name = 'StrategyRuntimeError';
  /** Where in the strategy's own file it failed, when its stack passes there. */
  readonly place: SourcePlace | undefined;
  constructor(
    readonly strategy: string,
    readonly hook: string,
    cause: unknown,
    scene: FailureScene & { readonly file?: string | undefined } = {},
  ) {
    const place = placeIn(cause, scene.file);
    const at = place === undefined ? '' : ` at ${shown(place.file)}:${place.line}:${place.col}`;
    const time =
      scene.time === undefined || !Number.isFinite(scene.time)
        ? undefined
        : `${scene.candle === true ? 'candle ' : ''}${new Date(scene.time).toISOString()}`;
    const what = [scene.symbol, time].filter((x) => x !== undefined).join(', ');
    const why = cause instanceof Error ? cause.message : String(cause);
    super(
      `strategy "${strategy}" failed in ${hook}${at}${what === '' ? '' : ` (${what})`}: ${why}${failureHint(cause)}`,
      { cause },
    );
    this.place = place;
  }

  /** The cause's stack, for `--verbose`. */
  get causeStack(): string | undefined {
    return this.cause instanceof Error ? this.cause.stack : undefined;
  }
}

/**
 * Each input feeds one hook; a throw in it ends the run with a StrategyRuntimeError naming the hook, the
 * place in the strategy's file, the symbol and the time. A synchronous source keeps pushing until its
 * subscribe() returns: nothing reaches a hook after an error.
 */
export function hookFeeder(
  who: { readonly name: string; readonly file: string | undefined },
  subscriber: Subscriber<unknown>,
) {
  return <V>(
    hook: (v: V) => readonly [string, FailureScene],
    call: (v: V) => void,
    complete: () => void = noop,
  ): Partial<Observer<V>> => ({
    next: (v: V) => {
      if (subscriber.closed) return;
      try {
        call(v);
      } catch (err) {
        const [name, scene] = hook(v);
        subscriber.error(new StrategyRuntimeError(who.name, name, err, { ...scene, file: who.file }));
      }
    },
    error: (err: unknown) => subscriber.error(err),
    complete,
  });
}
