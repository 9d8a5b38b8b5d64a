// Lossless JSON: the normal order book carries prices and sizes as JSON numbers (spec 2.4); they are
// read as their exact decimal text, never through a float.
import { parse } from 'lossless-json';

/** Parses JSON turning every number into its exact decimal string. */
export function parseLossless(text: string): unknown {
  return parse(text, null, (digits: string) => digits);
}
