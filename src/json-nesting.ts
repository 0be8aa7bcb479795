// How deep JSON may nest before it is parsed: one rule for every door that reads JSON a user sends (the HTTP
// body, MCP, the CLI's --request file).

/**
 * Arrays and objects may nest this deep in a request. A stack request needs 2 and an MCP message a few more;
 * anything deeper is refused before it is parsed, so no recursive walk (JSON.parse, schema checks,
 * turning a value into text) ever meets a value nested thousands deep.
 */
export const MAX_JSON_DEPTH = 32;

/**
 * How deep arrays and objects nest in JSON text, counted without parsing (brackets inside strings do not
 * count); stops counting once past `cap`. Invalid JSON is left to JSON.parse to describe.
 */
export function nestingDepth(text: string, cap: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > cap) return deepest;
      }
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return deepest;
}

/** JSON text refused for its nesting, before it was parsed. */
export class TooDeeplyNested extends Error {
  constructor() {
    super(`it nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels (the limit of every JSON Stackwright reads)`);
  }
}

/** JSON.parse behind the nesting limit: throws TooDeeplyNested, or JSON.parse's SyntaxError. */
export function parseBoundedJson(text: string): unknown {
  if (nestingDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) throw new TooDeeplyNested();
  return JSON.parse(text);
}
