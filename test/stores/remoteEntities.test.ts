import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { databaseUrl } from '../support/fixtures.js';
import { books, serve, tempDir, writeFile } from '../support/helpers.js';
import { keyFor } from '../support/keys.js';

describe('one books serve over a database with two entities, imported into through remote profiles', () => {
  it('the same file imported into each entity, with each entity’s key, posts in both', async () => {
    const url = databaseUrl();
    const dir = tempDir();
    const keys: string[] = [];
    for (const entity of ['remote-a', 'remote-b']) {
      const at = ['--ledger', url, '--entity', entity];
      const init = await books(['init', '--chart', 'standard', '--first-month', '2025-01', ...at]);
      expect(init.exitCode, init.stderr).toBe(0);
      keys.push(await keyFor((args) => books([...args, ...at])));
    }
    const file = writeFile(
      dir,
      'rent.csv',
      'entry,entry_date,memo,gl_account_id,debit,credit\n' +
        '1,2025-01-31,January rent,rent,2500.00,\n1,2025-01-31,,checking,,2500.00\n' +
        '2,2025-02-28,February rent,rent,2500.00,\n2,2025-02-28,,checking,,2500.00\n',
    );
    const S = await serve(url);
    try {
      // One machine, one receipts file: what it posted with one key is not what the other posted.
      const env = (key: string) => ({
        BOOKS_CONFIG: join(dir, 'config.json'),
        BOOKS_API_KEY: key,
        BOOKS_RECEIPTS: join(dir, 'receipts.sqlite'),
      });
      const add = await books(['profile', 'add', 'office', '--url', S.url], {
        cwd: dir,
        env: env(''),
      });
      expect(add.exitCode, add.stderr).toBe(0);
      for (const key of keys) {
        const r = await books(['je', 'import', file, '--profile', 'office'], {
          cwd: dir,
          env: env(key),
        });
        expect(r.exitCode, r.stdout + r.stderr).toBe(0);
      }
    } finally {
      await S.stop();
    }
    for (const entity of ['remote-a', 'remote-b']) {
      const shown = await books([
        'entity',
        'show',
        '--format',
        'json',
        '--ledger',
        url,
        '--entity',
        entity,
      ]);
      expect(JSON.parse(shown.stdout).entry_count, entity).toBe(2);
    }
  });

  it('--allow-duplicates keeps the receipts of what was new: a later run posts nothing again', async () => {
    const url = databaseUrl();
    const dir = tempDir();
    const at = ['--ledger', url, '--entity', 'remote-dup'];
    const init = await books(['init', '--chart', 'standard', '--first-month', '2025-01', ...at]);
    expect(init.exitCode, init.stderr).toBe(0);
    const key = await keyFor((args) => books([...args, ...at]));
    const rent = (n: number) =>
      `${n},2025-0${n}-28,Rent ${n},rent,2500.00,\n${n},2025-0${n}-28,,checking,,2500.00\n`;
    const head = 'entry,entry_date,memo,gl_account_id,debit,credit\n';
    const part = writeFile(dir, 'part.csv', head + rent(1));
    const whole = writeFile(dir, 'whole.csv', head + rent(1) + rent(2));
    const S = await serve(url);
    try {
      const env = {
        BOOKS_CONFIG: join(dir, 'config.json'),
        BOOKS_API_KEY: key,
        BOOKS_RECEIPTS: join(dir, 'receipts.sqlite'),
      };
      const run = (args: string[]) => books(args, { cwd: dir, env });
      expect((await run(['profile', 'add', 'office', '--url', S.url])).exitCode).toBe(0);
      for (const args of [
        ['je', 'import', part, '--profile', 'office'],
        ['je', 'import', whole, '--profile', 'office', '--allow-duplicates'],
        ['je', 'import', whole, '--profile', 'office'],
      ]) {
        const r = await run(args);
        expect(r.exitCode, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(0);
      }
    } finally {
      await S.stop();
    }
    const shown = await books(['entity', 'show', '--format', 'json', ...at]);
    // The first entry twice (the second time as asked), the second once.
    expect(JSON.parse(shown.stdout).entry_count).toBe(3);
  });
});
