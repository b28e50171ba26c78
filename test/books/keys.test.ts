import { expect, it } from 'vitest';
import { SqliteLedger } from '../../src/ledger/sqlite/ledger.js';
import { copyTemplate } from '../support/ledgers.js';

it('mints key ids that can be typed after `books keys revoke`: none starts with "-"', async () => {
  const ledger = SqliteLedger.open(copyTemplate('standard').ledger);
  try {
    // One id in 64 started with '-' before; among 2,000 the chance of missing it is 2e-14.
    const ids = [];
    for (let i = 0; i < 2000; i++) ids.push((await ledger.keys.create(null, ['read'])).id);
    expect(new Set(ids).size).toBe(2000);
    expect(ids.filter((id) => id.startsWith('-'))).toEqual([]);
  } finally {
    await ledger.close();
  }
});
