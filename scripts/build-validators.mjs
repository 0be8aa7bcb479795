// Part of `npm run build`: writes dist/validators/<schema>.cjs, each schema in schemas/ compiled ahead of
// time (ajv standalone code) with the hash of the schema set, so the service starts without compiling
// them. One file a schema: a command that checks one request body loads that validator alone.
import fs from 'node:fs';
import path from 'node:path';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { createAjv, exportName, PRECOMPILED_DIR, SCHEMA_HASH, SCHEMA_NAMES, schemaId } from '../dist/schemas.js';

const ajv = createAjv({ source: true });
fs.rmSync(PRECOMPILED_DIR, { recursive: true, force: true });
fs.mkdirSync(PRECOMPILED_DIR, { recursive: true });
for (const name of SCHEMA_NAMES) {
  const code = standaloneCode.default(ajv, { [exportName(name)]: schemaId(name) });
  fs.writeFileSync(path.join(PRECOMPILED_DIR, `${name}.cjs`), `${code}\nmodule.exports.schemaHash = ${JSON.stringify(SCHEMA_HASH)};\n`);
}
// the single file earlier builds wrote
fs.rmSync(path.join(PRECOMPILED_DIR, '..', 'validators.cjs'), { force: true });
console.log(`precompiled ${SCHEMA_NAMES.length} schemas into ${PRECOMPILED_DIR}`);
