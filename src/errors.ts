// The one place where API error codes live: code → HTTP status and what it means.
// docs/errors.md documents each; test/api/errors.test.ts keeps the two in step.

export const API_ERRORS = {
  VALIDATION_ERROR: { status: 400, meaning: 'invalid request body or parameters; details.errors lists the problems' },
  TARGET_UNSUPPORTED: { status: 400, meaning: 'the deployment target cannot run part of the selection (a proxy without a Gateway API implementation, a service that drives the Docker engine on Kubernetes); details.errors names each part and what works' },
  UNAUTHORIZED: { status: 401, meaning: 'missing or invalid API key' },
  NOT_FOUND: { status: 404, meaning: 'no such resource or path' },
  METHOD_NOT_ALLOWED: { status: 405, meaning: 'the path exists but not with this method; the Allow header lists the methods' },
  REQUEST_TIMEOUT: { status: 408, meaning: 'the request (headers or body) did not arrive in time, or its body arrived too slowly while its connection was needed' },
  CONFLICT: { status: 409, meaning: 'the selected services conflict; details.conflicts lists the pairs' },
  RATE_LIMITED: { status: 429, meaning: 'too many requests; Retry-After says when to try again' },
  HEADERS_TOO_LARGE: { status: 431, meaning: 'the request headers are larger than the server accepts' },
  INTERNAL_ERROR: { status: 500, meaning: 'unexpected server error' },
  PLUGIN_TEMPLATE_ERROR: { status: 500, meaning: 'a plugin template failed while rendering this stack; details name the plugin, template and line (a fault of the catalogue, which stackwright lint reports)' },
  SERVICE_UNAVAILABLE: { status: 503, meaning: 'too many generations are waiting already, too many connections are open and busy, or the server is stopping; Retry-After says when to try again' },
} as const;

export type ApiErrorCode = keyof typeof API_ERRORS;

export class ApiError extends Error {
  readonly code: ApiErrorCode;
  readonly status: number;
  readonly details?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(code: ApiErrorCode, message: string, options: { details?: Record<string, unknown>; headers?: Record<string, string>; status?: number } = {}) {
    super(message);
    this.code = code;
    // a code keeps its usual status except where the decisions say otherwise (413 for an oversized body)
    this.status = options.status ?? API_ERRORS[code].status;
    this.details = options.details;
    this.headers = options.headers;
  }
}

/** 400 for a validate or generate request, listing every problem of the configuration. */
export function invalidConfiguration(errors: string[]): ApiError {
  return validationError('the configuration is invalid', errors);
}

/** 400 with the list of problems the client has to fix. */
export function validationError(message: string, errors: string[]): ApiError {
  return new ApiError('VALIDATION_ERROR', message, { details: { errors } });
}

// Warning codes a 200 answer may carry (validate's `warnings`, the bundle README).
export const WARNINGS = {
  CONFLICT: 'two selected services overlap in purpose (generate refuses the pair with 409)',
  PRESET_OVERRIDES: 'a preset was sent together with services or skills; the preset wins',
  GPU_REQUIRED: 'a selected service needs a GPU but gpu is not true',
  GPU_UNUSED: 'gpu is true but no selected service can use a GPU',
  PLATFORM_UNSUPPORTED: 'an image is not published for the requested platform',
} as const;

export type WarningCode = keyof typeof WARNINGS;

export interface Warning { code: WarningCode; message: string }
