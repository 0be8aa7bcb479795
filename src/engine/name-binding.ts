// Late binding of the stack name. Most of a bundle does not depend on the name, and where it does, the
// name is only concatenated into text (paths, unit names, comments, .env). So a stack of a given shape
// (the request without its name) is rendered once with a placeholder name, and each new name is bound
// by putting it where the placeholder was (bundle-shape.ts): a new name costs no render. Guards keep this
// exact: the placeholder must appear only verbatim (no template changed its case, dashes or length),
// and only names that no quoting rule treats differently from the placeholder are bound this way.

/** A valid stack name no real request uses, with a dash so a template that rewrites dashes shows up. */
export const NAME_PLACEHOLDER = 'zq-stackwright-name-qz';

// words YAML 1.1/1.2 readers turn into booleans or null when unquoted
const YAML_WORDS = new Set(['y', 'n', 'yes', 'no', 'true', 'false', 'on', 'off', 'null']);

/** Whether a name may replace the placeholder: a letter first (never numeric-looking) and no YAML word. */
export function bindableName(name: string): boolean {
  return /^[a-z][a-z0-9_-]*$/.test(name) && !YAML_WORDS.has(name);
}

/** Whether every trace of the placeholder in these texts is the whole placeholder, as written. */
export function placeholderVerbatim(texts: Iterable<string>): boolean {
  const whole = NAME_PLACEHOLDER.length;
  for (const text of texts) {
    // any piece of it (a prefix or suffix left by truncation, another case, dashes rewritten)
    for (const m of text.matchAll(/zq[-_.]?stack|stackwright[-_.]?name|name[-_.]?qz/gi)) {
      const start = text.lastIndexOf('zq-stackwright-name-qz', m.index);
      if (start < 0 || m.index! + m[0].length > start + whole || text.slice(start, start + whole) !== NAME_PLACEHOLDER) return false;
    }
  }
  return true;
}
