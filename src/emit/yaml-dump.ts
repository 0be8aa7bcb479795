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

function dumpWith(s: Style, value: unknown): string {
  if (!isPlainObject(value)) return yaml.dump(value, s.options);
  const body = mapping(s, value, 0, true);
  return body === OUTSIDE ? yaml.dump(value, s.options) : `${body}\n`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

const INDENTS = Array.from({ length: 16 }, (_, level) => '  '.repeat(level));
const indent = (level: number) => INDENTS[level] ?? '  '.repeat(level);

function node(s: Style, value: unknown, level: number, compact: boolean): string | typeof OUTSIDE {
  if (Array.isArray(value)) return value.length ? sequence(s, value, level, compact) : '[]';
  if (isPlainObject(value)) return mapping(s, value, level, compact);
  return scalar(s, value, level);
}

/** A block mapping at `level` (js-yaml's writeBlockMapping); `compact`: its first pair goes on the current line. */
function mapping(s: Style, object: Record<string, unknown>, level: number, compact: boolean): string | typeof OUTSIDE {
  let out = '';
  for (const key of Object.keys(object)) {
    const value = object[key];
    // js-yaml leaves out a pair whose value it cannot represent: undefined is the one our documents hold
    if (value === undefined) continue;
    const keyText = keyScalar(s, key);
    if (keyText === OUTSIDE) return OUTSIDE;
    const valueText = node(s, value, level + 1, false);
    if (valueText === OUTSIDE) return OUTSIDE;
    if (!compact || out !== '') out += `\n${indent(level)}`;
    out += keyText;
    out += valueText === '' || valueText.charCodeAt(0) === 10 ? ':' : ': ';
    out += valueText;
  }
  // every value undefined: an empty mapping, written as {}
  return out === '' ? '{}' : out;
}

/** A block sequence at `level` (js-yaml's writeBlockSequence): each item starts its own line unless `compact`. */
function sequence(s: Style, items: unknown[], level: number, compact: boolean): string | typeof OUTSIDE {
  let out = '';
  for (const raw of items) {
    // js-yaml writes an undefined item as null
    const item = node(s, raw === undefined ? null : raw, level + 1, true);
    if (item === OUTSIDE) return OUTSIDE;
    if (!compact || out !== '') out += `\n${indent(level)}`;
    out += item === '' || item.charCodeAt(0) === 10 ? '-' : '- ';
    out += item;
  }
  return out;
}

/**
 * A scalar at `level` (1 or deeper), as js-yaml writes it: asked of js-yaml (as a top mapping's value,
 * level 1) once. A one-line text stands as it is at any level; a literal block (a multi-line string) is
 * its header (`|`, `|-`, an indentation indicator: the same at every level, as a level's content is
 * always two spaces in from its parent) and its lines, each but the empty ones indented two spaces a level.
 */
function scalar(s: Style, value: unknown, level: number): string | typeof OUTSIDE {
  if (s.quoted && typeof value === 'string' && PLAIN_QUOTABLE.test(value)) return `"${value}"`;
  const kept = s.valueTexts.get(value);
  if (kept !== undefined) return typeof value === 'string' && kept.startsWith('|') ? literalBlock(kept, value, level) : kept;
  if (typeof value === 'string') {
    // a block ending in an empty line makes js-yaml end the document with "...": its part
    if (value.includes('\r') || value === '\n' || value.endsWith('\n\n')) return OUTSIDE;
  } else if (typeof value === 'number') {
    // the map takes -0 for 0 (SameValueZero); js-yaml does not
    if (Object.is(value, -0)) return OUTSIDE;
  } else if (typeof value !== 'boolean' && value !== null) {
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
