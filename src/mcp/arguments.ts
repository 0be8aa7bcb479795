// Checking a tool's arguments: the SDK hands them over as the client sent them, so every name and type
// is checked here, and every problem is reported in one VALIDATION_ERROR (as the API does for a body).
import { validationError } from '../errors.js';

export type Args = Record<string, unknown>;
type Kind = 'string' | 'integer' | 'boolean' | 'strings';
/** An argument's type, and whether it must be sent. */
export interface ArgSpec { type: Kind; required?: boolean; min?: number; max?: number }
type Value<K extends Kind> = K extends 'string' ? string : K extends 'integer' ? number : K extends 'boolean' ? boolean : string[];
export type Checked<S extends Record<string, ArgSpec>> = { [K in keyof S]?: Value<S[K]['type']> };

const TYPE_NAMES: Record<Kind, string> = { string: 'a string', integer: 'an integer', boolean: 'true or false', strings: 'an array of strings' };

function fits(kind: Kind, value: unknown): boolean {
  switch (kind) {
    case 'string': return typeof value === 'string';
    case 'integer': return Number.isInteger(value);
    case 'boolean': return typeof value === 'boolean';
    case 'strings': return Array.isArray(value) && value.every((v) => typeof v === 'string');
  }
}

/** The arguments as their types, or a VALIDATION_ERROR naming every unknown, missing or mistyped one. */
export function checkArgs<S extends Record<string, ArgSpec>>(args: Args, spec: S): Checked<S> {
  const errors: string[] = [];
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(args)) if (!(key in spec)) errors.push(`unknown argument "${key}": the arguments are ${Object.keys(spec).join(', ') || 'none'}`);
  for (const [key, s] of Object.entries(spec)) {
    const value = args[key];
    if (value === undefined) {
      if (s.required) errors.push(`${key} is required`);
    } else if (!fits(s.type, value)) errors.push(`${key} must be ${TYPE_NAMES[s.type]}`);
    else if (s.type === 'integer' && ((s.min !== undefined && (value as number) < s.min) || (s.max !== undefined && (value as number) > s.max))) {
      errors.push(`${key} must be from ${s.min} to ${s.max} (got ${value as number})`);
    } else out[key] = value;
  }
  if (errors.length) throw validationError('the arguments are invalid', errors);
  return out as Checked<S>;
}
