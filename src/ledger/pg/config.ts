import type pg from 'pg';
import { parseIntoClientConfig } from 'pg-connection-string';
import pgpass from 'pgpass';
import { LOCK_WAIT_MS } from '../journal/store.js';
import { BooksError, errors } from '../../domain/errors.js';
import { redacted } from '../runtime/redact.js';

/** How a connection to the database at `location` is made, on the pool or on its own (pipelined.ts). */
export function clientConfig(location: string): pg.ClientConfig {
  // A unix socket the libpq way: postgresql://user@/db?host=/dir. pg reads `host` from the query.
  // The URL is parsed here, not given as connectionString: pg lets a connection string's (empty)
  // password override a password function.
  let config: pg.ClientConfig;
  try {
    config = parseIntoClientConfig(location);
  } catch {
    throw errors.usage(`the database URL '${redacted(location)}' cannot be read`);
  }
  // A URL inside the URL would be read over everything here, the password function too (the
  // command refuses one: config.ts).
  delete (config as { connectionString?: string }).connectionString;
  return {
    ...config,
    // Asked only when the server wants a password: libpq's sources, read here (pg's own reading of
    // ~/.pgpass is deprecated and warns on every command).
    // (pg calls it with the connection's parameters, which its types leave out.)
    password: passwordFor(location) as unknown as () => Promise<string>,
    // A writer waits for the entity's lock as long as on a ledger file, then 55P03: "locked".
    lock_timeout: LOCK_WAIT_MS,
  };
}

/**
 * The password the server asks for: PGPASSWORD, else the password file (~/.pgpass, PGPASSFILE).
 * With none, the login is refused here (exit 3).
 */
const passwordFor =
  (location: string) =>
  async (p: { user?: string }): Promise<string> => {
    // An empty PGPASSWORD is none, as libpq reads it.
    if (process.env.PGPASSWORD) return process.env.PGPASSWORD;
    const found = await new Promise<string | undefined>((resolve) => pgpass(p, resolve));
    if (found !== undefined) return found;
    throw new BooksError(
      'database_auth',
      `the database at ${redacted(location)} asks for the password of user '${p.user}', and ` +
        'none is given: set PGPASSWORD, or add it to ~/.pgpass (or the file PGPASSFILE names)',
    );
  };
