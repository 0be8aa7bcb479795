// node:fs and node:util loaded through require. An ES import of a built-in makes a module facade that
// copies every export, which runs the module's lazy getters (`fs.promises` loads the promise API, util's
// getters load TextDecoder and the diff code): ~5 ms of each `stackwright` run, for exports it never
// uses. The same object either way; http/node-http.ts does this for node:http.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const fs = require('node:fs') as typeof import('node:fs');
export const util = require('node:util') as typeof import('node:util');
