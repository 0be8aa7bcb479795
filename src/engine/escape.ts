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

/** A value for a .env file line: bare when safe, else single-quoted (Compose reads it literally). */
export function dotenvValue(value: string): string {
  return /^[A-Za-z0-9_./:@%+,=-]*$/.test(value) ? value : `'${value.replace(/'/g, '')}'`;
}

/** UPPER_SNAKE form of an id, for variable names. */
export function envPrefix(id: string): string {
  return id.toUpperCase().replace(/-/g, '_');
}
