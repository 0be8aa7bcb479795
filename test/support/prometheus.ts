// Scraping GET /metrics as Prometheus would, read by a strict parser of the text exposition format
// (version 0.0.4) written here, never by prom-client, the library that wrote it. Any line that breaks
// the format fails the test: a sample without a TYPE, a bad name, label or value, a histogram whose
// buckets are not cumulative or whose +Inf bucket differs from its count.
import assert from 'node:assert/strict';

export interface Sample { name: string; labels: Record<string, string>; value: number }
export interface Family { name: string; type: string; help: string; samples: Sample[] }

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = ['counter', 'gauge', 'histogram', 'summary', 'untyped'];
const SUFFIXES: Record<string, string[]> = { histogram: ['_bucket', '_sum', '_count'], summary: ['', '_sum', '_count'] };

/** A sample value as Prometheus reads it (Go's ParseFloat: Inf and NaN in any letter case). */
function parseValue(text: string, line: string): number {
  if (/^\+?inf$/i.test(text)) return Infinity;
  if (/^-inf$/i.test(text)) return -Infinity;
  if (/^nan$/i.test(text)) return NaN;
  assert.match(text, /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/, `not a number in: ${line}`);
  return Number(text);
}

function parseSample(line: string): Sample {
  const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)( -?\d+)?$/.exec(line);
  assert.ok(m, `not a sample line: ${line}`);
  const labels: Record<string, string> = {};
  let rest = m[3] ?? '';
  while (rest.length) {
    const label = /^([^=]+)="((?:[^"\\]|\\[\\"n])*)"(,|$)/.exec(rest);
    assert.ok(label, `bad labels in: ${line}`);
    assert.match(label[1], LABEL, `bad label name in: ${line}`);
    assert.ok(!(label[1] in labels), `label ${label[1]} twice in: ${line}`);
    labels[label[1]] = label[2].replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    rest = rest.slice(label[0].length);
  }
  return { name: m[1], labels, value: parseValue(m[4], line) };
}

export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  assert.ok(text.endsWith('\n'), 'the exposition ends with a line feed');
  for (const line of text.slice(0, -1).split('\n')) {
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (meta) {
      assert.match(meta[2], NAME, `bad metric name: ${line}`);
      const family = families.get(meta[2]) ?? { name: meta[2], type: '', help: '', samples: [] };
      families.set(meta[2], family);
      if (meta[1] === 'TYPE') {
        assert.ok(TYPES.includes(meta[3]) && !family.type && family.samples.length === 0, `bad or late TYPE: ${line}`);
        family.type = meta[3];
      } else {
        family.help = meta[3];
      }
      continue;
    }
    if (line.startsWith('#') || line === '') continue;
    const sample = parseSample(line);
    const family = [...families.values()].find((f) => f.type && (SUFFIXES[f.type] ?? ['']).some((s) => f.name + s === sample.name));
    assert.ok(family, `a sample of no declared family: ${line}`);
    family.samples.push(sample);
  }
  for (const family of families.values()) {
    if (family.type !== 'histogram') continue;
    for (const count of family.samples.filter((s) => s.name.endsWith('_count'))) {
      const buckets = family.samples.filter((s) => s.name.endsWith('_bucket') && sameSeries(s.labels, count.labels));
      const values = buckets.map((b) => b.value);
      assert.deepEqual(values, [...values].sort((a, b) => a - b), `${family.name}: buckets are cumulative`);
      assert.equal(buckets.at(-1)?.labels.le, '+Inf', `${family.name}: the last bucket is +Inf`);
      assert.equal(buckets.at(-1)!.value, count.value, `${family.name}: the +Inf bucket equals the count`);
    }
  }
  return families;
}

/** Whether two label sets are the same series, `le` aside. */
function sameSeries(a: Record<string, string>, b: Record<string, string>): boolean {
  const strip = (l: Record<string, string>) => JSON.stringify(Object.entries(l).filter(([k]) => k !== 'le').sort());
  return strip(a) === strip(b);
}

export async function scrape(url: string, token: string): Promise<Map<string, Family>> {
  const res = await fetch(`${url}/metrics`, { headers: { Authorization: `Bearer ${token}` } });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(text);
}

/** The value of the sample `name` (a family's own name, or with a suffix) whose labels include `labels`; 0 when there is none yet. */
export function value(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  for (const family of families.values()) {
    const sample = family.samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
    if (sample) return sample.value;
  }
  return 0;
}
