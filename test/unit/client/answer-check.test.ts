// The compiled answer checks say "valid as is" exactly when zod accepts an answer and gives it back unchanged,
// for every response schema of the catalogue; an invalid answer still fails with zod's error.
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ENDPOINTS, ENDPOINT_NAMES, VenueError } from '../../../src/api/index.js';
import { compileAnswerCheck } from '../../../src/client/answer-check.js';
import { RestClient } from '../../../src/client/index.js';
import { VirtualClock } from '../../../src/feeds/clock.js';
import { envelope, startRecordingServer, type RecordingServer } from '../../helpers/recording-server.js';
import { wireTicker } from '../../helpers/wire.js';

interface Def {
  type: string;
  checks?: { _zod: { def: { check: string; pattern?: RegExp } } }[];
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  items?: z.ZodType[];
  innerType?: z.ZodType;
  entries?: Record<string, string>;
  values?: unknown[];
}
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** Something of the wrong type for any field. */
const wrong = fc.oneof(fc.integer(), fc.constant(null), fc.boolean(), fc.constant({}), fc.constant([]));

/** Answers shaped by a schema: mostly valid, with now and then a wrong value, a missing field or an extra one. */
function answers(schema: z.ZodType): fc.Arbitrary<unknown> {
  const d = defOf(schema);
  const valid = ((): fc.Arbitrary<unknown> => {
    switch (d.type) {
      case 'string': {
        const pattern = d.checks?.find((c) => c._zod.def.check === 'string_format')?._zod.def.pattern;
        return pattern ? fc.oneof(fc.stringMatching(pattern), fc.string()) : fc.string({ maxLength: 4 });
      }
      case 'boolean':
        return fc.boolean();
      case 'enum':
        return fc.oneof(fc.constantFrom(...Object.values(d.entries ?? {})), fc.string({ maxLength: 2 }));
      case 'literal':
        return fc.oneof(fc.constantFrom(...(d.values ?? [])), fc.string({ maxLength: 2 }));
      case 'optional':
        return answers(d.innerType as z.ZodType);
      case 'array':
        return fc.array(answers(d.element as z.ZodType), { maxLength: 3 });
      case 'tuple':
        return fc.oneof(
          { weight: 5, arbitrary: fc.tuple(...(d.items ?? []).map(answers)) },
          fc.array(fc.string({ maxLength: 2 }), { maxLength: 8 }),
        );
      case 'object': {
        const shape = d.shape ?? {};
        const keys = Object.keys(shape);
        const required = keys.filter((k) => defOf(shape[k] as z.ZodType).type !== 'optional');
        const record = fc.record(Object.fromEntries(keys.map((k) => [k, answers(shape[k] as z.ZodType)])), {
          requiredKeys: [],
        });
        return fc
          .tuple(record, fc.subarray(required, { maxLength: 1 }), fc.boolean())
          .map(([r, dropped, extra]) => {
            // Required fields present, but for the one (now and then) dropped; a key this version does not know.
            const full: Record<string, unknown> = { ...r };
            for (const k of required) if (!(k in full)) full[k] = 'x';
            for (const k of dropped) delete full[k];
            if (extra) full.brandNew = 'later field';
            return full;
          });
      }
      default:
        throw new Error(`no answers for a ${d.type} schema`);
    }
  })();
  return fc.oneof({ weight: 12, arbitrary: valid }, { weight: 1, arbitrary: wrong });
}

describe('compiled answer checks', () => {
  it('has a compiled check for every response schema of the catalogue', () => {
    const without = ENDPOINT_NAMES.filter(
      (n) => compileAnswerCheck(ENDPOINTS[n].response as z.ZodType) === undefined,
    );
    expect(without).toEqual([]);
  });

  it.each(ENDPOINT_NAMES.map((n) => [n]))('%s: valid as is exactly when zod accepts it unchanged', (name) => {
    const schema = ENDPOINTS[name].response as z.ZodType;
    const check = compileAnswerCheck(schema);
    fc.assert(
      fc.property(answers(schema), (value) => {
        const wire: unknown = JSON.parse(JSON.stringify(value));
        const parsed = schema.safeParse(wire);
        expect(check?.(wire)).toBe(parsed.success);
        if (parsed.success) expect(parsed.data).toEqual(wire);
      }),
      { numRuns: 300 },
    );
  });

  it('leaves an object with an own __proto__ key to zod, which drops it', () => {
    const schema = z.looseObject({ a: z.string() });
    const wire: unknown = JSON.parse('{"a":"1","__proto__":{"polluted":"yes"}}');
    expect(compileAnswerCheck(schema)?.(wire)).toBe(false);
    expect(schema.parse(wire)).toEqual({ a: '1' });
  });

  it('has no check for a schema whose output differs from its input', () => {
    expect(compileAnswerCheck(z.object({ a: z.string() }))).toBeUndefined();
    expect(compileAnswerCheck(z.string().transform(Number))).toBeUndefined();
    expect(compileAnswerCheck(z.looseObject({ a: z.string().default('x') }))).toBeUndefined();
    expect(compileAnswerCheck(z.string().min(2))).toBeUndefined();
  });
});

describe('an answer the checks refuse', () => {
  let server: RecordingServer;
  let client: RestClient;
  beforeEach(async () => {
    server = await startRecordingServer();
    client = new RestClient({
      baseUrl: server.baseUrl,
      clock: new VirtualClock(1_767_225_600_000),
      rateLimit: false,
    });
  });
  afterEach(async () => {
    client.close();
    await server.close();
  });

  const ticker = wireTicker();

  it.each([
    [
      'a missing field',
      { ...ticker, lastPrice: undefined },
      'unexpected answer at data.1.lastPrice: Invalid input: expected string, received undefined',
    ],
    [
      'a wrong-typed field',
      { ...ticker, bid1Price: 150.1 },
      'unexpected answer at data.1.bid1Price: Invalid input: expected string, received number',
    ],
  ])("fails on %s with zod's error, naming the field", async (_what, bad, msg) => {
    server.fallback = () => ({ body: envelope([ticker, bad]) });
    const err: unknown = await client.tickers({ category: 'SPOT' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VenueError);
    expect(err).toMatchObject({ code: 'BAD_RESPONSE', message: expect.stringContaining(msg) as unknown });
  });

  it('gives a valid answer back with its fields, extra ones included', async () => {
    server.fallback = () => ({ body: envelope([{ ...ticker, brandNew: 'kept' }]) });
    expect(await client.tickers({ category: 'SPOT' })).toEqual([{ ...ticker, brandNew: 'kept' }]);
  });
});
