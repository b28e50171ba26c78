import type { EntryCheck, EntryRule, LineCheck } from './rules.js';
import { add, at } from './rules.js';
import { effectiveTags, MAX_TAGS, readTags, type Tags } from './tags.js';

/** The entry's own tags (`tags`), each bad key or value CAPI33 `invalid_tag` naming it. */
export const tagRule: EntryRule = (c) => {
  c.tags = readTags(c.body.tags, 'tags', c.problems) ?? {};
};

/**
 * A line's effective tags: the entry's, overridden key by key by the line's own `tags`; at most
 * MAX_TAGS keys in all, as on an entry (its own and its entry's counted once each).
 */
export function lineTags(c: EntryCheck, l: LineCheck): Tags {
  if (l.raw.tags === undefined) return c.tags;
  const own = readTags(l.raw.tags, at(l, 'tags'), c.problems) ?? {};
  const tags = effectiveTags(c.tags, own);
  let keys = 0;
  for (const _ in tags) keys++;
  if (keys > MAX_TAGS)
    add(
      c,
      at(l, 'tags'),
      'invalid_tag',
      `a line has at most ${MAX_TAGS} tags, its entry's and its own; this one would have ${keys}`,
    );
  return tags;
}
