import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PgStore } from '../../src/ledger/pg/store.js';
import { databaseUrl, fromTemplate, pgFixture } from '../support/fixtures.js';

/**
 * A firm's database holds many clients' books, and its statistics speak of the entities they were
 * taken over. An entity being imported into has rows no statistics count (not yet committed): a
 * plan made for its id took its row count for none and walked every row the import had written, for
 * each fingerprint looked up (a second 1M-line import into one database ran over ten times as long
 * as the first). Its look-ups and its transaction run on generic plans, made for any entity.
 */
describe('an import into an entity of a database (PostgreSQL)', () => {
  it.each([
    ['on a connection of the pool', undefined],
    ['large, on a pipelined connection of its own', null],
  ])(
    '%s: reads its fingerprints and look-ups, and writes, in transactions on generic plans',
    async (_, sizeHint) => {
      const L = await fromTemplate(pgFixture, 'standard');
      const { entityId } = L.ledger as unknown as { entityId: string };
      const store = await PgStore.open(databaseUrl(), () => new Date(), 2, false);
      // Per connection, what it was sent, in order.
      const sent = new Map<pg.Client, string[]>();
      const query = pg.Client.prototype.query;
      pg.Client.prototype.query = function (this: pg.Client, ...a: unknown[]) {
        const first = a[0] as string | { text: string };
        const text = typeof first === 'string' ? first : first.text;
        sent.set(this, [...(sent.get(this) ?? []), text]);
        return (query as (...a: unknown[]) => unknown).apply(this, a);
      } as typeof query;
      try {
        const ledger = await store.open(entityId);
        const batch = await ledger.journal.beginImport({
          dryRun: false,
          allowDuplicates: false,
          sizeHint,
        });
        const chunk = [0, 1, 2].map((k) => ({
          body: {
            entry_date: '2025-03-05',
            lines: [
              { gl_account_id: 'rent', line_type: 'debit', amount_atoms: 100 + k },
              { gl_account_id: 'checking', line_type: 'credit', amount_atoms: 100 + k },
            ],
          },
          fingerprint: `plans-${k}`,
          hasRowProblems: false,
          row: k + 2,
        }));
        try {
          expect(await batch.add(chunk)).toEqual(chunk.map(() => ({ status: 'posted' })));
          await batch.commit();
        } catch (e) {
          await batch.rollback();
          throw e;
        }
        // Each statement that reads the journal by fingerprint or the chart by reference, and each
        // insert, came after a BEGIN that set generic plans, on its connection.
        const reads = /j\.fingerprint = v|FROM accounts WHERE entity_id|INSERT INTO journal_/;
        let checked = 0;
        for (const texts of sent.values()) {
          let generic = false;
          for (const text of texts) {
            if (/^BEGIN/.test(text))
              generic = text.includes('plan_cache_mode = force_generic_plan');
            if (/^(COMMIT|ROLLBACK)/.test(text)) generic = false;
            if (!reads.test(text)) continue;
            expect(generic, text.slice(0, 80)).toBe(true);
            checked++;
          }
        }
        expect(checked).toBeGreaterThanOrEqual(4);
        const inserting = [...sent].filter(([, texts]) =>
          texts.some((t) => /INSERT INTO journal_/.test(t)),
        );
        expect(inserting.map(([client]) => client.pipeline)).toEqual([sizeHint === null]);
        expect(await L.check()).toEqual([]);
      } finally {
        pg.Client.prototype.query = query;
        await store.close();
        await L.close();
      }
    },
  );
});
