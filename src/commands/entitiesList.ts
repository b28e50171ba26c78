import { command } from '../cli/command.js';
import { errors } from '../domain/errors.js';
import { grid } from '../render/table.js';

export default command({
  help:
    'A ledger file holds one entity; a database (--ledger postgresql://USER@HOST/DB) holds many, ' +
    'named with --entity SLUG.',
  examples: ['books entities list', 'books entities list --format json'],
  options: () => ({}),
  async run(ctx) {
    const store = await ctx.store();
    if (!store) throw errors.usage('books entities list is not offered by a remote profile');
    const list = await store.entities();
    if (ctx.json) return ctx.outJson({ object: 'list', data: list });
    ctx.out(
      grid(
        ['Slug', 'Name', 'Id'],
        list.map((e) => [e.slug ?? '', e.name, e.id]),
      ),
    );
  },
});
