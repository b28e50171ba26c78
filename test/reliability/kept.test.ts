import { afterEach, describe, expect, it } from 'vitest';
import { SqliteLedger } from '../../src/ledger/sqlite/ledger.js';
import { FIXTURES, fromTemplate, type FixtureLedger } from '../support/fixtures.js';
import { copyTemplate } from '../support/ledgers.js';

/**
 * What a ledger keeps between requests (its entity, chart and keys) must follow every change: one
 * another process commits, and one the ledger's own writes make.
 */
describe('what a served ledger file keeps between requests', () => {
  it('a key revoked by another process is refused at the next request, whatever came before it', async () => {
    const { ledger: file } = copyTemplate('standard');
    const served = SqliteLedger.open(file);
    // Another process, as `books keys revoke` would be: its own connection to the file.
    const cli = SqliteLedger.open(file);
    try {
      const { key, id } = await cli.keys.create('robot', ['customer_api:post_journal_entries']);
      expect(await served.keys.authenticate(key)).not.toBeNull();
      await cli.keys.revoke(id);
      expect(await served.keys.authenticate(key)).toBeNull();
    } finally {
      await cli.close();
      await served.close();
    }
  });
});

describe.each(FIXTURES.map((f) => [f.name, f] as const))(
  'settings changed one after the other on %s',
  (_name, fixture) => {
    let L: FixtureLedger | null = null;
    afterEach(async () => {
      await L?.close();
      L = null;
    });

    it('the second of two exchange-account settings keeps the first', async () => {
      L = await fromTemplate(fixture, 'fx');
      await L.store.fx.setAccounts({ fx_realized: 'interest-income' });
      const second = await L.store.fx.setAccounts({ fx_unrealized: 'interest-income' });
      expect(second).toMatchObject({
        fx_realized: 'interest-income',
        fx_unrealized: 'interest-income',
      });
      const shown = await L.books(['entity', 'show', '--format', 'json']);
      expect(JSON.parse(shown.stdout)).toMatchObject({
        fx_realized: 'interest-income',
        fx_unrealized: 'interest-income',
      });
    });
  },
);
