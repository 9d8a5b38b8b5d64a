// YAML -> ${ENV} interpolation and { file: path } secrets -> schema -> frozen config. Every problem is
// reported with the file, line and column, the field path and what to do.
import { readFileSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import {
  LineCounter,
  isMap,
  isPair,
  isScalar,
  isSeq,
  parseDocument,
  visit,
  type Document,
  type Node,
} from 'yaml';
import { z } from 'zod';
import { BotSchema, DeploymentSchema, SECRET_KEYS, type Deployment } from './schema.js';
import { paperDocument, type PaperSwitch } from './paper.js';
import { counted, didYouMean, plainIssue } from '../market/spelling.js';
import { SimMarginModelSchema } from '../sim/options.js';

export interface ConfigProblem {
  readonly file: string;
  readonly line: number;
  readonly col: number;
  /** Field path such as bots[0].risk.maxOrderNotional. */
  readonly path: string;
  readonly message: string;
}

/**
 * Text with every value that came from `${ENV}` or a `{ file: path }` replaced by where it came from; the
 * text of a problem at `path` names first the source of the value there (two sources may hold one value).
 */
export type Redact = (text: string, path?: string) => string;

/** A configuration that cannot be used; `problems` holds every one found. */
export class ConfigError extends Error {
  readonly problems: readonly ConfigProblem[];
  constructor(
    problems: readonly ConfigProblem[],
    /** The parsed file when only the schema refused it, so later checks can still report their problems. */
    readonly parsed?:
      | {
          readonly raw: unknown;
          readonly locate: LoadedConfig<unknown>['locate'];
          readonly redact: Redact;
        }
      | undefined,
    /** A value from the environment or a secret file is never echoed, whichever check quotes it. */
    redact: Redact = parsed?.redact ?? ((text) => text),
  ) {
    const shown = problems.map((p) => ({ ...p, message: redact(p.message, p.path) }));
    super(shown.map(formatProblem).join('\n'));
    this.problems = shown;
    this.name = 'ConfigError';
  }
}

export const formatProblem = (p: ConfigProblem): string =>
  `${p.file}:${p.line}:${p.col} ${p.path ? `${p.path}: ` : ''}${p.message}`;

export interface LoadedConfig<T> {
  readonly config: T;
  readonly file: string;
  /** Secret values found in the file (after interpolation), for log redaction. */
  readonly secrets: readonly string[];
  /** Line and column of the value at a path (or of the key `key` of the mapping there), for later checks. */
  readonly locate: (path: readonly (string | number)[], key?: string) => { line: number; col: number };
  /** For the messages of later checks: the values from `${ENV}` and secret files are not shown. */
  readonly redact: Redact;
}

/** A deployment file is a few kilobytes; anything this large is a mistake or an attack. */
export const MAX_CONFIG_BYTES = 1024 * 1024;
/** Aliases a file may expand; the YAML library's own limit, stated so that it is not silently lost. */
const MAX_ALIAS_COUNT = 100;
/** Fields that hold real credentials: a literal value there is refused (the simulator's account is not one). */
const CREDENTIAL_PATHS = [
  ...(['apiKey', 'apiSecret', 'passphrase'] as const).map((k) => ['venue', 'credentials', k]),
  ['dashboard', 'token'],
  ['notify', 'telegram', 'botToken'],
];
const ENV_NAMES: Record<string, string> = {
  apiKey: 'TRADEBOT_API_KEY',
  apiSecret: 'TRADEBOT_API_SECRET',
  passphrase: 'TRADEBOT_PASSPHRASE',
  token: 'TRADEBOT_DASHBOARD_TOKEN',
  botToken: 'TRADEBOT_TELEGRAM_TOKEN',
};

const formatPath = (path: readonly PropertyKey[]): string =>
  path.reduce<string>(
    (acc, k) => (typeof k === 'number' ? `${acc}[${k}]` : acc ? `${acc}.${String(k)}` : String(k)),
    '',
  );

/** `${VAR}` or `${VAR:-default}`: the only forms of a placeholder. */
const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;
/** Deeper than this, a file is not a deployment (a few levels are) but an attack on the reader's stack. */
export const MAX_CONFIG_DEPTH = 64;

/** Where a value of the file came from, when not from the file itself: `${ENV}` or a secret file. */
interface Sourced {
  /** Where in the file, as a problem's path says it (bots[0].params.fast). */
  readonly path: string;
  readonly value: string;
  /** "the value of ${TB_KEY}", "the content of ./secrets/key.txt". */
  readonly said: string;
}

/**
 * Replaces each sourced value in a text by where it came from: quoted (as a `got "..."` echoes it)
 * always, bare when it is long enough not to be a common word (the logger's redaction uses the same
 * length); the longest first, so a value that holds another is replaced whole, and of two sources of one
 * value the one at the problem's own path.
 */
const redactorOf =
  (sourced: readonly Sourced[]): Redact =>
  (text, path) => {
    let out = text;
    const order = [...sourced]
      .filter((s) => s.value !== '')
      .sort((a, b) => b.value.length - a.value.length || Number(b.path === path) - Number(a.path === path));
    for (const s of order) out = out.split(JSON.stringify(s.value)).join(s.said);
    for (const s of order) if (s.value.length >= 4) out = out.split(s.value).join(s.said);
    return out;
  };

/** How deep the document nests (a mapping or list in a mapping ...), counted without recursion. */
function depthOf(doc: Document): { depth: number; node: Node | undefined } {
  let deepest: { depth: number; node: Node | undefined } = { depth: 0, node: undefined };
  const stack: { node: unknown; depth: number }[] = [{ node: doc.contents, depth: 1 }];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const { node, depth } = top;
    if (!isMap(node) && !isSeq(node)) continue;
    if (depth > deepest.depth) deepest = { depth, node };
    if (depth > MAX_CONFIG_DEPTH) break;
    for (const item of node.items) {
      if (isPair(item))
        stack.push({ node: item.key, depth: depth + 1 }, { node: item.value, depth: depth + 1 });
      else stack.push({ node: item, depth: depth + 1 });
    }
  }
  return deepest;
}

/** Line and column of a node of the document (of the file's start when the node has no range). */
type At = (node: { range?: [number, number, number?] | null | undefined } | null | undefined) => {
  line: number;
  col: number;
};

const positionIn =
  (lc: LineCounter): At =>
  (node) => {
    const p = lc.linePos(node?.range?.[0] ?? 0);
    return { line: p.line, col: p.col };
  };

/** The file's text, or undefined with the problem: too large for a deployment file, or unreadable. */
function readText(file: string, problems: ConfigProblem[]): string | undefined {
  try {
    const size = statSync(file).size;
    if (size > MAX_CONFIG_BYTES) {
      problems.push({
        file,
        line: 1,
        col: 1,
        path: '',
        message: `the file is ${size} bytes, above the limit of ${MAX_CONFIG_BYTES}: a deployment file is a few kilobytes; check that this is the right file`,
      });
      return undefined;
    }
    return readFileSync(file, 'utf8');
  } catch (e) {
    problems.push({
      file,
      line: 1,
      col: 1,
      path: '',
      message: `cannot read the file: ${(e as Error).message}`,
    });
    return undefined;
  }
}

/** The YAML document of the text, or undefined with the problem: its first syntax error, or too deep a nesting. */
function parseYaml(
  file: string,
  text: string,
  problems: ConfigProblem[],
): { doc: Document; lc: LineCounter } | undefined {
  const lc = new LineCounter();
  const tooDeep = `${basename(file)} nests values more than ${MAX_CONFIG_DEPTH} levels deep; a deployment file needs a handful: check that this is the right file`;
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  // One syntax error makes the parser stumble over everything after it: the first is the one to fix.
  const [first] = doc.errors;
  if (first !== undefined) {
    const pos = lc.linePos(first.pos[0]);
    const line = text.split('\n')[pos.line - 1] ?? '';
    // An unquoted ${VAR} inside { ... } reads as a nested mapping: the README's own example once did this.
    const hint = /\{[^}]*:\s*\$\{/.test(line)
      ? '; a ${VAR} inside { ... } must be quoted, e.g. apiKey: "${TRADEBOT_API_KEY}", or written on its own line'
      : '';
    const more =
      doc.errors.length > 1
        ? ` (${counted(doc.errors.length - 1, 'more error')} after it ${doc.errors.length - 1 === 1 ? 'follows' : 'follow'} from this one)`
        : '';
    problems.push({
      file,
      line: pos.line,
      col: pos.col,
      path: '',
      // The reader ran out of stack on a deep nesting ("Maximum call stack size exceeded"): say what it means.
      message:
        first.code === 'RESOURCE_EXHAUSTION'
          ? tooDeep
          : `YAML syntax: ${first.message.split('\n')[0]}${hint}${more}`,
    });
    return undefined;
  }
  // Every later step (interpolation, toJS, the schema, freezing) walks the tree by recursion.
  const deepest = depthOf(doc);
  if (deepest.depth > MAX_CONFIG_DEPTH) {
    problems.push({ file, ...positionIn(lc)(deepest.node), path: '', message: tooDeep });
    return undefined;
  }
  return { doc, lc };
}

/** A document being read: where its problems go, and the values that came from elsewhere than the file. */
interface Reading {
  readonly file: string;
  readonly doc: Document;
  readonly at: At;
  /** Literal credentials and malformed `${...}` (see readDocument). */
  readonly deferred: ConfigProblem[];
  /** `${VARS}` without a value and secret files that cannot be read (see readDocument). */
  readonly missing: ConfigProblem[];
  readonly sourced: Sourced[];
}

/**
 * Credentials come from the environment or a file, never from the file itself (the README's promise);
 * checked before interpolation, when a literal is still told apart from ${VAR}. The value is not echoed.
 */
function refuseLiteralCredentials({ file, doc, at, deferred }: Reading): void {
  for (const path of CREDENTIAL_PATHS) {
    const node = doc.getIn(path, true);
    if (!isScalar(node)) continue;
    // A malformed ${... is reported by interpolateEnv, as what it is.
    if (typeof node.value === 'string' && node.value.includes('${')) continue;
    const key = String(path[path.length - 1]);
    deferred.push({
      file,
      ...at(node),
      path: path.join('.'),
      message: `a secret written in the file is refused: use \${${ENV_NAMES[key] ?? 'ENV_VAR'}} (from the environment) or { file: ./secrets/${key}.txt }`,
    });
  }
}

/** ${VAR} and ${VAR:-default} in any string; a ${ of any other form is refused, never sent as it is. */
function interpolateEnv(
  { file, doc, at, deferred, missing, sourced }: Reading,
  env: NodeJS.ProcessEnv,
): void {
  visit(doc, {
    Scalar(_key, node, ancestors) {
      if (typeof node.value !== 'string' || !node.value.includes('${')) return;
      const template = node.value;
      const where = formatPath(pathOf(ancestors, node));
      const rest = template.replace(PLACEHOLDER, '');
      if (rest.includes('${')) {
        const open = /\$\{([A-Za-z_][A-Za-z0-9_]*)?/.exec(rest.slice(rest.indexOf('${')));
        const name = open?.[1];
        deferred.push({
          file,
          ...at(node),
          path: where,
          message:
            name !== undefined
              ? `\${${name} is not closed: write \${${name}} (or \${${name}:-default}), in quotes`
              : 'a ${ that starts no variable: write ${NAME} with NAME of letters, digits and _ (e.g. "${TRADEBOT_API_KEY}"), or remove the ${',
        });
        return;
      }
      const names: string[] = [];
      const value = template.replace(PLACEHOLDER, (_m, name: string, def: string | undefined) => {
        names.push(name);
        const v = env[name];
        if (v !== undefined && v !== '') {
          sourced.push({ path: where, value: v, said: `the value of \${${name}}` });
          return v;
        }
        if (def !== undefined) return def;
        missing.push({
          file,
          ...at(node),
          path: '',
          message: `environment variable ${name} is not set; export it or use \${${name}:-default}`,
        });
        return '';
      });
      node.value = value;
      const whole = rest === '' && names.length === 1;
      sourced.push({
        path: where,
        value,
        said: whole ? `the value of \${${names[0] ?? ''}}` : `the value of ${JSON.stringify(template)}`,
      });
    },
  });
}

/** { file: path } becomes the trimmed content of that file (relative to the YAML file). */
function readSecretFiles({ file, doc, at, missing, sourced }: Reading): void {
  visit(doc, {
    Pair(_key, pair, ancestors) {
      const v = pair.value;
      if (!isMap(v) || v.items.length !== 1) return;
      const only = v.items[0];
      if (!isPair(only) || !isScalar(only.key) || only.key.value !== 'file' || !isScalar(only.value)) return;
      const ref = resolve(dirname(file), String(only.value.value));
      try {
        const content = readFileSync(ref, 'utf8').trim();
        pair.value = doc.createNode(content);
        sourced.push({
          path: formatPath([...pathOf(ancestors, pair), isScalar(pair.key) ? String(pair.key.value) : '']),
          value: content,
          said: `the content of ${String(only.value.value)}`,
        });
      } catch (e) {
        missing.push({
          file,
          ...at(only.value),
          path: '',
          message: `cannot read the secret file ${ref}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
        });
      }
    },
  });
}

/**
 * Reads, interpolates and parses a YAML file into a document, collecting problems: the file's text, its YAML,
 * then the credentials written in it, the `${ENV}` placeholders and the `{ file: path }` secrets.
 */
function readDocument(
  file: string,
  env: NodeJS.ProcessEnv,
  problems: ConfigProblem[],
  /**
   * Literal credentials and malformed `${...}`: reported together with the schema's problems (they do not
   * stop parsing).
   */
  deferred: ConfigProblem[] = problems,
  /** `${VARS}` without a value and secret files that cannot be read (a journal reader ignores them). */
  missing: ConfigProblem[] = problems,
  prepare?: DocumentStep,
): { doc: Document; lc: LineCounter; sourced: Sourced[] } | undefined {
  const text = readText(file, problems);
  if (text === undefined) return undefined;
  const parsed = parseYaml(file, text, problems);
  if (parsed === undefined) return undefined;
  const { doc, lc } = parsed;
  const reading: Reading = { file, doc, at: positionIn(lc), deferred, missing, sourced: [] };
  const refused = prepare?.step(doc);
  if (refused !== undefined) {
    problems.push({
      file,
      ...locate(doc, lc, prepare?.at ?? []),
      path: formatPath(prepare?.at ?? []),
      message: refused,
    });
    return undefined;
  }
  refuseLiteralCredentials(reading);
  interpolateEnv(reading, env);
  readSecretFiles(reading);
  return { doc, lc, sourced: reading.sourced };
}

/** The path of a node from the ancestors `visit` gives (the document, then pairs, maps and lists). */
function pathOf(ancestors: readonly unknown[], node: unknown): (string | number)[] {
  const path: (string | number)[] = [];
  const chain = [...ancestors, node];
  for (let i = 1; i < chain.length; i++) {
    const parent = chain[i - 1];
    const child = chain[i];
    if (isPair(parent) && child === parent.value && isScalar(parent.key)) path.push(String(parent.key.value));
    else if (isSeq(parent)) path.push(parent.items.indexOf(child as never));
  }
  return path;
}

/** Line and column of the node at a path (or of its closest ancestor present in the file). */
function locate(
  doc: Document,
  lc: LineCounter,
  path: readonly PropertyKey[],
  key?: string,
): { line: number; col: number } {
  for (let n = path.length; n >= 0; n--) {
    const node = doc.getIn(path.slice(0, n) as (string | number)[], true) as Node | undefined;
    if (node && typeof node === 'object') {
      let range = node.range;
      if (key !== undefined && n === path.length && isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && p.key.value === key);
        if (pair && isScalar(pair.key)) range = pair.key.range;
      }
      const p = lc.linePos(range?.[0] ?? 0);
      return { line: p.line, col: p.col };
    }
  }
  return { line: 1, col: 1 };
}

function collectSecrets(value: unknown, out: string[]): void {
  if (Array.isArray(value)) for (const v of value) collectSecrets(v, out);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if ((SECRET_KEYS as readonly string[]).includes(k) && typeof v === 'string' && v.length >= 4)
        out.push(v);
      else collectSecrets(v, out);
    }
  }
}

/** Loads any YAML file against a schema, with positions for every problem. */
export function loadYaml<S extends z.ZodType>(
  schema: S,
  file: string,
  env: NodeJS.ProcessEnv = process.env,
  /** Read the file without its secrets: unset `${VARS}`, unreadable secret files and literals are let be. */
  withoutSecrets = false,
  /** A change made to the document before its placeholders and secrets are read (`run --paper`). */
  prepare?: DocumentStep,
): LoadedConfig<z.output<S>> {
  const problems: ConfigProblem[] = [];
  const deferred: ConfigProblem[] = [];
  const read = withoutSecrets
    ? readDocument(file, env, problems, [], [], prepare)
    : readDocument(file, env, problems, deferred, problems, prepare);
  const redact = redactorOf(read?.sourced ?? []);
  if (!read || problems.length > 0) throw new ConfigError([...deferred, ...problems], undefined, redact);
  problems.push(...deferred);
  const { doc, lc } = read;
  const located: LoadedConfig<unknown>['locate'] = (path, key) => locate(doc, lc, path, key);
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) as unknown;
  } catch (e) {
    // The yaml library refuses an alias bomb ("billion laughs") while expanding it.
    throw new ConfigError(
      [
        {
          file,
          line: 1,
          col: 1,
          path: '',
          message: `YAML resource limit: ${(e as Error).message}; a deployment file needs no more than ${MAX_ALIAS_COUNT} alias expansions`,
        },
      ],
      undefined,
      redact,
    );
  }
  const parsed = schema.safeParse(raw ?? {}, { error: plainIssue });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const unknownKeys = issue.code === 'unrecognized_keys' ? issue.keys : undefined;
      if (unknownKeys) {
        for (const k of unknownKeys) {
          problems.push({
            file,
            ...locate(doc, lc, issue.path, k),
            path: formatPath([...issue.path, k]),
            message: `unknown key ${k}${didYouMean(k, keysAt(schema, issue.path))}; remove it or check its spelling (see \`tradebot schema\`)`,
          });
        }
        continue;
      }
      const got = issue.path.length > 0 ? doc.getIn(issue.path as (string | number)[]) : undefined;
      // A secret is never echoed, not even a malformed one.
      const secret = (SECRET_KEYS as readonly PropertyKey[]).includes(
        issue.path[issue.path.length - 1] ?? '',
      );
      const shown =
        got === undefined || typeof got === 'object' || secret ? '' : ` — got ${JSON.stringify(got)}`;
      problems.push({
        file,
        ...locate(doc, lc, issue.path),
        path: formatPath(issue.path),
        message: `${issue.message}${shown}${
          issue.code === 'invalid_value' && typeof got === 'string' && !secret
            ? didYouMean(got, issue.values.map(String))
            : ''
        }`,
      });
    }
    throw new ConfigError(problems, { raw, locate: located, redact });
  }
  if (problems.length > 0) throw new ConfigError(problems, { raw, locate: located, redact });
  const secrets: string[] = [];
  collectSecrets(raw, secrets);
  return { config: deepFreeze(parsed.data), file, secrets, locate: located, redact };
}

/**
 * What a journal reader takes from a deployment file: `store.path` and each bot's name, capital and quote
 * coin. Read without the deployment's secrets (`tradebot status` in a shell, or on a machine, that has none of
 * them); the rest of the file is not checked here.
 */
const JournalSettingsSchema = z.looseObject({
  store: DeploymentSchema.shape.store,
  bots: z
    .array(BotSchema.pick({ name: true, capital: true, quoteCoin: true, category: true }).loose())
    .default([]),
  // A MARGIN bot's loans accrue by the venue's margin model (docs/margin.md).
  venue: z.looseObject({ margin: SimMarginModelSchema.optional() }).optional(),
});
export type JournalSettings = z.output<typeof JournalSettingsSchema>;

export const loadJournalSettings = (file: string, env: NodeJS.ProcessEnv = process.env): JournalSettings =>
  loadYaml(JournalSettingsSchema, file, env, true).config;

/** A change to a YAML document before it is read, or a problem said at `at` (the document is then refused). */
export interface DocumentStep {
  readonly step: (doc: Document) => string | undefined;
  readonly at: readonly (string | number)[];
}

/** Loads and validates a deployment file; with `paper`, read as a paper run of it (`run --paper`). */
export function loadConfig(
  file: string,
  env: NodeJS.ProcessEnv = process.env,
  paper?: PaperSwitch,
): LoadedConfig<Deployment> {
  const prepare =
    paper === undefined
      ? undefined
      : { step: (d: Document) => paperDocument(d, paper), at: ['venue', 'kind'] };
  return loadYaml(DeploymentSchema, file, env, false, prepare);
}

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

/**
 * The keys the schema allows in the object at `path` (through arrays, records, optionals, defaults and
 * pipes), for "did you mean" after an unknown key; none where the path leads elsewhere (a union).
 */
function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  type Def = {
    type: string;
    innerType?: z.ZodType;
    in?: z.ZodType;
    shape?: Record<string, z.ZodType>;
    element?: z.ZodType;
    valueType?: z.ZodType;
  };
  const defOf = (x: z.ZodType | undefined): Def | undefined =>
    (x as unknown as { _zod?: { def?: Def } } | undefined)?._zod?.def;
  const WRAPPERS = ['optional', 'default', 'prefault', 'nullable', 'readonly', 'catch', 'nonoptional'];
  const unwrap = (x: z.ZodType | undefined): z.ZodType | undefined => {
    for (let d = defOf(x); d !== undefined; d = defOf(x)) {
      if (WRAPPERS.includes(d.type)) x = d.innerType;
      else if (d.type === 'pipe') x = d.in;
      else break;
    }
    return x;
  };
  let at: z.ZodType | undefined = schema;
  for (const k of path) {
    const d = defOf(unwrap(at));
    if (d?.type === 'object') at = d.shape?.[String(k)];
    else if (d?.type === 'array') at = d.element;
    else if (d?.type === 'record') at = d.valueType;
    else return [];
  }
  const d = defOf(unwrap(at));
  return d?.type === 'object' ? Object.keys(d.shape ?? {}) : [];
}
