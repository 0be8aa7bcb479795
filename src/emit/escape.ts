// Escaping for each context a value can land in. Nothing from a request or a manifest is printed into a
// generated file without going through one of these (or through js-yaml, for the compose file).

/** A bash word: single-quoted, with embedded single quotes closed and reopened. */
export function shellQuote(value: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * A PowerShell single-quoted string. PowerShell also takes the typographic single quotes U+2018-U+201B
 * as quote characters, so each of them is doubled as ' is.
 */
export function psQuote(value: string): string {
  return `'${value.replace(/['\u2018-\u201B]/g, (q) => q + q)}'`;
}

/** A YAML scalar in double quotes (JSON strings are valid YAML). */
export function yamlScalar(value: unknown): string {
  return JSON.stringify(value ?? null);
}

/** A literal for Compose: `$` would start an interpolation, so it is doubled. */
export function composeLiteral(value: string): string {
  return value.replace(/\$/g, '$$$$');
}

/** A double-quoted string for Caddyfile and nginx directives. */
export function configString(value: string): string {
  return `"${value.replace(/["\\]/g, '\\$&')}"`;
}

/**
 * A value for a .env line, in the syntax Compose's env-file parser documents: bare when nothing in it is
 * special; single-quoted (taken literally, no interpolation) when it holds no ' and no \; else
 * double-quoted with \ " $ and line breaks escaped, which keeps every character. lib.sh's env_value and
 * install.ps1's Read-DotEnv undo all three forms the way Compose does.
 */
export function dotenvValue(value: string): string {
  if (/^[A-Za-z0-9_./:@%+,=-]*$/.test(value)) return value;
  if (!/['\\\n\r]/.test(value)) return `'${value}'`;
  return `"${value.replace(/[\\"$\n\r\t]/g, (c) => DOUBLE_QUOTED_ESCAPES[c])}"`;
}

const DOUBLE_QUOTED_ESCAPES: Record<string, string> = {
  '\\': '\\\\', '"': '\\"', $: '\\$', '\n': '\\n', '\r': '\\r', '\t': '\\t',
};
