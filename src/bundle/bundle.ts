// What a generate request is and what it gives: the types the generator (generate.ts) and the bound
// shapes (bundle-shape.ts) share, in a module below both so imports flow one way. The request's fields
// are the schema's (request-fields.generated.ts, made from schemas/generate-request.schema.json).
import { REQUEST_PROPERTIES, type RequestField, type StackRequest } from './request-fields.generated.js';

/** The fields that shape the stack: every request field but format (how the answer is sent). */
type StackField = Exclude<RequestField, 'format'>;

/** A request the generator takes: the schema's fields that shape the stack, with a name. */
export type GenerateRequest = Pick<StackRequest, Exclude<StackField, 'name'>> & { name: string };

export interface Bundle {
  name: string;
  /** relative path → content, keys sorted */
  files: Record<string, string>;
  summary: { services: number; skills: number; proxy: string; estimatedMemoryMB: number; memoryLimitMB: number };
}

/** Fields of a generate request in a fixed order (the schema's): equal keys mean byte-identical bundles. */
export const REQUEST_FIELDS: readonly StackField[] = REQUEST_PROPERTIES.filter((f): f is StackField => f !== 'format');
