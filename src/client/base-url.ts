// What a venue's base URL may be: the client refuses anything else, and so do the configuration and the
// flags that name one, with the same sentence.

/** Why `url` cannot be a venue's base URL, or undefined when it can. */
export function baseUrlProblem(url: unknown): string | undefined {
  if (typeof url !== 'string' || !URL.canParse(url))
    return 'baseUrl must be an absolute URL such as https://api.example.com or http://127.0.0.1:8080';
  const u = new URL(url);
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    return `baseUrl must use http or https, not ${u.protocol.slice(0, -1)} (e.g. https://api.example.com)`;
  if (u.search !== '' || u.hash !== '' || u.username !== '' || u.password !== '')
    return 'baseUrl must not carry a query, a fragment or user:password';
  return undefined;
}
