import { describe, expect, it } from 'vitest';
import { fromTemplate, pgFixture, sqliteFixture } from '../support/fixtures.js';
import { postEntry } from '../support/helpers.js';

// A server keeps the trail's head between its own groups of posts (on a ledger file it reads it once
// while it posts alone): another process's changes in between must move it on, or the server's next
// event would take a number already taken.
describe.each([sqliteFixture, pgFixture].map((f) => [f.name, f] as const))(
  "a server's posts around other processes' changes on %s",
  (_n, fixture) => {
    it('follow the events those changes made: one chain, no gap, one event per entry', async () => {
      const L = await fromTemplate(fixture, 'standard');
      try {
        const { url, keys } = await L.serve();
        let n = 0;
        const post = () => postEntry(url, keys.post, `head-${++n}`);
        const posted = async (count: number) => {
          for (const r of await Promise.all(Array.from({ length: count }, post)))
            expect(r.status, await r.clone().text()).toBe(201);
        };
        await posted(3);
        // A post and a change that writes no entry, each from another process.
        const cli = await L.books([
          'je',
          'post',
          '--date',
          '2025-03-03',
          '--debit',
          'rent=2.00',
          '--credit',
          'checking=2.00',
        ]);
        expect(cli.exitCode, cli.stderr).toBe(0);
        await posted(1);
        const created = await L.books([
          'keys',
          'create',
          '--permission',
          'customer_api:read',
          '--name',
          'robot',
        ]);
        expect(created.exitCode, created.stderr).toBe(0);
        await posted(4);
        // A change by the server itself between its posts, which writes no entry.
        const budget = await fetch(`${url}/v1/budgets`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${keys.post}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({
            rows: [{ row: 1, gl_account_id: 'rent', period: '2025-03', amount_atoms: 5000 }],
          }),
        });
        expect(budget.status, await budget.clone().text()).toBe(200);
        await posted(2);

        const verify = await L.books(['audit', 'verify']);
        expect(verify.exitCode, verify.stdout + verify.stderr).toBe(0);
        const list = await L.books(['audit', 'list', '--format', 'json']);
        const events = (
          JSON.parse(list.stdout) as { data: { seq: number; action: string; entries: number }[] }
        ).data;
        expect(events.map((e) => e.seq)).toEqual(events.map((_e, i) => i + 1));
        const posts = events.filter((e) => e.action === 'entry.posted');
        expect(posts.map((e) => e.entries)).toEqual(Array<number>(11).fill(1));
        expect((await L.journal()).map((e) => e.je_number)).toEqual(
          Array.from({ length: 11 }, (_e, i) => `JE-${i + 1}`),
        );
        expect(await L.check()).toEqual([]);
      } finally {
        await L.close();
      }
    });
  },
);
