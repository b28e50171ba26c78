import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { fromTemplate, pgFixture, sqliteFixture } from '../support/fixtures.js';
import { postEntry, RENT_ENTRY } from '../support/helpers.js';

// A server remembers the keys it granted posts (the post's write reads the key again, under the
// entity's lock): a key another process revokes is refused at the next request all the same, by
// every route.
describe.each([sqliteFixture, pgFixture].map((f) => [f.name, f] as const))(
  'a key revoked by another process while a server on %s remembers it',
  (_n, fixture) => {
    it('is refused (401, CAPI11) at its next post, replayed, malformed or several at once; posts nothing', async () => {
      const L = await fromTemplate(fixture, 'standard');
      try {
        const { url } = await L.serve();
        const { key, id } = await L.store.keys.create('robot', [
          'customer_api:post_journal_entries',
          'customer_api:read',
        ]);
        const post = (idempotencyKey: string, body?: unknown) =>
          postEntry(url, key, idempotencyKey, body);
        expect((await post('first')).status).toBe(201);
        expect((await post('second')).status).toBe(201);
        // A key that may only read: its post is refused for the permission, its grant remembered.
        const reader = await L.store.keys.create('reader', ['customer_api:read']);
        expect((await postEntry(url, reader.key, 'read-1')).status).toBe(403);
        for (const k of [id, reader.id]) {
          const revoked = await L.books(['keys', 'revoke', k]);
          expect(revoked.exitCode, revoked.stderr).toBe(0);
        }
        const after = await Promise.all([
          postEntry(url, reader.key, 'read-2'),
          post('third'),
          post('first'),
          post('fourth'),
          post('fifth'),
          // A body the key could not have posted anyway: the key is what it is told of first.
          post('sixth', { ...RENT_ENTRY, lines: [] }),
          post('seventh', { ...RENT_ENTRY, entry_date: 'soon' }),
          post('eighth', { lines: 'none' }),
          post('ninth', 'not an entry'),
        ]);
        const raw = (path: string, body: string, headers: Record<string, string> = {}) =>
          fetch(`${url}${path}`, {
            method: 'POST',
            headers: {
              Authorization: `Bearer ${key}`,
              'Content-Type': 'application/json',
              ...headers,
            },
            body,
          });
        after.push(
          await raw('/v1/journal-entries', '{"lines": [', { 'X-Idempotency-Key': 'tenth' }),
          await raw('/v1/journal-entries', JSON.stringify(RENT_ENTRY)),
          await raw('/v1/journal-entries/JE-1/reverse', '{"entry_date": "soon"}', {
            'X-Idempotency-Key': 'undo',
          }),
        );
        for (const r of after) {
          expect(r.status).toBe(401);
          expect(((await r.json()) as { code: string }).code).toBe('CAPI11');
        }
        const read = await fetch(`${url}/v1/journal-entries/JE-1`, {
          headers: { Authorization: `Bearer ${key}` },
        });
        expect(read.status).toBe(401);
        expect((await L.journal()).map((e) => e.je_number)).toEqual(['JE-1', 'JE-2']);
        expect(await L.check()).toEqual([]);
      } finally {
        await L.close();
      }
    });

    it('refuses a post whose body arrives after the revocation, and a reversal, by a key once granted', async () => {
      const L = await fromTemplate(fixture, 'standard');
      try {
        const { url } = await L.serve();
        const { key, id } = await L.store.keys.create('late', [
          'customer_api:post_journal_entries',
        ]);
        const posted = await L.store.journal.post(RENT_ENTRY, { idempotencyKey: 'by-cli' });
        // A fresh key's first post: its headers (and the grant) before the revocation, its body after.
        let held = () => {};
        const body = JSON.stringify(RENT_ENTRY);
        const target = new URL(`${url}/v1/journal-entries`);
        const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
          const req = http.request(
            {
              host: target.hostname,
              port: target.port,
              path: target.pathname,
              method: 'POST',
              headers: {
                Authorization: `Bearer ${key}`,
                'Content-Type': 'application/json',
                'Content-Length': Buffer.byteLength(body),
                'X-Idempotency-Key': 'late',
              },
            },
            (res) => {
              let text = '';
              res.on('data', (c) => (text += c));
              res.on('end', () => resolve({ status: res.statusCode!, text }));
            },
          );
          req.on('error', reject);
          req.write(body.slice(0, 5));
          held = () => req.end(body.slice(5));
        });
        // The server (in this process) reads the headers and grants the key while the CLI runs.
        const revoked = await L.books(['keys', 'revoke', id]);
        expect(revoked.exitCode, revoked.stderr).toBe(0);
        held();
        const late = await answer;
        expect(late.status, late.text).toBe(401);
        const reversal = await fetch(`${url}/v1/journal-entries/${posted.id}/reverse`, {
          method: 'POST',
          headers: {
            Authorization: `Bearer ${key}`,
            'Content-Type': 'application/json',
            'X-Idempotency-Key': 'undo',
          },
          body: '{}',
        });
        expect(reversal.status).toBe(401);
        expect((await L.journal()).map((e) => e.je_number)).toEqual(['JE-1']);
      } finally {
        await L.close();
      }
    });
  },
);
