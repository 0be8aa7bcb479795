// node:http through require, and only once something uses it: an ES import of a built-in copies every
// export, which runs node:http's lazy getters and loads the bundled fetch client (undici) for nothing,
// about 50 ms at every start; and the CLI's generate, which shares the API's answer code, never needs
// the module at all (~4 ms).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let http: typeof import('node:http') | undefined;

export function nodeHttp(): typeof import('node:http') {
  return (http ??= require('node:http') as typeof import('node:http'));
}
