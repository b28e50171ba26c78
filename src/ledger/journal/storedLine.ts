import { withFx, type FxColumns } from '../../domain/fx.js';
import type { StoredEntry } from './store.js';
import { tagsOf } from '../../domain/tags.js';

/** A line's stored tags (effective, JSON) as a store reads them beside its other columns. */
export interface LineTags {
  line_tags: string | null;
}

/** A stored line as a reversal reads it: its snapshot and its effective tags. */
export function storedLine(
  l: Omit<StoredEntry['lines'][number], 'fx' | 'system' | 'tags'> & FxColumns & LineTags,
): StoredEntry['lines'][number] {
  const { line_tags: tags, ...rest } = l;
  return { ...withFx(rest), ...(tags ? { tags: tagsOf(tags) } : {}) };
}
