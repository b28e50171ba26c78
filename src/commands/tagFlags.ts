import { errors, type Problem } from '../domain/errors.js';
import { splitTagSuffix, tagPair } from '../domain/tags.js';

/** --tag KEY=VALUE flags as the entry's tags; one that is not KEY=VALUE is a usage error. */
export function tagsFlag(given: string[] | undefined): { tags?: Record<string, string> } {
  if (!given?.length) return {};
  // No prototype: a key typed as `__proto__` is a key like any other, which the ledger refuses.
  const tags = Object.create(null) as Record<string, string>;
  for (const text of given) {
    const pair = tagPair(text);
    if (typeof pair === 'string') throw errors.usage(`--tag: ${pair} (for example project=alpha)`);
    if (Object.hasOwn(tags, pair[0])) throw errors.usage(`--tag: '${pair[0]}' is given twice`);
    tags[pair[0]] = pair[1];
  }
  return { tags };
}

/** A line flag's own tags, which follow the rest: `rent=1200.00@customer:C1#location=nyc`. */
export function tagSuffix(
  side: string,
  typed: string,
  unreadable: Problem[],
): { value: string; ownTags: { tags?: Record<string, string> } } | null {
  const suffix = splitTagSuffix(typed);
  if (typeof suffix !== 'string')
    return {
      value: suffix.rest,
      ownTags: Object.keys(suffix.tags).length ? { tags: suffix.tags } : {},
    };
  const message = `--${side} '${typed}': ${suffix} after #`;
  unreadable.push({ path: `--${side}`, reason: 'invalid_tag', message });
  return null;
}
