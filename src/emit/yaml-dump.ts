// The YAML of the emitters' documents (compose blocks, Kubernetes objects): exactly js-yaml's dump with
// DUMP_OPTIONS, made without its generic path. Those documents are plain objects, arrays and one-line
// scalars, which js-yaml lays out by fixed rules (two spaces a level, a sequence's items under its key,
// a mapping in a sequence item starting on the dash's line, empty collections as {} and []); what takes
// its time is choosing each scalar's style (plain, quoted, literal block) by a dozen pattern tests. Below
// the top level, a one-line scalar's text does not depend on where it stands (lineWidth -1: nothing
// folds) and a literal block's only by its indentation, so each is asked of js-yaml once and kept, for
// the whole process (a function of the value alone). Anything else (a block ending in an empty line, a
// long or odd key, -0, a class instance, a function) dumps the whole document with js-yaml itself. test/engine/yaml-dump.test.ts holds the two equal on every emitted document.
import * as yaml from 'js-yaml';

/** The options of every emitted document: no line folding, no anchors, double quotes where quoting is needed. */
export const DUMP_OPTIONS: yaml.DumpOptions = { lineWidth: -1, noRefs: true, quoteStyle: 'double', sortKeys: false };

/** A value outside the subset laid out here: the document goes to js-yaml whole. */
const OUTSIDE = Symbol('outside');

/** Scalars' texts as values and as keys, asked of js-yaml once each; emptied whole past MAX_KEPT entries. */
const valueTexts = new Map<unknown, string>();
const keyTexts = new Map<string, string>();
const MAX_KEPT = 50_000;

/** js-yaml's dump of `value` with DUMP_OPTIONS, byte for byte. */
export function dumpYaml(value: unknown): string {
  if (!isPlainObject(value)) return yaml.dump(value, DUMP_OPTIONS);
  const body = mapping(value, 0, true);
  return body === OUTSIDE ? yaml.dump(value, DUMP_OPTIONS) : `${body}\n`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

const indent = (level: number) => '  '.repeat(level);

function node(value: unknown, level: number, compact: boolean): string | typeof OUTSIDE {
  if (Array.isArray(value)) return value.length ? sequence(value, level, compact) : '[]';
  if (isPlainObject(value)) return mapping(value, level, compact);
  return scalar(value, level);
}

/** A block mapping at `level` (js-yaml's writeBlockMapping); `compact`: its first pair goes on the current line. */
function mapping(object: Record<string, unknown>, level: number, compact: boolean): string | typeof OUTSIDE {
  let out = '';
  for (const key of Object.keys(object)) {
    const value = object[key];
    // js-yaml leaves out a pair whose value it cannot represent: undefined is the one our documents hold
    if (value === undefined) continue;
    const keyText = keyScalar(key);
    if (keyText === OUTSIDE) return OUTSIDE;
    const valueText = node(value, level + 1, false);
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
function sequence(items: unknown[], level: number, compact: boolean): string | typeof OUTSIDE {
  let out = '';
  for (const raw of items) {
    // js-yaml writes an undefined item as null
    const item = node(raw === undefined ? null : raw, level + 1, true);
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
function scalar(value: unknown, level: number): string | typeof OUTSIDE {
  const kept = valueTexts.get(value);
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
  const probe = yaml.dump({ k: value }, DUMP_OPTIONS);
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
  if (valueTexts.size >= MAX_KEPT) valueTexts.clear();
  valueTexts.set(value, text);
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
function keyScalar(key: string): string | typeof OUTSIDE {
  const kept = keyTexts.get(key);
  if (kept !== undefined) return kept;
  // a key with a line break or over 1024 characters is an explicit pair (? key): js-yaml's part
  if (key.length > 1000 || key.includes('\n') || key.includes('\r')) return OUTSIDE;
  const probe = yaml.dump({ [key]: null }, DUMP_OPTIONS);
  if (probe.startsWith('?') || !probe.endsWith(': null\n') || probe.indexOf('\n') !== probe.length - 1) return OUTSIDE;
  const text = probe.slice(0, -': null\n'.length);
  if (keyTexts.size >= MAX_KEPT) keyTexts.clear();
  keyTexts.set(key, text);
  return text;
}
