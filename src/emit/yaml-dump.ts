// The YAML of the emitters' documents (compose blocks, Kubernetes objects): exactly js-yaml's dump with
// DUMP_OPTIONS, made without its generic path. Those documents are plain objects, arrays and one-line
// scalars, which js-yaml lays out by fixed rules (two spaces a level, a sequence's items under its key,
// a mapping in a sequence item starting on the dash's line, empty collections as {} and []); what takes
// its time is choosing each scalar's style (plain, quoted, literal block) by a dozen pattern tests. Below
// the top level, a one-line scalar's text does not depend on where it stands (lineWidth -1: nothing
// folds) and a literal block's only by its indentation, so each is asked of js-yaml once and kept, for
// the whole process (a function of the value alone). Anything else (a block ending in an empty line, a
// long or odd key, -0, a class instance, a function) dumps the whole document with js-yaml itself. test/engine/yaml-dump.test.ts holds the two equal on every emitted document.
// Two styles, each with the texts it kept: the emitters' documents, and the framework configs' reference
// files (bundle/framework-config.ts), where every string value is double-quoted.
import * as yaml from 'js-yaml';

/** The options of every emitted document: no line folding, no anchors, double quotes where quoting is needed. */
export const DUMP_OPTIONS: yaml.DumpOptions = { lineWidth: -1, noRefs: true, quoteStyle: 'double', sortKeys: false };

/** The same with every string value double-quoted (keys stay plain where they can). */
export const QUOTED_DUMP_OPTIONS: yaml.DumpOptions = { ...DUMP_OPTIONS, forceQuotes: true };

/** A value outside the subset laid out here: the document goes to js-yaml whole. */
const OUTSIDE = Symbol('outside');

/** One set of dump options with its scalars' texts as values and as keys, asked of js-yaml once each; emptied whole past MAX_KEPT entries. */
interface Style { options: yaml.DumpOptions; valueTexts: Map<unknown, string>; keyTexts: Map<string, string>; quoted: boolean }
const MAX_KEPT = 50_000;

const style = (options: yaml.DumpOptions): Style => ({ options, valueTexts: new Map(), keyTexts: new Map(), quoted: options.forceQuotes === true });
const EMITTED = style(DUMP_OPTIONS);
const QUOTED = style(QUOTED_DUMP_OPTIONS);

/**
 * A string js-yaml writes as itself in double quotes when quotes are forced: printable ASCII without `"`
 * and `\` (nothing to escape, nothing to fold at lineWidth -1). Most strings of a reference file are, and
 * skip the kept texts' map.
 */
const PLAIN_QUOTABLE = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** js-yaml's dump of `value` with DUMP_OPTIONS, byte for byte. */
export function dumpYaml(value: unknown): string {
  return dumpWith(EMITTED, value);
}

/** js-yaml's dump of `value` with QUOTED_DUMP_OPTIONS, byte for byte. */
export function dumpQuotedYaml(value: unknown): string {
  return dumpWith(QUOTED, value);
}

/**
 * Texts of whole documents and of list items, by the JSON of the value they were dumped from: a value's
 * text is a function of the value, and for plain data (isPlainData) its JSON names it exactly. Emptied
 * whole past MAX_KEPT_CHARS of texts.
 */
class KeptTexts {
  private readonly texts = new Map<string, string>();
  private chars = 0;

  get(json: string): string | undefined {
    return this.texts.get(json);
  }

  set(json: string, text: string): void {
    if (this.chars + json.length + text.length > MAX_KEPT_CHARS) {
      this.texts.clear();
      this.chars = 0;
    }
    this.texts.set(json, text);
    this.chars += json.length + text.length;
  }
}
const MAX_KEPT_CHARS = 4 * 1024 * 1024;
const keptDocuments = new KeptTexts();
const keptItems = new KeptTexts();
/** The texts of frozen list items (dumpQuotedListKept), by the item: kept as long as it lives. */
const itemTexts = new WeakMap<object, string>();

/**
 * Data whose JSON tells it from every other value the dumper could be given: strings, booleans, null,
 * finite numbers but -0, and arrays and plain objects of those (an undefined value in an object is left
 * out by both). NaN, -0 or a class instance could share a JSON with another value and dump otherwise.
 */
function isPlainData(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0);
    case 'undefined':
      return true;
    case 'object':
      if (value === null) return true;
      if (Array.isArray(value)) return value.every((item) => item !== undefined && isPlainData(item));
      if (!isPlainObject(value)) return false;
      for (const key of Object.keys(value)) if (!isPlainData((value as Record<string, unknown>)[key])) return false;
      return true;
    default:
      return false;
  }
}

/**
 * dumpQuotedYaml(value) for a document that recurs whole (a framework reference file's skill packs: the
 * same for every stack with those packs): its text is kept by its JSON.
 */
export function dumpQuotedYamlKept(value: Record<string, unknown>): string {
  if (!isPlainData(value)) return dumpQuotedYaml(value);
  const json = JSON.stringify(value);
  let text = keptDocuments.get(json);
  if (text === undefined) keptDocuments.set(json, (text = dumpQuotedYaml(value)));
  return text;
}

/**
 * dumpQuotedYaml({ [key]: items }) for a list whose items recur from stack to stack (the services of a
 * reference file): each item's lines are kept, by the item where it is frozen (a frozen item is taken as
 * frozen through and through: the catalogue's and the kept items of framework-config.ts are), else by its
 * JSON. The items of a block sequence are independent lines, so the list is its key and its items' texts
 * one after another.
 */
export function dumpQuotedListKept(key: string, items: readonly unknown[]): string {
  const keyText = keyScalar(QUOTED, key);
  if (!items.length || keyText === OUTSIDE) return dumpQuotedYaml({ [key]: items });
  const out = [keyText, ':'];
  for (const item of items) {
    const frozen = typeof item === 'object' && item !== null && Object.isFrozen(item);
    let text = frozen ? itemTexts.get(item) : undefined;
    if (text === undefined) {
      if (!isPlainData(item) || item === undefined) return dumpQuotedYaml({ [key]: items });
      const json = JSON.stringify(item);
      text = keptItems.get(json);
      if (text === undefined) {
        // as writeSequence writes an item of a list at level 1
        const parts = [lineStart(1), '- '];
        if (!writeNode(QUOTED, item, 2, true, parts)) return dumpQuotedYaml({ [key]: items });
        settleIndicator(parts, 1, '-');
        keptItems.set(json, (text = parts.join('')));
      }
      if (frozen) itemTexts.set(item as object, text);
    }
    out.push(text);
  }
  out.push('\n');
  return out.join('');
}

/**
 * dumpYaml(value) with every non-empty line two spaces in, as the entries of a mapping under a parent key
 * (compose's services under `services:`): written at that depth rather than indented after, which was a
 * pattern replace over every line of every block. A literal block's empty lines stay empty either way.
 */
export function dumpYamlNested(value: Record<string, unknown>): string {
  const entries = isPlainObject(value) ? dumpEntriesAt(value, 1) : undefined;
  // the first entry written at level 1 starts on a line of its own: that line break is dropped
  if (entries?.startsWith(lineStart(1))) return `${entries.slice(1)}\n`;
  return dumpYaml(value).replace(/^(?=.)/gm, '  ');
}

/**
 * The entries of `value` as they stand at `level` inside a document dumped with DUMP_OPTIONS: each starts a
 * line of its own (a line break, then the level's indentation). A block mapping's entries are independent
 * lines, so a document can be put together from such texts (compose.ts keeps parts of a block). '' for no
 * entry; undefined for a value outside the subset laid out here (the caller dumps the whole document).
 */
export function dumpEntriesAt(value: Readonly<Record<string, unknown>>, level: number): string | undefined {
  const out: string[] = [];
  if (!writeMapping(EMITTED, value, level, false, out)) return undefined;
  // no entry: writeMapping writes the {} of an empty mapping, which has no place among entries
  return out.length === 1 && out[0] === '{}' ? '' : out.join('');
}

function dumpWith(s: Style, value: unknown): string {
  if (!isPlainObject(value)) return yaml.dump(value, s.options);
  const out: string[] = [];
  if (!writeMapping(s, value, 0, true, out)) return yaml.dump(value, s.options);
  out.push('\n');
  // one flat string from the parts: appending them one by one would build a rope of thousands of
  // small pieces that a later read (a hash, a search) has to flatten
  return out.join('');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

const INDENTS = Array.from({ length: 16 }, (_, level) => '  '.repeat(level));
const indent = (level: number) => INDENTS[level] ?? '  '.repeat(level);
/** A line break and the indentation of `level`: what starts each entry of a block collection after its first. */
const LINE_STARTS = INDENTS.map((pad) => `\n${pad}`);
const lineStart = (level: number) => LINE_STARTS[level] ?? `\n${indent(level)}`;

/**
 * Writes `value` at `level` as parts onto `out`; false when it is outside the subset laid out here (what
 * was written is then dropped: the document goes to js-yaml whole). Every part written is non-empty, so
 * the first part of a value tells how it starts.
 */
function writeNode(s: Style, value: unknown, level: number, compact: boolean, out: string[]): boolean {
  if (Array.isArray(value)) {
    if (!value.length) {
      out.push('[]');
      return true;
    }
    return writeSequence(s, value, level, compact, out);
  }
  if (isPlainObject(value)) return writeMapping(s, value, level, compact, out);
  const text = scalar(s, value, level);
  if (text === OUTSIDE) return false;
  out.push(text);
  return true;
}

/**
 * After a key or a dash at `at` (a part written as ': ' or '- '), the value written from `at + 1`: a value
 * starting a line of its own (a nested block collection) takes the indicator without its space.
 */
function settleIndicator(out: string[], at: number, bare: string): void {
  const first = out[at + 1];
  if (first === undefined || first.charCodeAt(0) === 10) out[at] = bare;
}

/** A block mapping at `level` (js-yaml's writeBlockMapping); `compact`: its first pair goes on the current line. */
function writeMapping(s: Style, object: Record<string, unknown>, level: number, compact: boolean, out: string[]): boolean {
  let first = true;
  for (const key of Object.keys(object)) {
    const value = object[key];
    // js-yaml leaves out a pair whose value it cannot represent: undefined is the one our documents hold
    if (value === undefined) continue;
    const keyText = keyScalar(s, key);
    if (keyText === OUTSIDE) return false;
    if (!compact || !first) out.push(lineStart(level));
    first = false;
    out.push(keyText);
    const at = out.length;
    out.push(': ');
    if (!writeNode(s, value, level + 1, false, out)) return false;
    settleIndicator(out, at, ':');
  }
  // every value undefined: an empty mapping, written as {}
  if (first) out.push('{}');
  return true;
}

/** A block sequence at `level` (js-yaml's writeBlockSequence): each item starts its own line unless `compact`. */
function writeSequence(s: Style, items: unknown[], level: number, compact: boolean, out: string[]): boolean {
  let first = true;
  for (const raw of items) {
    if (!compact || !first) out.push(lineStart(level));
    first = false;
    const at = out.length;
    out.push('- ');
    // js-yaml writes an undefined item as null
    if (!writeNode(s, raw === undefined ? null : raw, level + 1, true, out)) return false;
    settleIndicator(out, at, '-');
  }
  return true;
}

/**
 * A scalar at `level` (1 or deeper), as js-yaml writes it: asked of js-yaml (as a top mapping's value,
 * level 1) once. A one-line text stands as it is at any level; a literal block (a multi-line string) is
 * its header (`|`, `|-`, an indentation indicator: the same at every level, as a level's content is
 * always two spaces in from its parent) and its lines, each but the empty ones indented two spaces a level.
 */
function scalar(s: Style, value: unknown, level: number): string | typeof OUTSIDE {
  if (s.quoted && typeof value === 'string' && PLAIN_QUOTABLE.test(value)) return `"${value}"`;
  // the map takes -0 for 0 (SameValueZero), so it is turned away before the lookup; js-yaml writes it
  if (Object.is(value, -0)) return OUTSIDE;
  const kept = s.valueTexts.get(value);
  if (kept !== undefined) return typeof value === 'string' && kept.startsWith('|') ? literalBlock(kept, value, level) : kept;
  if (typeof value === 'string') {
    // a block ending in an empty line makes js-yaml end the document with "...": its part
    if (value.includes('\r') || value === '\n' || value.endsWith('\n\n')) return OUTSIDE;
  } else if (typeof value !== 'number' && typeof value !== 'boolean' && value !== null) {
    return OUTSIDE;
  }
  const probe = yaml.dump({ k: value }, s.options);
  if (!probe.startsWith('k: ')) return OUTSIDE;
  let text: string;
  if (probe.indexOf('\n') === probe.length - 1) {
    text = probe.slice(3, -1);
    // a one-line text starting with | would read as a block's header here: js-yaml's part
    if (text.startsWith('|')) return OUTSIDE;
  } else {
    // a literal block: its header is kept, and the probe must be exactly that header and the lines at level 1
    text = probe.slice(3, probe.indexOf('\n') + 1);
    if (!/^\|[1-9]?[-+]?\n$/.test(text) || typeof value !== 'string' || `k: ${literalBlock(text, value, 1)}\n` !== probe) return OUTSIDE;
  }
  if (s.valueTexts.size >= MAX_KEPT) s.valueTexts.clear();
  s.valueTexts.set(value, text);
  return typeof value === 'string' && text.startsWith('|') ? literalBlock(text, value, level) : text;
}

/** A literal block: its header, then each line of `value` indented two spaces a level (empty lines stay empty), without the last line break. */
function literalBlock(header: string, value: string, level: number): string {
  const pad = indent(level);
  let out = header;
  let start = 0;
  while (start < value.length) {
    const end = value.indexOf('\n', start);
    const line = end === -1 ? value.slice(start) : value.slice(start, end + 1);
    if (line !== '\n') out += pad;
    out += line;
    start = end === -1 ? value.length : end + 1;
  }
  return out.endsWith('\n') ? out.slice(0, -1) : out;
}

/** A key as js-yaml writes it in a block mapping (a plain or quoted scalar), asked of js-yaml once. */
function keyScalar(s: Style, key: string): string | typeof OUTSIDE {
  const kept = s.keyTexts.get(key);
  if (kept !== undefined) return kept;
  // a key with a line break or over 1024 characters is an explicit pair (? key): js-yaml's part
  if (key.length > 1000 || key.includes('\n') || key.includes('\r')) return OUTSIDE;
  const probe = yaml.dump({ [key]: null }, s.options);
  if (probe.startsWith('?') || !probe.endsWith(': null\n') || probe.indexOf('\n') !== probe.length - 1) return OUTSIDE;
  const text = probe.slice(0, -': null\n'.length);
  if (s.keyTexts.size >= MAX_KEPT) s.keyTexts.clear();
  s.keyTexts.set(key, text);
  return text;
}
