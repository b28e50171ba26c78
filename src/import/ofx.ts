/**
 * OFX and QFX statements, 1.x (SGML: a leaf's value runs to the next tag, closing tags optional) and
 * 2.x (XML). npm's OFX parsers were left aside: the maintained ones convert SGML to XML with regular
 * expressions that lose a value holding `<` escapes or a tag closed on the same line, and bring an
 * XML parser besides; the format needs no more than the tokenizer below.
 */

/** One element of the file: its tag, its text (a leaf's value) and its children. */
export interface OfxNode {
  tag: string;
  value: string | null;
  children: OfxNode[];
}

/** True when the text is an OFX file (either dialect) rather than a CSV. */
export function looksLikeOfx(text: string): boolean {
  const head = text.slice(0, 4096).trimStart();
  return /^OFXHEADER\s*:/i.test(head) || /^<\?(xml|OFX)/i.test(head) || /<OFX>/i.test(head);
}

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
};
const decode = (s: string) =>
  s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] === '#')
      return String.fromCodePoint(
        e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)),
      );
    return ENTITIES[e.toLowerCase()] ?? m;
  });

/** The fields books reads, which are always leaves (never aggregates) whatever their value. */
const LEAVES = new Set([
  'TRNTYPE',
  'DTPOSTED',
  'DTUSER',
  'TRNAMT',
  'FITID',
  'NAME',
  'MEMO',
  'CHECKNUM',
  'REFNUM',
  'BALAMT',
  'DTASOF',
]);

/**
 * The element tree under `<OFX>`. A tag followed by text is a leaf (its closing tag, when the file
 * has one, is passed over); a tag followed by another tag opens an aggregate, closed by its closing
 * tag, or by the closing tag of an aggregate around it (SGML leaves some out).
 */
export function parseOfx(raw: string): OfxNode {
  // Commented-out parts are not the statement's.
  const text = raw.replace(/<!--[\s\S]*?-->/g, '');
  const start = text.search(/<OFX[\s>]/i);
  if (start < 0) throw new Error('no <OFX> element');
  const root: OfxNode = { tag: 'ROOT', value: null, children: [] };
  const stack: OfxNode[] = [root];
  const re = /<(\/?)([A-Za-z0-9_.]+)([^>]*)>([^<]*)/g;
  re.lastIndex = start;
  let lastLeaf: string | null = null;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const [, closing, rawTag, attributes, rawText] = m;
    const tag = rawTag!.toUpperCase();
    const value = rawText!.trim();
    if (closing) {
      if (tag === lastLeaf) {
        lastLeaf = null;
        continue;
      }
      const at = stack.map((n) => n.tag).lastIndexOf(tag);
      if (at > 0) stack.length = at;
      lastLeaf = null;
      continue;
    }
    const node: OfxNode = { tag, value: value === '' ? null : decode(value), children: [] };
    stack[stack.length - 1]!.children.push(node);
    // An empty field (`<NAME/>`, or SGML's `<NAME>` right before the next tag) holds nothing: it
    // opens no aggregate that would take the fields after it.
    const empty = attributes!.trimEnd().endsWith('/') || LEAVES.has(tag);
    if (node.value === null && !empty) {
      stack.push(node);
      lastLeaf = null;
    } else lastLeaf = tag;
  }
  const ofx = root.children.find((n) => n.tag === 'OFX');
  if (!ofx) throw new Error('no <OFX> element');
  return ofx;
}

/** Every element with this tag, depth first. */
export function findAll(node: OfxNode, tag: string): OfxNode[] {
  const out: OfxNode[] = [];
  const walk = (n: OfxNode) => {
    for (const c of n.children) {
      if (c.tag === tag) out.push(c);
      walk(c);
    }
  };
  walk(node);
  return out;
}

/** The value of a leaf directly under a node. */
export const leaf = (node: OfxNode, tag: string): string | null =>
  node.children.find((c) => c.tag === tag)?.value ?? null;
