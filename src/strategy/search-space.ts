// The search space of a hyperparameter search (`tradebot hyperopt`): one dimension per parameter, exit or
// protection key (`fast`, `exits.stopLoss`, `exits.minimalRoi.60`, `protections.cooldownAfterStop`), written
// `int(5,50)`, `real(0.01,0.1)`, `log(0.001,0.1)` or `cat(a,b,c)`. A strategy declares its default space in
// `searchSpace`; the command line or a YAML file overrides it dimension by dimension.

/** One dimension: whole numbers, reals (uniform), reals uniform in their logarithm, or a list of choices. */
export type SpaceDimension =
  | { readonly kind: 'int'; readonly low: number; readonly high: number }
  | { readonly kind: 'real'; readonly low: number; readonly high: number }
  | { readonly kind: 'log'; readonly low: number; readonly high: number }
  | { readonly kind: 'cat'; readonly choices: readonly string[] };

/** Dimensions by key, in a stable order (the sampler's draws follow it). */
export type SearchSpace = Readonly<Record<string, SpaceDimension>>;

/** A space as a strategy or a YAML file writes it: key -> `int(5,50)` ... */
export type SearchSpaceInput = Readonly<Record<string, string>>;

/** A space that cannot be searched; the message names the dimension and the fix (the CLI exits 2). */
export class SearchSpaceError extends Error {
  override readonly name = 'SearchSpaceError';
}

const EXAMPLES = 'int(5,50), real(0.01,0.1), log(0.001,0.1) or cat(a,b,c)';
const KEY_RE = /^[A-Za-z_]\w*(?:\.\w+)*$/;
const NUMBER_RE = /^-?\d+(?:\.\d+)?(?:e-?\d+)?$/i;

/**
 * One dimension from its text, e.g. `parseDimension('fast', 'int(5,50)')`.
 * @throws SearchSpaceError naming `key` and the form it must take
 */
export function parseDimension(key: string, text: string): SpaceDimension {
  if (!KEY_RE.test(key))
    throw new SearchSpaceError(
      `search space key ${JSON.stringify(key)} must be a parameter, exits.NAME or protections.NAME, e.g. fast=int(5,50)`,
    );
  const m = /^\s*(int|real|log|cat)\s*\((.*)\)\s*$/.exec(text);
  if (m === null)
    throw new SearchSpaceError(`${key}=${text}: a dimension is ${EXAMPLES}, e.g. ${key}=int(5,50)`);
  const kind = m[1] as SpaceDimension['kind'];
  const args = (m[2] as string).split(',').map((s) => s.trim());
  if (kind === 'cat') {
    const choices = args.filter((a) => a !== '');
    if (choices.length < 2)
      throw new SearchSpaceError(`${key}=${text}: cat(...) needs two choices or more, e.g. ${key}=cat(a,b)`);
    if (new Set(choices).size !== choices.length)
      throw new SearchSpaceError(`${key}=${text}: a choice is listed twice; give each choice once`);
    return { kind, choices };
  }
  const example = kind === 'int' ? 'int(5,50)' : kind === 'real' ? 'real(0.01,0.1)' : 'log(0.001,0.1)';
  if (args.length !== 2 || !args.every((a) => NUMBER_RE.test(a)))
    throw new SearchSpaceError(
      `${key}=${text}: ${kind} takes two numbers, low and high, e.g. ${key}=${example}`,
    );
  const [low, high] = args.map(Number) as [number, number];
  if (!(low < high))
    throw new SearchSpaceError(
      `${key}=${text}: low must be below high; write ${key}=${kind}(${args[1]},${args[0]})`,
    );
  if (kind === 'int' && !(Number.isInteger(low) && Number.isInteger(high)))
    throw new SearchSpaceError(`${key}=${text}: int bounds are whole numbers, e.g. ${key}=int(5,50)`);
  if (kind === 'log' && !(low > 0))
    throw new SearchSpaceError(
      `${key}=${text}: a log dimension is above 0 (its logarithm is searched); raise low, e.g. ${key}=log(0.001,0.1)`,
    );
  return { kind, low, high };
}

/** Parses a declared or YAML space (`{ fast: 'int(5,50)' }`), every dimension checked. */
export function parseSearchSpace(input: unknown, where: string): SearchSpace {
  if (input === null || typeof input !== 'object' || Array.isArray(input))
    throw new SearchSpaceError(
      `${where}: a search space is a map of key to dimension, e.g. { fast: 'int(5,50)', 'exits.stopLoss': 'real(0.01,0.1)' }`,
    );
  const out: Record<string, SpaceDimension> = {};
  for (const [k, v] of Object.entries(input)) {
    if (typeof v !== 'string')
      throw new SearchSpaceError(`${where}: ${k} must be text such as 'int(5,50)' (${EXAMPLES})`);
    out[k] = parseDimension(k, v);
  }
  return out;
}

/** The groups `--space` may name to keep part of the strategy's declared space (freqtrade's `--spaces`). */
export const SPACE_GROUPS = ['params', 'exits', 'protections', 'all'] as const;
export type SpaceGroup = (typeof SPACE_GROUPS)[number];

const groupOf = (key: string): SpaceGroup =>
  key.startsWith('exits.') ? 'exits' : key.startsWith('protections.') ? 'protections' : 'params';

/**
 * The space to search: the strategy's declared one, kept to the named groups (all of it when none is named),
 * then each `key=dim(...)` of the command line added or put in place of the declared one.
 *
 * @example spaceFromFlag(declared, 'exits fast=int(5,30)') // the declared exits, and fast from 5 to 30
 */
export function spaceFromFlag(declared: SearchSpace, flag: string | undefined): SearchSpace {
  const parts = (flag ?? '').trim().split(/\s+/).filter(Boolean);
  const groups = parts.filter((p) => !p.includes('='));
  for (const g of groups)
    if (!(SPACE_GROUPS as readonly string[]).includes(g))
      throw new SearchSpaceError(
        `--space ${g}: name a group (${SPACE_GROUPS.join(', ')}) or a dimension key=${EXAMPLES.split(', ')[0]}`,
      );
  const keep = groups.length === 0 || groups.includes('all') ? undefined : new Set(groups);
  const out: Record<string, SpaceDimension> = {};
  for (const [k, d] of Object.entries(declared)) if (keep === undefined || keep.has(groupOf(k))) out[k] = d;
  const seen = new Set<string>();
  for (const p of parts.filter((x) => x.includes('='))) {
    const i = p.indexOf('=');
    const key = p.slice(0, i);
    if (seen.has(key)) throw new SearchSpaceError(`--space: ${key} appears twice; give it once`);
    seen.add(key);
    out[key] = parseDimension(key, p.slice(i + 1));
  }
  if (Object.keys(out).length === 0)
    throw new SearchSpaceError(
      "the search space is empty: declare searchSpace in the strategy or pass e.g. --space 'fast=int(5,50) exits.stopLoss=real(0.01,0.1)'",
    );
  return out;
}

/** A dimension as text, the form it is parsed from. */
export const formatDimension = (d: SpaceDimension): string =>
  d.kind === 'cat' ? `cat(${d.choices.join(',')})` : `${d.kind}(${d.low},${d.high})`;
