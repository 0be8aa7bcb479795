// What a generate request is and what it gives: the types the generator (generate.ts) and the bound
// shapes (bundle-shape.ts) share, in a module below both so imports flow one way.
import type { SelectionRequest } from './resolve.js';

export interface GenerateRequest extends SelectionRequest {
  name: string;
  domain?: string;
  deploymentType?: 'docker' | 'bare-metal' | 'kubernetes';
  /** default true: cap_drop ALL plus each plugin's capabilities, no-new-privileges */
  hardened?: boolean;
}

export interface Bundle {
  name: string;
  /** relative path → content, keys sorted */
  files: Record<string, string>;
  summary: { services: number; skills: number; proxy: string; estimatedMemoryMB: number; memoryLimitMB: number };
}

/** Fields of a generate request in a fixed order: equal keys mean byte-identical bundles. */
export const REQUEST_FIELDS = ['name', 'preset', 'services', 'skills', 'proxy', 'domain', 'gpu', 'platform', 'primaryFramework', 'companionFrameworks', 'deploymentType', 'hardened'] as const;
