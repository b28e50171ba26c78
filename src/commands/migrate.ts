import { existsSync } from 'node:fs';
import { command, str } from '../cli/command.js';
import { required } from '../cli/flags.js';
import { resolveTarget } from '../config/config.js';
import type { DumpCounts, DumpRecord } from '../domain/dump.js';
import { BooksError, errors } from '../domain/errors.js';
import { openLedger, openStore } from '../ledger/open.js';
import type { Ledger } from '../ledger/port.js';
import { redacted } from '../ledger/runtime/redact.js';
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
lines, idempotency keys, API keys' hashes, reconciliations, budgets and recurring entries. Only a file
that passes books check is copied (exit 1 otherwise, naming its problems). The copy is made and
checked again in one transaction, with the new entity: refused or interrupted, it leaves nothing
behind. An entity that exists and holds entries is refused (exit 1); the file is only read.`,
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
    const store = (await openStore(to, open, true))!;
    try {
      // The source first: what is wrong in a file would be copied, or silently left behind (a
      // line of no entry is not in the dump).
      const wrong = [
        ...(await source.maintenance.verifyFile()),
        ...(await source.maintenance.check()).problems,
      ];
      if (wrong.length)
        throw new BooksError(
          'check_failed',
          `${from.path} fails books check: ${wrong[0]!.message}` +
            `${wrong.length > 1 ? ` (and ${wrong.length - 1} more)` : ''}; nothing was copied ` +
            '(books check --ledger FILE names every problem)',
          wrong,
        );
      const origin = await source.entity.record();
      const known = (await store.entities()).some((e) => e.slug === entity);
      const target = known ? await emptyEntity(store, entity, redacted(to.url)) : null;
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
        // The dump's entity record brings the file's settings (books start, lock date).
        const init = {
          name: origin.name,
          currency: origin.currency,
          books_start: null,
          fiscal_year_start_month: origin.fiscal_year_start_month,
        };
        counts = target
          ? await target.maintenance.restore(counted())
          : (await store.createRestored(entity, init, counted())).counts;
      } finally {
        progress.done();
      }
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
 * An entity of that slug that holds no entries yet, to copy into (made by books init, say). One with
 * entries is refused: a ledger is copied whole into an entity of its own, never merged.
 */
async function emptyEntity(
  store: NonNullable<Awaited<ReturnType<typeof openStore>>>,
  slug: string,
  where: string,
): Promise<Ledger> {
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
