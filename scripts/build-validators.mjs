// Part of `npm run build`: writes dist/validators.cjs, every schema in schemas/ compiled ahead of time
// (ajv standalone code) with the hash of the schema set, so the service starts without compiling them.
import fs from 'node:fs';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { createAjv, exportName, PRECOMPILED_FILE, SCHEMA_HASH, SCHEMA_NAMES, schemaId } from '../dist/schemas.js';

const ajv = createAjv({ source: true });
const exports = Object.fromEntries(SCHEMA_NAMES.map((name) => [exportName(name), schemaId(name)]));
const code = standaloneCode.default(ajv, exports);
fs.writeFileSync(PRECOMPILED_FILE, `${code}\nmodule.exports.schemaHash = ${JSON.stringify(SCHEMA_HASH)};\n`);
console.log(`precompiled ${SCHEMA_NAMES.length} schemas into ${PRECOMPILED_FILE}`);
