// Request signing as the real venue does it (the spec leaves it out):
//   ACCESS-SIGN = base64(HMAC-SHA256(secret, timestamp + METHOD + requestPath + ("?" + query) + body))
// The query string is signed exactly as sent (keys sorted), the body exactly as the JSON sent.
import * as crypto from 'node:crypto';
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** How far ACCESS-TIMESTAMP may be from the server's clock. */
export const TIMESTAMP_WINDOW_MS = 30_000;

/** The canonical query string tradebot sends and signs: keys sorted, values URI-encoded. */
export function buildQueryString(params: Readonly<Record<string, string | undefined>>): string {
  return Object.keys(params)
    .filter((k) => params[k] !== undefined)
    .sort()
    .map((k) => `${encodeURIComponent(k)}=${encodeURIComponent(params[k] as string)}`)
    .join('&');
}

/** The exact text that is signed. */
export function prehash(
  timestamp: string,
  method: string,
  requestPath: string,
  queryString: string,
  body: string,
): string {
  return `${timestamp}${method.toUpperCase()}${requestPath}${queryString ? `?${queryString}` : ''}${body}`;
}

/** The ACCESS-SIGN value. */
export function sign(
  secret: string,
  timestamp: string,
  method: string,
  requestPath: string,
  queryString: string,
  body: string,
): string {
  return createHmac('sha256', secret)
    .update(prehash(timestamp, method, requestPath, queryString, body))
    .digest('base64');
}

/** A one-shot digest (node:crypto `hash`, Node 20.12 and later); undefined on an older Node. */
const oneShot = (
  crypto as {
    hash?: {
      (alg: string, data: string | Buffer, enc: 'buffer'): Buffer;
      (alg: string, data: string | Buffer, enc: 'base64'): string;
    };
  }
).hash;

/**
 * `sign` with the secret fixed, for a client that signs every request with one key: the HMAC's two padded key
 * blocks are made once (RFC 2104), so a signature is two one-shot SHA-256 digests and no HMAC object (about half
 * the CPU of `createHmac` per request on a busy loop). Equal to `sign(secret, ...)` for every input.
 */
export function signer(
  secret: string,
): (timestamp: string, method: string, requestPath: string, queryString: string, body: string) => string {
  const digest = oneShot;
  if (digest === undefined) return (...a) => sign(secret, ...a);
  const BLOCK = 64;
  let key = Buffer.from(secret, 'utf8');
  if (key.length > BLOCK) key = createHash('sha256').update(key).digest();
  const ipad = Buffer.alloc(BLOCK, 0x36);
  const opad = Buffer.alloc(BLOCK, 0x5c);
  for (let i = 0; i < key.length; i++) {
    ipad[i] = (ipad[i] as number) ^ (key[i] as number);
    opad[i] = (opad[i] as number) ^ (key[i] as number);
  }
  const outer = Buffer.alloc(BLOCK + 32);
  opad.copy(outer);
  if (key.every((b) => b < 0x80)) {
    // An ASCII key (the venue's are) XORed with 0x36 stays ASCII: the inner block is a string, hashed with the
    // request's text in one call, without copying either into a buffer.
    const ipadText = ipad.toString('latin1');
    return (timestamp, method, requestPath, queryString, body) => {
      const text = prehash(timestamp, method, requestPath, queryString, body);
      digest('sha256', ipadText + text, 'buffer').copy(outer, BLOCK);
      return digest('sha256', outer, 'base64');
    };
  }
  return (timestamp, method, requestPath, queryString, body) => {
    const text = prehash(timestamp, method, requestPath, queryString, body);
    const inner = Buffer.allocUnsafe(BLOCK + Buffer.byteLength(text, 'utf8'));
    ipad.copy(inner);
    inner.write(text, BLOCK, 'utf8');
    digest('sha256', inner, 'buffer').copy(outer, BLOCK);
    return digest('sha256', outer, 'base64');
  };
}

/** Constant-time comparison of a received signature with the expected one. */
export function signatureMatches(expected: string, received: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(received);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Names of the authentication headers (spec section 5), lower-cased as Node presents them. */
export const HEADERS = {
  key: 'access-key',
  sign: 'access-sign',
  passphrase: 'access-passphrase',
  timestamp: 'access-timestamp',
  locale: 'locale',
  channel: 'x-channel-api-code',
} as const;
