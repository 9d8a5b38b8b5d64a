// YAML -> ${ENV} interpolation and { file: path } secrets -> schema -> frozen config. Every problem is
// reported with the file, line and column, the field path and what to do.
import { readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { LineCounter, isMap, isPair, isScalar, parseDocument, visit, type Document, type Node } from 'yaml';
import { z } from 'zod';
import { BotSchema, DeploymentSchema, SECRET_KEYS, type Deployment } from './schema.js';
import { counted, didYouMean, plainIssue } from '../market/spelling.js';

export interface ConfigProblem {
  readonly file: string;
  readonly line: number;
  readonly col: number;
  /** Field path such as bots[0].risk.maxOrderNotional. */
  readonly path: string;
  readonly message: string;
}

/** A configuration that cannot be used; `problems` holds every one found. */
export class ConfigError extends Error {
  constructor(
    readonly problems: readonly ConfigProblem[],
    /** The parsed file when only the schema refused it, so later checks can still report their problems. */
    readonly parsed?: { readonly raw: unknown; readonly locate: LoadedConfig<unknown>['locate'] } | undefined,
  ) {
    super(problems.map(formatProblem).join('\n'));
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

/** Reads, interpolates and parses a YAML file into a document, collecting problems. */
function readDocument(
  file: string,
  env: NodeJS.ProcessEnv,
  problems: ConfigProblem[],
  /** Literal credentials: reported together with the schema's problems (they do not stop parsing). */
  literalSecrets: ConfigProblem[] = problems,
  /** `${VARS}` without a value and secret files that cannot be read (a journal reader ignores them). */
  missing: ConfigProblem[] = problems,
): { doc: Document; lc: LineCounter } | undefined {
  let text: string;
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
    text = readFileSync(file, 'utf8');
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
  const lc = new LineCounter();
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
      message: `YAML syntax: ${first.message.split('\n')[0]}${hint}${more}`,
    });
  }
  if (doc.errors.length > 0) return undefined;
  const at = (node: { range?: [number, number, number?] | null | undefined } | null | undefined) => {
    const p = lc.linePos(node?.range?.[0] ?? 0);
    return { line: p.line, col: p.col };
  };
  // Credentials come from the environment or a file, never from the file itself (the README's promise);
  // checked before interpolation, when a literal is still told apart from ${VAR}. The value is not echoed.
  for (const path of CREDENTIAL_PATHS) {
    const node = doc.getIn(path, true);
    if (!isScalar(node)) continue;
    if (typeof node.value === 'string' && /\$\{[A-Za-z_]/.test(node.value)) continue;
    const key = String(path[path.length - 1]);
    literalSecrets.push({
      file,
      ...at(node),
      path: path.join('.'),
      message: `a secret written in the file is refused: use \${${ENV_NAMES[key] ?? 'ENV_VAR'}} (from the environment) or { file: ./secrets/${key}.txt }`,
    });
  }
  // ${VAR} and ${VAR:-default} in any string.
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value !== 'string' || !node.value.includes('${')) return;
      node.value = node.value.replace(
        /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
        (_m, name: string, def: string | undefined) => {
          const v = env[name];
          if (v !== undefined && v !== '') return v;
          if (def !== undefined) return def;
          missing.push({
            file,
            ...at(node),
            path: '',
            message: `environment variable ${name} is not set; export it or use \${${name}:-default}`,
          });
          return '';
        },
      );
    },
  });
  // { file: path } becomes the trimmed content of that file (relative to the YAML file).
  visit(doc, {
    Pair(_key, pair) {
      const v = pair.value;
      if (!isMap(v) || v.items.length !== 1) return;
      const only = v.items[0];
      if (!isPair(only) || !isScalar(only.key) || only.key.value !== 'file' || !isScalar(only.value)) return;
      const ref = resolve(dirname(file), String(only.value.value));
      try {
        pair.value = doc.createNode(readFileSync(ref, 'utf8').trim());
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
  return { doc, lc };
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
): LoadedConfig<z.output<S>> {
  const problems: ConfigProblem[] = [];
  const literalSecrets: ConfigProblem[] = [];
  const read = withoutSecrets
    ? readDocument(file, env, problems, [], [])
    : readDocument(file, env, problems, literalSecrets);
  if (!read || problems.length > 0) throw new ConfigError([...literalSecrets, ...problems]);
  problems.push(...literalSecrets);
  const { doc, lc } = read;
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) as unknown;
  } catch (e) {
    // The yaml library refuses an alias bomb ("billion laughs") while expanding it.
    throw new ConfigError([
      {
        file,
        line: 1,
        col: 1,
        path: '',
        message: `YAML resource limit: ${(e as Error).message}; a deployment file needs no more than ${MAX_ALIAS_COUNT} alias expansions`,
      },
    ]);
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
    throw new ConfigError(problems, { raw, locate: (path, key) => locate(doc, lc, path, key) });
  }
  if (problems.length > 0)
    throw new ConfigError(problems, { raw, locate: (path, key) => locate(doc, lc, path, key) });
  const secrets: string[] = [];
  collectSecrets(raw, secrets);
  return {
    config: deepFreeze(parsed.data),
    file,
    secrets,
    locate: (path, key) => locate(doc, lc, path, key),
  };
}

/**
 * What a journal reader takes from a deployment file: `store.path` and each bot's name, capital and quote
 * coin. Read without the deployment's secrets (`tradebot status` in a shell, or on a machine, that has none of
 * them); the rest of the file is not checked here.
 */
const JournalSettingsSchema = z.looseObject({
  store: DeploymentSchema.shape.store,
  bots: z.array(BotSchema.pick({ name: true, capital: true, quoteCoin: true }).loose()).default([]),
});
export type JournalSettings = z.output<typeof JournalSettingsSchema>;

export const loadJournalSettings = (file: string, env: NodeJS.ProcessEnv = process.env): JournalSettings =>
  loadYaml(JournalSettingsSchema, file, env, true).config;

/** Loads and validates a deployment file. */
export function loadConfig(file: string, env: NodeJS.ProcessEnv = process.env): LoadedConfig<Deployment> {
  return loadYaml(DeploymentSchema, file, env);
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
