// Request bodies: checked against schemas/*-request.schema.json, errors turned into plain sentences that
// name the field and the rule.
import type { ErrorObject } from 'ajv';
import { describeSchemaError, ruleDescription, usefulErrors, validator } from '../schemas.js';

export interface StackRequest {
  name?: string;
  preset?: string;
  services?: string[];
  skills?: string[];
  proxy?: string;
  domain?: string;
  gpu?: boolean;
  platform?: 'linux/amd64' | 'linux/arm64';
  primaryFramework?: string;
  companionFrameworks?: string[];
  deploymentType?: 'docker' | 'bare-metal' | 'kubernetes';
  hardened?: boolean;
  format?: 'json' | 'tar';
}

/** Fields the resolver reads: when none of them is malformed, its checks can run beside the schema's. */
const SELECTION_FIELDS = ['preset', 'services', 'skills', 'proxy', 'primaryFramework', 'companionFrameworks', 'gpu', 'platform'];

export interface ParsedRequest {
  request: StackRequest;
  /** schema problems, as sentences */
  errors: string[];
  /** whether the selection fields are well-formed, so the resolver may check them too */
  selectionUsable: boolean;
}

/** The body checked against its schema; problems are returned, so they can be reported with the resolver's. */
export function parseStackRequest(kind: 'validate' | 'generate', body: unknown): ParsedRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return { request: {}, errors: ['the body must be a JSON object'], selectionUsable: false };
  }
  const validate = validator(`${kind}-request`);
  const schemaErrors = validate(body) ? [] : usefulErrors(validate.errors);
  // a domain the schema refused goes no further: the resolver puts the domain into a message, and a value
  // of another type (an object with its own toString, an array nested deep) cannot safely become text
  const { domain, ...rest } = body as StackRequest;
  const domainUsable = typeof domain === 'string' && !schemaErrors.some((e) => e.instancePath.split('/')[1] === 'domain');
  return {
    request: domainUsable ? { ...rest, domain: domain.toLowerCase() } : rest,
    errors: schemaErrors.map((e) => describeRequestError(`${kind}-request`, e)),
    selectionUsable: !schemaErrors.some((e) => SELECTION_FIELDS.includes(e.instancePath.split('/')[1] ?? '')),
  };
}

function describeRequestError(schemaName: string, e: ErrorObject): string {
  const field = e.instancePath
    .split('/')
    .slice(1)
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join('');
  if (!field) {
    if (e.keyword === 'additionalProperties') {
      return `unknown field "${(e.params as { additionalProperty: string }).additionalProperty}": remove it (the fields are listed in GET /api/v1/openapi.json)`;
    }
    return `the body ${describeSchemaError(schemaName, e)}`;
  }
  // a broken rule of a described field is explained by the field's own description
  const description = ruleDescription(schemaName, e);
  if (description && ['pattern', 'minLength', 'maxLength'].includes(e.keyword)) return `${field} must be ${description}`;
  return `${field} ${describeSchemaError(schemaName, e)}`;
}
