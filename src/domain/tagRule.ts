import type { EntryCheck, EntryRule, LineCheck } from './rules.js';
import { at } from './rules.js';
import { effectiveTags, readTags, type Tags } from './tags.js';

/** The entry's own tags (`tags`), each bad key or value CAPI33 `invalid_tag` naming it. */
export const tagRule: EntryRule = (c) => {
  c.tags = readTags(c.body.tags, 'tags', c.problems) ?? {};
};

/** A line's effective tags: the entry's, overridden key by key by the line's own `tags`. */
export function lineTags(c: EntryCheck, l: LineCheck): Tags {
  if (l.raw.tags === undefined) return c.tags;
  const own = readTags(l.raw.tags, at(l, 'tags'), c.problems) ?? {};
  return effectiveTags(c.tags, own);
}
