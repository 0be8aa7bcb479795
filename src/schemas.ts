// Every JSON Schema in schemas/ (plugin manifests, API bodies, API responses) behind one `validator(name)`.
// `npm run build` precompiles them (ajv standalone, dist/validators/<schema>.cjs) so a start pays no
// compile; when a file is missing or was built from other schemas, that schema is compiled here on first use.
import crypto from 'node:crypto';
import { fs } from './node-builtins.js';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { REPO_ROOT } from './config.js';

// ajv itself is loaded only when something must be compiled: precompiled validators need just its
// small runtime helpers, and loading the compiler would cost a good part of the start-up time
const requireCjs = createRequire(import.meta.url);

export const SCHEMA_DIR = path.join(REPO_ROOT, 'schemas');
export const PRECOMPILED_DIR = path.join(REPO_ROOT, 'dist', 'validators');
const BASE = 'https://stackwright.dev/schemas/';

/** schema name (file without .schema.json) → parsed document */
const documents = new Map<string, Record<string, unknown>>(
  fs.readdirSync(SCHEMA_DIR).filter((f) => f.endsWith('.schema.json')).sort()
    .map((f) => [f.slice(0, -'.schema.json'.length), JSON.parse(fs.readFileSync(path.join(SCHEMA_DIR, f), 'utf8'))]),
);

/** Identifies the schema set, so precompiled validators from other schemas are never used. */
export const SCHEMA_HASH = crypto.createHash('sha256').update(JSON.stringify([...documents])).digest('hex').slice(0, 16);

export const SCHEMA_NAMES = [...documents.keys()];

/** The one ajv configuration, for compiling here and for the build's standalone code. */
export function createAjv(options: { source?: boolean } = {}): Ajv {
  const { Ajv: AjvClass } = requireCjs('ajv') as typeof import('ajv');
  const addFormats = (requireCjs('ajv-formats') as { default: (a: Ajv) => Ajv }).default;
  const ajv = new AjvClass({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true, code: { source: options.source ?? false } });
  addFormats(ajv);
  for (const doc of documents.values()) ajv.addSchema(doc);
  return ajv;
}

export function schemaId(name: string): string {
  return `${BASE}${name}.schema.json`;
}

let ajv: Ajv | undefined;
const compiled = new Map<string, ValidateFunction>();

/** The build's precompiled validator of one schema, read on first use (a start from the catalogue snapshot needs none). */
function loadPrecompiled(name: string): ValidateFunction | undefined {
  const file = path.join(PRECOMPILED_DIR, `${name}.cjs`);
  if (!fs.existsSync(file)) return undefined;
  const mod = requireCjs(file) as Record<string, ValidateFunction> & { schemaHash?: string };
  return mod.schemaHash === SCHEMA_HASH ? mod[exportName(name)] : undefined;
}

/** The validator for schemas/<name>.schema.json. */
export function validator(name: string): ValidateFunction {
  let fn = compiled.get(name);
  if (!fn) {
    fn = loadPrecompiled(name);
    if (!fn) {
      ajv ??= createAjv();
      fn = ajv.getSchema(schemaId(name));
      if (!fn) throw new Error(`no schema ${name}.schema.json in ${SCHEMA_DIR}`);
    }
    compiled.set(name, fn);
  }
  return fn;
}

/** The name a schema's validator is exported under in the standalone module. */
export function exportName(name: string): string {
  return name.replace(/-/g, '_');
}

/** The raw schema document, for the OpenAPI description. */
export function schemaDocument(name: string): Record<string, unknown> {
  const doc = documents.get(name);
  if (!doc) throw new Error(`no schema ${name}.schema.json in ${SCHEMA_DIR}`);
  return structuredClone(doc);
}

/**
 * The description of the schema an error's keyword sits in (its `schemaPath` minus the keyword), which
 * states the rule in words. `schemaName` is the schema that was validated against.
 */
export function ruleDescription(schemaName: string, e: ErrorObject): string | undefined {
  const [file, pointer = ''] = e.schemaPath.split('#');
  let node: unknown = documents.get(file ? file.replace(/\.schema\.json$/, '') : schemaName);
  for (const part of pointer.split('/').slice(1, -1)) {
    node = (node as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  const description = (node as { description?: unknown } | undefined)?.description;
  return typeof description === 'string' ? description : undefined;
}

/** A plain sentence for one ajv error. */
export function describeSchemaError(schemaName: string, e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required': return `is missing required field "${p.missingProperty}"`;
    case 'additionalProperties': return `has unknown field "${p.additionalProperty}"`;
    case 'type': return `must be ${article(String(p.type))}`;
    case 'enum': return `must be one of: ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const': return `must be ${JSON.stringify(p.allowedValue)}`;
    case 'pattern': return `does not match the pattern ${p.pattern}`;
    case 'format': return `must be a valid ${p.format}`;
    case 'minLength': return `must be at least ${p.limit} characters long`;
    case 'maxLength': return `must be at most ${p.limit} characters long`;
    case 'minItems': return `must hold at least ${p.limit} item(s)`;
    case 'maxItems': return `must hold at most ${p.limit} items`;
    case 'uniqueItems': return `must not repeat items (items ${p.j} and ${p.i} are equal)`;
    case 'minimum': return `must be at least ${p.limit}`;
    case 'maximum': return `must be at most ${p.limit}`;
    case 'not': {
      const rule = ruleDescription(schemaName, e);
      return `combines fields that exclude each other${rule ? ` (${rule})` : ''}`;
    }
    case 'oneOf': return 'does not match exactly one of the allowed forms';
    default: return e.message ?? 'is invalid';
  }
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** Schema errors minus the noise ajv adds for oneOf/not branches. */
export function usefulErrors(errors: ErrorObject[] | null | undefined): ErrorObject[] {
  const list = errors ?? [];
  const branchy = new Set(list.filter((e) => e.keyword === 'oneOf').map((e) => e.instancePath));
  return list.filter((e) => e.keyword === 'oneOf' || !branchy.has(e.instancePath) || e.keyword === 'required' || e.keyword === 'additionalProperties');
}
