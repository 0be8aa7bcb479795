// `tsx scripts/check-stack.ts '<request json>' [out-dir]`: generates a stack with the engine (the
// catalogue on disk, as the server would load it), writes it to out-dir and runs the real validators
// on it. For plugin authors trying a new entry; the test suite runs the same checks in its matrix.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readConfig } from '../src/config.js';
import { loadCatalogueOrThrow } from '../src/catalogue/load.js';
import { Generator, type GenerateRequest } from '../src/pipeline/generate.js';
import { ApiError } from '../src/errors.js';
import { writeBundle } from '../test/support/bundle.js';
import { validateBundleDir } from '../test/support/validators.js';

const [json, outArg] = process.argv.slice(2);
if (!json) {
  console.error("usage: tsx scripts/check-stack.ts '{\"name\":\"demo\",\"services\":[\"qdrant\"]}' [out-dir]");
  process.exit(2);
}
const request = { name: 'check', ...JSON.parse(json) } as GenerateRequest;
const config = readConfig({});
const catalogue = loadCatalogueOrThrow({ plugins: config.pluginsDir, catalogue: config.catalogueDir });
const generator = new Generator(catalogue, config.templatesDir, 0);
let files: Record<string, string>;
try {
  files = generator.generate(request).files;
} catch (e) {
  if (e instanceof ApiError) {
    console.error(`${e.code}: ${e.message}`);
    console.error(JSON.stringify(e.details ?? {}, null, 2));
    process.exit(1);
  }
  throw e;
}
const dir = outArg ? path.resolve(outArg) : fs.mkdtempSync(path.join(os.tmpdir(), 'stack-'));
fs.rmSync(dir, { recursive: true, force: true });
writeBundle(dir, files);
console.log(`wrote ${Object.keys(files).length} files to ${dir}`);
const result = await validateBundleDir(dir);
for (const f of result.failures) console.log(f);
console.log(`validators: ${result.passed} passed, ${result.failures.length} failed`);
process.exitCode = result.ok ? 0 : 1;
