import { command } from '../cli/command.js';
import { configPath, readConfig } from '../config/config.js';
import { redacted } from '../ledger/runtime/redact.js';
import { grid } from '../render/table.js';

export default command({
  examples: ['books profile list'],
  options: () => ({}),
  async run(ctx) {
    const config = readConfig(ctx.env);
    const rows = Object.entries(config.profiles).map(([name, p]) => {
      const env = p.kind === 'remote' ? (p.api_key_env ?? 'BOOKS_API_KEY') : '';
      // Whether a key is available, never the key.
      const key =
        p.kind !== 'remote'
          ? null
          : ctx.env[env]
            ? `from ${env}`
            : p.api_key
              ? 'stored in the config file'
              : `not set (${env})`;
      return {
        name,
        default: config.default === name,
        kind: p.kind,
        // A config file written by hand may hold a password in a database URL: never shown.
        target:
          p.kind === 'local'
            ? redacted(p.ledger) + (p.entity ? ` (entity ${p.entity})` : '')
            : p.url,
        api_key: key,
      };
    });
    if (ctx.json) return ctx.outJson({ object: 'list', data: rows });
    if (!rows.length) return ctx.out(`No profiles in ${configPath(ctx.env)}.`);
    ctx.out(
      grid(
        ['', 'Name', 'Kind', 'Ledger or URL', 'API key'],
        rows.map((r) => [r.default ? '*' : '', r.name, r.kind, r.target, r.api_key ?? '']),
      ),
    );
  },
});
