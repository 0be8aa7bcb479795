// The rate-limit buckets (spec section 8, DECISIONS "Rate limits"): what a call costs decides which
// count it spends, the same through every door that counts (an HTTP route, an MCP tool): catalogue
// reads, checks (validate) and generations.
export const BUCKETS = ['read', 'write', 'generate'] as const;
export type BucketName = (typeof BUCKETS)[number];
