import { resolve } from 'node:path';
import { command, str } from '../cli/command.js';
import {
  configPath,
  readConfig,
  resolveTarget,
  writeConfig,
  type Profile,
} from '../config/config.js';
import { errors } from '../domain/errors.js';
import { currencyExponent } from '../domain/money.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

interface Options {
  name: string;
  url?: string | undefined;
  apiKeyEnv?: string | undefined;
  ledger?: string | undefined;
  currency?: string | undefined;
}

export default command({
  args: [{ name: 'name', description: 'profile name' }],
  flags: [
    { flags: '--url <url>', description: 'base URL of the accounting service (remote)' },
    {
      flags: '--api-key-env <var>',
      description: 'environment variable holding the API key (default BOOKS_API_KEY)',
    },
    {
      flags: '--currency <code>',
      description: "the service's functional currency, for reading amounts (default USD)",
    },
    {
      flags: '--ledger <path|url>',
      description: 'ledger file, or a postgresql:// database (local)',
    },
  ],
  help: 'A database profile names its entity with the global --entity SLUG.',
  examples: [
    'books profile add office --url http://127.0.0.1:8080 --api-key-env OFFICE_KEY',
    'books profile add home --ledger books.sqlite',
    'books profile add acme --ledger postgresql://books@db.internal/firm --entity acme',
  ],
  options(raw): Options {
    const name = raw.args[0]!;
    if (!NAME.test(name))
      throw errors.usage(`profile name '${name}' must be letters, digits, '.', '_' or '-'`);
    return {
      name,
      url: str(raw, 'url'),
      apiKeyEnv: str(raw, 'apiKeyEnv'),
      ledger: str(raw, 'ledger'),
      currency: str(raw, 'currency'),
    };
  },
  async run(ctx, given) {
    // --ledger is also the global option, which commander may have taken for itself.
    const opts = { ...given, ledger: given.ledger ?? ctx.flags.ledger, entity: ctx.flags.entity };
    if ((opts.url === undefined) === (opts.ledger === undefined))
      throw errors.usage('give exactly one of --url URL (remote) or --ledger PATH (local)');
    const profile: Profile =
      opts.url !== undefined ? remote(opts as Options & { url: string }) : local(ctx.cwd, opts);
    const config = readConfig(ctx.env);
    const replaced = opts.name in config.profiles;
    config.profiles[opts.name] = profile;
    writeConfig(ctx.env, config);
    if (ctx.json) return ctx.outJson({ name: opts.name, profile, replaced });
    ctx.out(`${replaced ? 'Replaced' : 'Added'} profile ${opts.name} in ${configPath(ctx.env)}.`);
  },
});

function remote(opts: Options & { url: string }): Profile {
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
  return { kind: 'remote', url: url.toString().replace(/\/+$/, ''), api_key_env: env, currency };
}

function local(cwd: string, opts: Options & { entity?: string | undefined }): Profile {
  if (opts.apiKeyEnv !== undefined || opts.currency !== undefined)
    throw errors.usage('--api-key-env and --currency go with --url');
  // Checked as a command would read it: a database URL without a password, --entity only with one.
  const target = resolveTarget({ ledger: opts.ledger!, entity: opts.entity }, {}, cwd);
  if (target.kind === 'database')
    return {
      kind: 'local',
      ledger: target.url,
      ...(target.entity ? { entity: target.entity } : {}),
    };
  return { kind: 'local', ledger: resolve(cwd, opts.ledger!) };
}
