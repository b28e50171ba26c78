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
  !s.includes('&')
    ? s
    : s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
        if (e[0] === '#')
          return String.fromCodePoint(
            e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)),
          );
        return ENTITIES[e.toLowerCase()] ?? m;
      });

/**
 * The aggregates of the OFX specification (what holds other elements). SGML files leave out the
 * closing tags of elements, not of aggregates: an element with no value before the next tag is an
 * aggregate only if its name is one, else an element left empty (`<SIC>`, `<DTAVAIL>`), which takes
 * none of the fields after it.
 */
const AGGREGATES = new Set([
  'OFX',
  'FI',
  'STATUS',
  'BANKTRANLIST',
  'STMTTRN',
  'PAYEE',
  'CURRENCY',
  'ORIGCURRENCY',
  'LEDGERBAL',
  'AVAILBAL',
  'BALLIST',
  'BAL',
  'INVBANKTRAN',
  'INVBAL',
  'INVPOS',
  'INVTRAN',
  'INCTRAN',
  'IMAGEDATA',
  'MKTGINFO',
  'STMTENDRS',
  'CCSTMTENDRS',
  'CLOSING',
  'SECINFO',
  'SECID',
  'STOCKINFO',
  'MFINFO',
]);
const AGGREGATE_ENDINGS = /(MSGSRSV\d|MSGSRQV\d|TRNRS|TRNRQ|RS|RQ|LIST|ACCTFROM|ACCTTO)$/;
const isAggregate = (tag: string) => AGGREGATES.has(tag) || AGGREGATE_ENDINGS.test(tag);

/**
 * The element tree under `<OFX>`. A tag followed by text is a leaf (its closing tag, when the file
 * has one, is passed over); a tag followed by another tag opens an aggregate, closed by its closing
 * tag, or by the closing tag of an aggregate around it (SGML leaves some out: a 1.x file's
 * transactions may nest one inside the other, thousands deep). Comments are passed over and CDATA
 * sections are text.
 *
 * One pass, without recursion or backtracking: every search goes forward from where the last ended,
 * so a file of any shape (unclosed comments or tags, deep nesting) is read or refused in time linear
 * in its size.
 */
export function parseOfx(text: string): OfxNode {
  const start = text.search(/<OFX[\s>]/i);
  if (start < 0) throw new Error('no <OFX> element');
  const tree = new OfxTree();
  const n = text.length;
  let i = start;
  // Where the text not yet added to a value starts: a `<` that opens no tag stays in it.
  let from = start;
  while (i < n) {
    const lt = text.indexOf('<', i);
    const next = lt < 0 ? -1 : text.charCodeAt(lt + 1);
    // `<` before anything but a name, `/`, `!` or `?` is text (`A < B`); `<T…` is a tag.
    if (lt >= 0 && !(isNameChar(next) || next === 47 || next === 33 || next === 63)) {
      i = lt + 1;
      continue;
    }
    tree.text(text, from, lt < 0 ? n : lt);
    if (lt < 0) break;
    const skipped = passedOver(text, lt);
    if (skipped !== null) {
      i = from = skipped.end;
      if (skipped.cdata !== undefined) tree.cdata(skipped.cdata);
      continue;
    }
    const gt = text.indexOf('>', lt + 1);
    if (gt < 0 || text.lastIndexOf('<', gt) !== lt)
      throw new Error(`a tag at character ${lt + 1} is not closed with '>'`);
    i = from = gt + 1;
    if (next === 33 || next === 63) continue; // <!DOCTYPE …>, <?xml …?>
    const closing = next === 47;
    let e = lt + (closing ? 2 : 1);
    const nameStart = e;
    while (e < gt && isNameChar(text.charCodeAt(e))) e++;
    if (e === nameStart)
      throw new Error(`'${text.slice(lt, gt + 1)}' at character ${lt + 1} is not a tag`);
    const tag = text.slice(nameStart, e).toUpperCase();
    if (closing) tree.close(tag);
    else tree.open(tag, text.charCodeAt(gt - 1) === 47);
  }
  return tree.end();
}

/** A comment (passed over) or a CDATA section (text) at `lt`: where it ends; null for neither. */
function passedOver(text: string, lt: number): { end: number; cdata?: string } | null {
  if (text.startsWith('<!--', lt)) {
    const close = text.indexOf('-->', lt + 4);
    if (close < 0) throw new Error(`a comment opened at character ${lt + 1} is not closed`);
    return { end: close + 3 };
  }
  if (text.startsWith('<![CDATA[', lt)) {
    const close = text.indexOf(']]>', lt + 9);
    if (close < 0) throw new Error(`a CDATA section opened at character ${lt + 1} is not closed`);
    return { end: close + 3, cdata: text.slice(lt + 9, close) };
  }
  return null;
}

/** The children of a leaf: none, ever (an aggregate gets an array of its own when it opens). */
const NO_CHILDREN: OfxNode[] = Object.freeze([]) as unknown as OfxNode[];

/** The tree as the tags come: open aggregates on a stack, the last element's value as it is read. */
class OfxTree {
  private readonly root: OfxNode = { tag: 'ROOT', value: null, children: [] };
  private readonly stack: OfxNode[] = [this.root];
  /** How many aggregates of each tag are open: a closing tag finds its own without a search. */
  private readonly openCount = new Map<string, number>();
  private lastLeaf: string | null = null;
  /** The element whose value the text after it is, until the next tag; and whether it is `<X/>`. */
  private pending: OfxNode | null = null;
  private selfClosed = false;
  private value = '';

  text(text: string, from: number, to: number): void {
    if (this.pending && to > from) this.value += decode(text.slice(from, to));
  }

  cdata(raw: string): void {
    if (this.pending) this.value += raw;
  }

  open(tag: string, selfClosed: boolean): void {
    this.settle();
    // No aggregate holds one of its own name, at any depth: a second <STMTTRN> ends the first (and
    // what opened in it), which SGML leaves open; so a 1.x file's transactions are siblings, and no
    // repetition of tags, however nested, makes a file deep.
    if ((this.openCount.get(tag) ?? 0) > 0) while (this.pop().tag !== tag);
    const node: OfxNode = { tag, value: null, children: NO_CHILDREN };
    this.stack[this.stack.length - 1]!.children.push(node);
    this.pending = node;
    this.selfClosed = selfClosed;
  }

  close(tag: string): void {
    this.settle();
    if (tag !== this.lastLeaf && (this.openCount.get(tag) ?? 0) > 0) while (this.pop().tag !== tag);
    this.lastLeaf = null;
  }

  /**
   * Ends the innermost open aggregate. One that holds nothing is let go (it is its parent's last
   * child): a file of millions of empty elements keeps no more than a file of none.
   */
  private pop(): OfxNode {
    const top = this.stack.pop()!;
    this.openCount.set(top.tag, this.openCount.get(top.tag)! - 1);
    if (top.children.length === 0 && top.tag !== 'OFX')
      this.stack[this.stack.length - 1]!.children.pop();
    return top;
  }

  end(): OfxNode {
    this.settle();
    const ofx = this.root.children.find((c) => c.tag === 'OFX');
    if (!ofx) throw new Error('no <OFX> element');
    return ofx;
  }

  private settle(): void {
    const node = this.pending;
    if (!node) return;
    this.pending = null;
    const v = this.value.trim();
    this.value = '';
    node.value = v === '' ? null : v;
    // An empty field (`<NAME/>`, or SGML's `<NAME>` right before the next tag) holds nothing: it
    // opens no aggregate that would take the fields after it.
    if (node.value === null && !this.selfClosed && isAggregate(node.tag)) {
      node.children = [];
      this.stack.push(node);
      this.openCount.set(node.tag, (this.openCount.get(node.tag) ?? 0) + 1);
      this.lastLeaf = null;
      return;
    }
    this.lastLeaf = node.tag;
    // A field that holds nothing reads as one that is not there: it is not kept.
    if (node.value === null) this.stack[this.stack.length - 1]!.children.pop();
  }
}

/** A letter, digit, `_` or `.`: what a tag's name is made of. */
function isNameChar(c: number): boolean {
  return (
    (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95 || c === 46
  );
}

/** Every element with this tag, depth first (without recursion: a file may nest deep). */
export function findAll(node: OfxNode, tag: string): OfxNode[] {
  const out: OfxNode[] = [];
  const todo: OfxNode[] = [...node.children].reverse();
  while (todo.length) {
    const c = todo.pop()!;
    if (c.tag === tag) out.push(c);
    for (let k = c.children.length - 1; k >= 0; k--) todo.push(c.children[k]!);
  }
  return out;
}

/** The value of a leaf directly under a node. */
export const leaf = (node: OfxNode, tag: string): string | null =>
  node.children.find((c) => c.tag === tag)?.value ?? null;
