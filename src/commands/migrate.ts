import { existsSync } from 'node:fs';
import { command, str } from '../cli/command.js';
import { required } from '../cli/flags.js';
import { resolveTarget } from '../config/config.js';
import type { DumpCounts, DumpRecord } from '../domain/dump.js';
import { BooksError, errors } from '../domain/errors.js';
import { openLedger, openStore } from '../ledger/open.js';
import type { Ledger } from '../ledger/port.js';
import { redacted } from '../ledger/redact.js';
import { Progress } from '../render/progress.js';

interface Options {
  from: string;
  to: string;
}

export default command<Options>({
  flags: [
    { flags: '--from <path>', description: 'the ledger file to copy' },
    { flags: '--to <url>', description: 'the PostgreSQL database (postgresql://…)' },
  ],
  help: `Copies a whole ledger file into an entity of a database (named by --entity): its entity's
settings and lock date, accounts, counterparties, every entry with its id, JE number, fingerprint and
lines, idempotency keys, API keys' hashes, reconciliations, budgets and recurring entries. The copy is
one transaction: interrupted, it leaves nothing of the ledger behind (at most the new entity, empty,
which a second run fills). Then books check runs on the copy. An entity that already holds entries is
refused (exit 1); the file is only read.`,
  examples: [
    'books migrate --from books.sqlite --to postgresql://books@/firm?host=/var/run/postgresql --entity acme',
  ],
  options: (raw) => ({
    from: required('--from', str(raw, 'from')),
    to: required('--to', str(raw, 'to')),
  }),
  async run(ctx, opts) {
    const from = resolveTarget({ ledger: opts.from }, ctx.env, ctx.cwd);
    if (from.kind !== 'local')
      throw errors.usage(`--from: '${opts.from}' is not a ledger file (a path to a .sqlite file)`);
    if (!existsSync(from.path)) throw errors.usage(`--from: no file at ${from.path}`);
    const entity = ctx.flags.entity ?? ctx.env.BOOKS_ENTITY;
    if (entity === undefined)
      throw errors.usage('books migrate needs --entity SLUG: the entity of the database to fill');
    if (!/^postgres(ql)?:\/\//i.test(opts.to))
      throw errors.usage(`--to: '${opts.to}' is not a database URL (postgresql://…)`);
    const to = resolveTarget({ ledger: opts.to, entity }, ctx.env, ctx.cwd);
    if (to.kind !== 'database') throw errors.usage(`--to: '${opts.to}' is not a database URL`);
    const open = { env: ctx.env, clock: ctx.now };
    const source = await openLedger(from, open);
    const store = (await openStore(to, open))!;
    try {
      const origin = await source.entity.record();
      const target = await targetLedger(store, entity, origin, redacted(to.url));
      const progress = new Progress(ctx.io.stderr, origin.entry_count, 'migrating');
      let entries = 0;
      async function* counted(): AsyncGenerator<DumpRecord> {
        for await (const r of source.maintenance.dump()) {
          if (r.type === 'entry') progress.update(++entries, `${entries} entries`);
          yield r;
        }
      }
      let counts: DumpCounts;
      try {
        counts = await target.maintenance.restore(counted());
      } finally {
        progress.done();
      }
      const { problems } = await target.maintenance.check();
      if (problems.length)
        throw new BooksError(
          'check_failed',
          `the copy in entity '${entity}' fails books check: ${problems.map((p) => p.message).join('; ')}`,
          problems,
        );
      const summary = { from: from.path, to: redacted(to.url), entity, counts, check: 'ok' };
      if (ctx.json) return ctx.outJson(summary);
      ctx.out(
        `Copied ${from.path} into entity '${entity}' of ${summary.to}: ${counts.accounts} accounts, ` +
          `${counts.counterparties} counterparties, ${counts.entries} entries (${counts.lines} lines), ` +
          `${counts.api_keys} API keys; books check: ok`,
      );
    } finally {
      await source.close();
      await store.close();
    }
  },
});

/**
 * The entity to copy into: a new one made with the file's settings, or one of that slug that holds
 * no entries yet (an earlier run's, interrupted before its copy committed). One with entries is
 * refused: a ledger is copied whole into an entity of its own, never merged.
 */
async function targetLedger(
  store: NonNullable<Awaited<ReturnType<typeof openStore>>>,
  slug: string,
  origin: Awaited<ReturnType<Ledger['entity']['record']>>,
  where: string,
): Promise<Ledger> {
  const known = (await store.entities()).some((e) => e.slug === slug);
  if (!known)
    return store.create(slug, {
      name: origin.name,
      currency: origin.currency,
      books_start: null,
      fiscal_year_start_month: origin.fiscal_year_start_month,
    });
  const ledger = await store.open(slug);
  const held = (await ledger.entity.record()).entry_count;
  if (held > 0) {
    const message =
      `entity '${slug}' of ${where} already holds ${held} entries: a ledger is copied into an entity ` +
      'of its own (give another --entity); nothing was copied';
    throw new BooksError('invalid_input', message, [
      { path: '--entity', reason: 'entity_not_empty', message },
    ]);
  }
  return ledger;
}
