// Request signing as the real venue does it (the spec leaves it out):
//   ACCESS-SIGN = base64(HMAC-SHA256(secret, timestamp + METHOD + requestPath + ("?" + query) + body))
// The query string is signed exactly as sent (keys sorted), the body exactly as the JSON sent.
import { createHmac, timingSafeEqual } from 'node:crypto';

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
