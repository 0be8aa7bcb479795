// Built-in modules loaded through require. An ES import of a built-in makes a module facade that copies
// every export, which runs the module's lazy getters: `fs.promises` loads the promise API, util's getters
// load TextDecoder and the diff code (~5 ms of each `stackwright` run, for exports it never uses), and
// node:http's load the bundled fetch client (undici, ~50 ms at every start). The same objects either way.
// The rule for all of src/ (test/structure/builtins.test.ts holds it): node:fs, node:util and node:http
// come from here, every other built-in by an ES import of its `node:` name; type imports are free.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const fs = require('node:fs') as typeof import('node:fs');
export const util = require('node:util') as typeof import('node:util');

let http: typeof import('node:http') | undefined;

/** node:http, loaded on first use: the CLI's generate shares the API's answer code but never needs it (~4 ms). */
export function nodeHttp(): typeof import('node:http') {
  return (http ??= require('node:http') as typeof import('node:http'));
}
