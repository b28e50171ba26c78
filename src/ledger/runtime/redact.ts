/**
 * A database URL's password, found as the PostgreSQL client finds it: in the user information
 * (`user:pw@`), or as a query parameter whose name decodes to `password` (`?password=`, and the
 * percent-encoded `?%70assword=` or `pass%77ord=`, which the client decodes and logs in with).
 */
// Up to the last `@` there is (`user:p@ss@host`, and `user:se/cret@host`, which no parser reads):
// a message may hide more than the password, never less.
const IN_USER_INFO = /^([a-z][a-z0-9+.-]*:\/\/[^:@/?#]*):.*@/i;
const QUERY_PAIR = /([?&])([^=&#]*)=([^&#]*)/g;

/**
 * A query key as the URL parser and URLSearchParams read it (tabs and line breaks dropped, `+` a
 * space, percent-escapes decoded), lower case.
 */
function keyOf(raw: string): string {
  const spaced = raw.replace(/[\t\n\r]/g, '').replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced).trim().toLowerCase();
  } catch {
    // A malformed escape: URLSearchParams keeps such bytes as they are.
    return spaced.trim().toLowerCase();
  }
}

const isPasswordKey = (raw: string) => keyOf(raw) === 'password';
/** A query key the client reads as a whole URL of its own. */
export const isNested = (raw: string) => keyOf(raw) === 'connectionstring';

/**
 * The URL as the PostgreSQL client reads it (src/ledger/pg/db.ts), or null when it cannot be read:
 * the client encodes a space or a stray `%` before parsing, and reads a URL without a host again
 * with a stand-in host; so does this.
 */
export function parsedDatabaseUrl(location: string): URL | null {
  const s = / |%[^a-f0-9]|%[a-f0-9][^a-f0-9]/i.test(location)
    ? encodeURI(location).replace(/%25(\d\d)/g, '%$1')
    : location;
  for (const text of [s, s.replace('@/', '@___DUMMY___/')]) {
    // The client's second reading: a URL without a host (`user@/db?host=/socket/dir`).
    try {
      return new URL(text, 'postgres://base');
    } catch {
      continue;
    }
  }
  return null;
}

/** A control character: no URL holds one, and the parser drops some (`pass<TAB>word` is `password`). */
export const holdsControl = (location: string): boolean =>
  [...location].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);

/**
 * Whether a database URL holds a password (books refuses one: shell history, the config file),
 * also inside another URL given as its `connectionString` parameter, which the client reads over
 * everything else.
 */
export function holdsPassword(location: string): boolean {
  const url = parsedDatabaseUrl(location);
  if (url && (url.password || [...url.searchParams.keys()].some((k) => isPasswordKey(k))))
    return true;
  if (url && [...url.searchParams.entries()].some(([k, v]) => isNested(k) && holdsPassword(v)))
    return true;
  // What the parser could not read is searched as text too: a message must not show it either.
  return (
    IN_USER_INFO.test(location) ||
    [...location.matchAll(QUERY_PAIR)].some((m) => isPasswordKey(m[2]!))
  );
}

/** A database URL for messages: a password in it replaced (books refuses such a URL; a message never shows one). */
export function redacted(location: string): string {
  return location
    .replace(IN_USER_INFO, '$1:***@')
    .replace(QUERY_PAIR, (pair, sep: string, key: string) =>
      isPasswordKey(key) ? `${sep}${key}=***` : pair,
    );
}
