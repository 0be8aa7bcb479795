// The bench's load generator, in a process of its own: autocannon run from the bench process itself shares
// that process's heap (hundreds of MB after the in-process runs) and its collector, and was measured
// slowing the client down more than the server it loads (GET /services at 2,900 req/s from there, 7,000
// from a fresh process). Every HTTP figure, the bare node:http ceiling included, is loaded from here.
// Input: the path of a JSON file holding a LoadSpec. Output: one JSON line, a LoadResult.
import fs from 'node:fs';
import autocannon from 'autocannon';

export interface LoadSpec {
  url: string;
  connections: number;
  /** seconds measured, after one second of warm-up */
  duration: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** the same body for every request */
  body?: string;
  /** a body per request, taken in turn */
  bodies?: string[];
  /** a body per request: this request with a new name and a new domain each time */
  newNameAndDomain?: Record<string, unknown>;
}

export interface LoadResult { average: number; p50: number; p99: number; non2xx: number; errors: number; requests: number }

const spec = JSON.parse(fs.readFileSync(process.argv[2], 'utf8')) as LoadSpec;
let counter = 0;
function nextBody(): string | undefined {
  const i = counter++;
  if (spec.bodies) return spec.bodies[i % spec.bodies.length];
  if (spec.newNameAndDomain) return JSON.stringify({ ...spec.newNameAndDomain, name: `bench-${i}`, domain: `h${i}.example.org` });
  return spec.body;
}
const perRequest = spec.bodies || spec.newNameAndDomain;
const options: autocannon.Options = {
  url: spec.url,
  connections: spec.connections,
  method: spec.method ?? 'GET',
  headers: spec.headers,
  ...(perRequest ? { requests: [{ setupRequest: (req: autocannon.Request) => ({ ...req, body: nextBody() }) }] } : { body: spec.body }),
};
await autocannon({ ...options, duration: 1 }); // warm-up
const r = await autocannon({ ...options, duration: spec.duration });
const result: LoadResult = { average: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors, requests: r.requests.total };
process.stdout.write(`${JSON.stringify(result)}\n`);
