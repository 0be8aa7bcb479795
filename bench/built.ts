// The engine as the service runs it: tsc's output in dist/ (npm run bench builds it first), typed by its source.
// The bench's own code runs through tsx; the figures it takes are of the code `npm start` runs, not of tsx's
// transform of the source (which read a few % slower at 200 services).
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../src/config.js';

if (!fs.existsSync(path.join(REPO_ROOT, 'dist/main.js'))) throw new Error('run npm run build first (npm run bench does)');

/** The path of a built module, for a child process's imports. */
export const builtModule = (module: string) => path.join(REPO_ROOT, 'dist', module);
const built = <T>(module: string) => import(builtModule(module)) as Promise<T>;

export const { loadCatalogueOrThrow } = await built<typeof import('../src/catalogue/load.js')>('catalogue/load.js');
export const { archiveBuffer } = await built<typeof import('../src/bundle/archive.js')>('bundle/archive.js');
export const { Generator, warmRequests } = await built<typeof import('../src/pipeline/generate.js')>('pipeline/generate.js');
export const { processHasher } = await built<typeof import('../src/bundle/parallel-hash.js')>('bundle/parallel-hash.js');
export const { resolve } = await built<typeof import('../src/model/resolve.js')>('model/resolve.js');
