// Late binding of the request's text scalars: the stack name and the domain. Most of a bundle depends on
// neither, and where it does, each is only put into text as written (paths, unit names, host names, URLs,
// comments, .env). So a stack of a given shape (the request without its name and domain, only whether it
// has a domain) is rendered once with placeholders, and each new request is bound by putting its values
// where the placeholders were (bundle-shape.ts): a new name or domain costs no render.
// Guards keep this exact: only values that every quoting rule leaves as they are (so they stand where a
// placeholder stood, byte for byte) are bound; the placeholders must appear only verbatim (no template
// changed their case, dashes, dots or length); and a shape is used only after binding the request that
// first had that shape into it reproduced that request's own full render (generate.ts).

import { REQUEST_FIELDS, type GenerateRequest } from '../bundle/bundle.js';

export interface LateScalar {
  field: 'name' | 'domain';
  placeholder: string;
  /** any piece of the placeholder: a prefix or suffix left by truncation, another case, separators rewritten */
  traces: RegExp;
  /** whether a value may replace the placeholder */
  bindable: (value: string) => boolean;
}

// words YAML 1.1/1.2 readers turn into booleans or null when unquoted
const YAML_WORDS = new Set(['y', 'n', 'yes', 'no', 'true', 'false', 'on', 'off', 'null']);

/** A valid stack name no real request uses, with a dash so a template that rewrites dashes shows up. */
export const NAME_PLACEHOLDER = 'zq-stackwright-name-qz';
/**
 * A public domain no real request uses (RFC 6761 reserves .invalid), with a dash and a dot so a template
 * that rewrites either shows up; its first label shares no trace with the name's placeholder.
 */
export const DOMAIN_PLACEHOLDER = 'xv-domain-vx.invalid';

/** Whether a name may replace the placeholder: a letter first (never numeric-looking) and no YAML word. */
export function bindableName(name: string): boolean {
  return /^[a-z][a-z0-9_-]*$/.test(name) && !YAML_WORDS.has(name);
}

/**
 * Whether a domain may replace the placeholder: lower case (templates never see another case), labels of
 * letters, digits and inner dashes, and a last label of letters only, so no reader (YAML 1.1 or 1.2
 * floats such as 1.5 or 1.e5, a shell, .env, JSON) takes it for anything but the text it is. localhost
 * is left out: it is no public domain, and the stack differs (no HTTPS, nothing public).
 */
export function bindableDomain(domain: string): boolean {
  return /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]+$/.test(domain);
}

export const LATE_SCALARS: readonly LateScalar[] = [
  { field: 'name', placeholder: NAME_PLACEHOLDER, traces: /zq[-_.]?stack|stackwright[-_.]?name|name[-_.]?qz/gi, bindable: bindableName },
  { field: 'domain', placeholder: DOMAIN_PLACEHOLDER, traces: /xv[-_.]?domain|domain[-_.]?vx|vx[-_.]?invalid/gi, bindable: bindableDomain },
];

/** Every placeholder as one pattern, in LATE_SCALARS order of alternatives. */
export const PLACEHOLDERS = new RegExp(LATE_SCALARS.map((s) => s.placeholder.replace(/\./g, '\\.')).join('|'), 'g');

/**
 * The values a request binds, in LATE_SCALARS order ('' for a domain it does not have), or undefined
 * when some value cannot be bound (the request is rendered in full).
 */
export function lateValues(request: { name: string; domain?: string }): string[] | undefined {
  const values: string[] = [];
  for (const s of LATE_SCALARS) {
    const value = request[s.field];
    if (value === undefined && s.field === 'domain') values.push('');
    else if (value === undefined || !s.bindable(value)) return undefined;
    else values.push(value);
  }
  return values;
}

/** The request with each value it binds replaced by its placeholder. */
export function withPlaceholders<R extends { name: string; domain?: string }>(request: R): R {
  return { ...request, name: NAME_PLACEHOLDER, ...(request.domain === undefined ? {} : { domain: DOMAIN_PLACEHOLDER }) };
}

/** Whether every trace of the placeholder in these texts is the whole placeholder, as written. */
export function placeholderVerbatim(texts: Iterable<string>, scalar: LateScalar = LATE_SCALARS[0]): boolean {
  const { placeholder } = scalar;
  for (const text of texts) {
    for (const m of text.matchAll(scalar.traces)) {
      const start = text.lastIndexOf(placeholder, m.index);
      if (start < 0 || m.index! + m[0].length > start + placeholder.length || text.slice(start, start + placeholder.length) !== placeholder) return false;
    }
  }
  return true;
}

/** Whether every placeholder appears only verbatim in these texts. */
export function placeholdersVerbatim(texts: readonly string[]): boolean {
  return LATE_SCALARS.every((s) => placeholderVerbatim(texts, s));
}

/**
 * The same binding for a fragment (compose.ts's service blocks) whose only trace of the domain is the end
 * of these URLs: the URLs with the domain's placeholder there instead, so the fragment is cached once for
 * every domain and the domain bound in after (bindDomain); undefined when the domain does not bind or no
 * URL ends in it (the fragment is then made from the real values).
 */
export function urlsWithDomainPlaceholder(urls: readonly (readonly [string, string])[], domain: string | undefined): (readonly [string, string])[] | undefined {
  if (!urls.length || domain === undefined || !bindableDomain(domain)) return undefined;
  const suffix = `.${domain}`;
  if (!urls.some(([, url]) => url.endsWith(suffix))) return undefined;
  return urls.map(([id, url]) => [id, url.endsWith(suffix) ? `${url.slice(0, -domain.length)}${DOMAIN_PLACEHOLDER}` : url] as const);
}

/**
 * For a domain that binds late: a URL or host name the model made for it (`<name>.<domain>`, a route's or a
 * public URL) with the domain's placeholder in its place, for a row kept for every domain and bound after
 * (bundle/member-rows.ts); for no such domain, the text as it is.
 */
export function domainLeftOut(domain: string | undefined): (text: string) => string {
  if (domain === undefined) return (text) => text;
  const suffix = `.${domain}`;
  const placeholder = `.${DOMAIN_PLACEHOLDER}`;
  return (text) => (text.includes(suffix) ? text.replaceAll(suffix, placeholder) : text);
}

/** A text made with the domain's placeholder (urlsWithDomainPlaceholder), with the domain bound in. */
export function bindDomain(text: string, domain: string): string {
  return text.replaceAll(DOMAIN_PLACEHOLDER, domain);
}

/** A request without its late-bound values (only whether it has a domain): the requests of one key share a shape. */
export function shapeKey(request: GenerateRequest): string {
  return JSON.stringify(REQUEST_FIELDS.map((f) => (f === 'name' ? null : f === 'domain' ? request.domain !== undefined : request[f] ?? null)));
}
