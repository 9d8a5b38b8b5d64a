// OrderIntent <-> JSON text for the journal: decimals travel as plain decimal strings (never numbers,
// never exponent notation) and are validated when read back, since a file is an external input.
import { z } from 'zod';
import { SIGNED_DECIMAL_RE } from '../api/index.js';
import { Decimal, toWire } from '../market/decimal.js';
import type { OrderIntent } from '../strategy/intent.js';

/**
 * Serialises an intent; Decimal fields become plain decimal strings. JSON.stringify hands a replacer what
 * `toJSON` made of a value (a Decimal's own string, in exponent notation below 1e-40), so the replacer reads
 * the field itself from its holder.
 */
export function encodeIntent(intent: OrderIntent): string {
  return JSON.stringify(intent, function (this: Record<string, unknown>, key: string, value: unknown) {
    const raw = this[key];
    return raw instanceof Decimal ? toWire(raw) : value;
  });
}

const decimalText = (field: string) =>
  z
    .string({ error: `${field} must be a decimal string` })
    .regex(SIGNED_DECIMAL_RE, { error: `${field} must be a plain decimal string such as "12.5"` })
    .transform((s) => new Decimal(s));

const base = {
  bot: z.string().optional(),
  symbol: z.string().min(1, { error: 'symbol must be a non-empty string' }),
  category: z.enum(['SPOT', 'MARGIN'], { error: 'category must be SPOT or MARGIN' }),
  tag: z.string({ error: 'tag must be a string' }),
  reason: z.string({ error: 'reason must be a string' }),
};

const IntentJsonSchema = z.union([
  z.looseObject({
    ...base,
    type: z.literal('limit'),
    side: z.enum(['buy', 'sell']),
    quantity: decimalText('quantity'),
    price: decimalText('price'),
  }),
  z.looseObject({
    ...base,
    type: z.literal('market'),
    side: z.literal('sell'),
    quantity: decimalText('quantity'),
  }),
  z.looseObject({
    ...base,
    type: z.literal('market'),
    side: z.literal('buy'),
    quoteAmount: decimalText('quoteAmount'),
  }),
]);

/** Parses a stored intent back into an OrderIntent; throws naming the bad field. */
export function decodeIntent(json: string, where = 'stored intent'): OrderIntent {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (e) {
    throw new Error(`${where} is not valid JSON: ${(e as Error).message}`, { cause: e });
  }
  const parsed = IntentJsonSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path.join('.') ?? '';
    throw new Error(
      `${where} is not an order intent${path ? ` (field ${path})` : ''}: ${issue?.message ?? 'invalid'}`,
    );
  }
  const { bot, ...rest } = parsed.data;
  // exactOptionalPropertyTypes: leave `bot` absent rather than undefined.
  return (bot === undefined ? rest : { ...rest, bot }) as OrderIntent;
}
