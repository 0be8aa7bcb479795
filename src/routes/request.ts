// Request bodies: checked against schemas/*-request.schema.json, errors turned into plain sentences that
// name the field and the rule.
import type { ErrorObject } from 'ajv';
import { validationError } from '../errors.js';
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
  deploymentType?: 'docker' | 'bare-metal';
  format?: 'json' | 'tar';
}

export function parseStackRequest(kind: 'validate' | 'generate', body: unknown): StackRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw validationError('the configuration is invalid', ['the body must be a JSON object']);
  }
  const validate = validator(`${kind}-request`);
  if (!validate(body)) {
    throw validationError('the configuration is invalid', usefulErrors(validate.errors).map((e) => describeRequestError(`${kind}-request`, e)));
  }
  const request = body as StackRequest;
  return request.domain ? { ...request, domain: request.domain.toLowerCase() } : request;
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
