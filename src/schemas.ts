// One ajv instance holding every JSON Schema in schemas/: plugin manifests and API request bodies.
// Compiled once at start; the loader and the request validators share it.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

export const SCHEMA_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'schemas');
const BASE = 'https://stackwright.dev/schemas/';

let ajv: Ajv | undefined;
const compiled = new Map<string, ValidateFunction>();

function instance(): Ajv {
  if (ajv) return ajv;
  ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true, verbose: true });
  // ajv-formats is CommonJS: its default export arrives wrapped
  const wrapped = addFormatsModule as unknown as { default?: (a: Ajv) => Ajv };
  const addFormats = wrapped.default ?? (addFormatsModule as unknown as (a: Ajv) => Ajv);
  addFormats(ajv);
  for (const file of fs.readdirSync(SCHEMA_DIR).filter((f) => f.endsWith('.schema.json')).sort()) {
    ajv.addSchema(JSON.parse(fs.readFileSync(path.join(SCHEMA_DIR, file), 'utf8')));
  }
  return ajv;
}

/** The validator for schemas/<name>.schema.json. */
export function validator(name: string): ValidateFunction {
  let fn = compiled.get(name);
  if (!fn) {
    fn = instance().getSchema(`${BASE}${name}.schema.json`);
    if (!fn) throw new Error(`no schema ${name}.schema.json in ${SCHEMA_DIR}`);
    compiled.set(name, fn);
  }
  return fn;
}

/** The raw schema document, for the OpenAPI description. */
export function schemaDocument(name: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(SCHEMA_DIR, `${name}.schema.json`), 'utf8'));
}

/** A plain sentence for one ajv error; `where` is how to name the location (a field or a JSON pointer). */
export function describeSchemaError(e: ErrorObject): string {
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
    case 'not': return `combines fields that exclude each other${e.parentSchema?.description ? ` (${e.parentSchema.description})` : ''}`;
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
