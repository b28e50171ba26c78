import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { BooksError, errors } from '../domain/errors.js';
import {
  holdsControl,
  holdsPassword,
  isNested,
  parsedDatabaseUrl,
  redacted,
} from '../ledger/runtime/redact.js';

export type Profile =
  | { kind: 'local'; ledger: string; entity?: string }
  | { kind: 'remote'; url: string; api_key_env?: string; api_key?: string; currency?: string };

export interface Config {
  default?: string;
  profiles: Record<string, Profile>;
}

/** Where the ledger a command works on is: a local file or a remote service. */
export type Target =
  | { kind: 'local'; path: string; profile: string | null }
  /** A PostgreSQL database (a postgres:// URL) and the entity of it named, if any. */
  | { kind: 'database'; url: string; entity: string | undefined; profile: string | null }
  | {
      kind: 'remote';
      url: string;
      apiKeyEnv: string;
      apiKey: string | undefined;
      profile: string;
      currency: string;
    };

export type Env = Record<string, string | undefined>;

/** `$BOOKS_CONFIG`, else `$XDG_CONFIG_HOME/books/config.json`, else `~/.config/books/config.json`. */
export function configPath(env: Env): string {
  if (env.BOOKS_CONFIG) return resolve(env.BOOKS_CONFIG);
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'books', 'config.json');
}

/** Reads the config file; a missing file is an empty config, a broken one an error naming the file. */
export function readConfig(env: Env): Config {
  const path = configPath(env);
  if (!existsSync(path)) return { profiles: {} };
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<Config>;
    return { ...parsed, profiles: parsed.profiles ?? {} };
  } catch (e) {
    throw new BooksError(
      'usage',
      `the config file ${path} is not valid JSON: ${(e as Error).message}`,
    );
  }
}

/** Writes the config atomically; mode 0600 whenever a key is stored in it. */
export function writeConfig(env: Env, config: Config): void {
  const path = configPath(env);
  mkdirSync(dirname(path), { recursive: true });
  const holdsKey = Object.values(config.profiles).some((p) => p.kind === 'remote' && p.api_key);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(config, null, 2) + '\n', { mode: holdsKey ? 0o600 : 0o644 });
  if (holdsKey) chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}

/**
 * Picks the ledger: `--ledger` > `--profile` > `BOOKS_LEDGER` > `BOOKS_PROFILE` > the config's default
 * profile > `./books.sqlite`. `--ledger` with `--profile` is a usage error.
 */
export function resolveTarget(
  flags: { ledger?: string; profile?: string; entity?: string },
  env: Env,
  cwd: string,
): Target {
  if (flags.ledger !== undefined && flags.profile !== undefined) {
    throw errors.usage('--ledger and --profile name two different ledgers; give one of them');
  }
  const target = chosen(flags, env, cwd);
  const entity = flags.entity ?? env.BOOKS_ENTITY;
  if (target.kind === 'database') return entity === undefined ? target : { ...target, entity };
  if (flags.entity !== undefined)
    throw errors.usage(
      '--entity names an entity of a database (--ledger postgresql://…); a ledger file or a service holds one',
    );
  return target;
}

function chosen(flags: { ledger?: string; profile?: string }, env: Env, cwd: string): Target {
  if (flags.ledger !== undefined) return located(flags.ledger, cwd, null);
  if (flags.profile !== undefined) return fromProfile(flags.profile, env, cwd, '--profile');
  if (env.BOOKS_LEDGER) return located(env.BOOKS_LEDGER, cwd, null);
  if (env.BOOKS_PROFILE) return fromProfile(env.BOOKS_PROFILE, env, cwd, 'BOOKS_PROFILE');
  const config = readConfig(env);
  if (config.default) return fromProfile(config.default, env, cwd, 'the default profile');
  return { kind: 'local', path: resolve(cwd, 'books.sqlite'), profile: null };
}

/** A ledger's location: a postgres:// URL (checked: no password in it), else a file path. */
function located(location: string, cwd: string, profile: string | null, entity?: string): Target {
  if (/^postgres(ql)?:\/\//i.test(location)) {
    if (holdsControl(location))
      throw errors.usage(
        'the database URL holds a control character (a tab or a line break): write it on one line, ' +
          'without them',
      );
    if (holdsPassword(location))
      throw errors.usage(
        'the database URL holds a password: leave it out, and give it through PGPASSWORD or ~/.pgpass',
      );
    const url = parsedDatabaseUrl(location);
    if (url && [...url.searchParams.keys()].some(isNested))
      throw errors.usage(
        'the database URL names another URL (connectionString=): give that URL itself, once',
      );
    if (!url)
      throw errors.usage(
        `the database URL '${redacted(location)}' cannot be read: write it ` +
          'postgresql://USER@HOST[:PORT]/DATABASE, or postgresql://USER@/DATABASE?host=/socket/dir',
      );
    return { kind: 'database', url: location, entity, profile };
  }
  return { kind: 'local', path: resolve(cwd, location), profile };
}

function fromProfile(name: string, env: Env, cwd: string, source: string): Target {
  const config = readConfig(env);
  const p = config.profiles[name];
  if (!p) {
    const known = Object.keys(config.profiles);
    throw errors.usage(
      `no profile '${name}' (from ${source}) in ${configPath(env)}` +
        `${known.length ? `; profiles: ${known.join(', ')}` : ''}`,
    );
  }
  if (p.kind === 'local') return located(p.ledger, cwd, name, p.entity);
  const apiKeyEnv = p.api_key_env ?? 'BOOKS_API_KEY';
  return {
    kind: 'remote',
    url: p.url,
    apiKeyEnv,
    apiKey: env[apiKeyEnv] ?? p.api_key,
    profile: name,
    currency: p.currency ?? 'USD',
  };
}
