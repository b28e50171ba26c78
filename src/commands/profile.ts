import { resolve } from 'node:path';
import type { Context } from '../cli/context.js';
import { configPath, readConfig, writeConfig, type Profile } from '../config/config.js';
import { BooksError, errors } from '../domain/errors.js';
import { currencyExponent } from '../domain/money.js';
import { grid } from '../render/table.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export async function profileAdd(
  ctx: Context,
  name: string,
  opts: { url?: string; apiKeyEnv?: string; ledger?: string; currency?: string },
): Promise<void> {
  if (!NAME.test(name))
    throw errors.usage(`profile name '${name}' must be letters, digits, '.', '_' or '-'`);
  // --ledger is also the global option, which commander may have taken for itself.
  opts = {
    ...opts,
    ...(opts.ledger === undefined && ctx.flags.ledger !== undefined
      ? { ledger: ctx.flags.ledger }
      : {}),
  };
  if ((opts.url === undefined) === (opts.ledger === undefined))
    throw errors.usage('give exactly one of --url URL (remote) or --ledger PATH (local)');
  let profile: Profile;
  if (opts.url !== undefined) {
    let url: URL;
    try {
      url = new URL(opts.url);
    } catch {
      throw errors.usage(`--url '${opts.url}' is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw errors.usage(`--url must be http:// or https://, not ${url.protocol}`);
    if (url.username || url.password)
      throw errors.usage(
        '--url must not carry credentials; the key comes from an environment variable',
      );
    const currency = (opts.currency ?? 'USD').toUpperCase();
    if (currencyExponent(currency) === null)
      throw errors.usage(`--currency '${opts.currency}' is not an ISO 4217 currency code`);
    const env = opts.apiKeyEnv ?? 'BOOKS_API_KEY';
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(env))
      throw errors.usage(`--api-key-env '${env}' is not an environment variable name`);
    profile = {
      kind: 'remote',
      url: url.toString().replace(/\/+$/, ''),
      api_key_env: env,
      currency,
    };
  } else {
    if (opts.apiKeyEnv !== undefined || opts.currency !== undefined)
      throw errors.usage('--api-key-env and --currency go with --url');
    profile = { kind: 'local', ledger: resolve(ctx.cwd, opts.ledger!) };
  }
  const config = readConfig(ctx.env);
  const replaced = name in config.profiles;
  config.profiles[name] = profile;
  writeConfig(ctx.env, config);
  if (ctx.json) return ctx.outJson({ name, profile, replaced });
  ctx.out(`${replaced ? 'Replaced' : 'Added'} profile ${name} in ${configPath(ctx.env)}.`);
}

export async function profileUse(ctx: Context, name: string): Promise<void> {
  const config = readConfig(ctx.env);
  if (!(name in config.profiles))
    throw errors.usage(`no profile '${name}'; add it with books profile add`);
  config.default = name;
  writeConfig(ctx.env, config);
  if (ctx.json) return ctx.outJson({ default: name });
  ctx.out(`Profile ${name} is now the default.`);
}

export async function profileList(ctx: Context): Promise<void> {
  const config = readConfig(ctx.env);
  const rows = Object.entries(config.profiles).map(([name, p]) => ({
    name,
    default: config.default === name,
    kind: p.kind,
    target: p.kind === 'local' ? p.ledger : p.url,
    // Whether a key is available, never the key.
    api_key:
      p.kind === 'remote'
        ? ctx.env[p.api_key_env ?? 'BOOKS_API_KEY']
          ? `from ${p.api_key_env ?? 'BOOKS_API_KEY'}`
          : p.api_key
            ? 'stored in the config file'
            : `not set (${p.api_key_env ?? 'BOOKS_API_KEY'})`
        : null,
  }));
  if (ctx.json) return ctx.outJson({ object: 'list', data: rows });
  if (!rows.length) return ctx.out(`No profiles in ${configPath(ctx.env)}.`);
  ctx.out(
    grid(
      ['', 'Name', 'Kind', 'Ledger or URL', 'API key'],
      rows.map((r) => [r.default ? '*' : '', r.name, r.kind, r.target, r.api_key ?? '']),
    ),
  );
}

export async function profileRemove(ctx: Context, name: string): Promise<void> {
  const config = readConfig(ctx.env);
  if (!(name in config.profiles)) throw new BooksError('usage', `no profile '${name}'`);
  delete config.profiles[name];
  if (config.default === name) delete config.default;
  writeConfig(ctx.env, config);
  if (ctx.json) return ctx.outJson({ removed: name });
  ctx.out(`Removed profile ${name}.`);
}
