// The request fields as the user typed them: `stackwright generate` builds an API request from flags,
// so the API's sentences about its fields ("deploymentType must be ...", "the body is missing required
// field "name"") are rewritten to name the flag. A field that came from the --request file keeps its
// name, prefixed with the file, since that is what the user wrote.
import type { RequestField } from '../bundle/request-fields.generated.js';

/**
 * Each request field and the flag that sets it (format is --tar, which takes a file): a field added to the
 * schema fails the type check here until it has a flag.
 */
export const FLAG_OF: Readonly<Record<Exclude<RequestField, 'format'>, string>> = {
  name: '--name', preset: '--preset', services: '--services', skills: '--skills', proxy: '--proxy', domain: '--domain',
  primaryFramework: '--framework', companionFrameworks: '--companions', deploymentType: '--deployment', platform: '--platform',
  gpu: '--gpu', hardened: '--no-hardening',
};

/** Sentences of the resolver and the schema, by the field each concerns, and their flag wording. */
const SENTENCES: { re: RegExp; field: string; flag: (m: RegExpExecArray, flag: string) => string }[] = [
  { re: /^the body is missing required field "(\w+)"$/, field: '$1', flag: (_m, flag) => `${flag} is required` },
  { re: /^unknown preset (.*)$/, field: 'preset', flag: (m, flag) => `${flag}: unknown preset ${m[1]}` },
  { re: /^unknown service (.*)$/, field: 'services', flag: (m, flag) => `${flag}: unknown service ${m[1]}` },
  { re: /^"([^"]+)" is a framework, not a service: use primaryFramework or companionFrameworks$/, field: 'services', flag: (m, flag) => `${flag}: "${m[1]}" is a framework, not a service: use --framework or --companions` },
  { re: /^unknown skill pack (.*)$/, field: 'skills', flag: (m, flag) => `${flag}: unknown skill pack ${m[1]}` },
  { re: /^(skill pack "[^"]+" needs service "[^"]+"): add it to services$/, field: 'services', flag: (m, flag) => `${m[1]}: add it to ${flag}` },
  { re: /^unknown proxy (.*)$/, field: 'proxy', flag: (m, flag) => `${flag}: unknown proxy ${m[1]}` },
  { re: /^unknown primaryFramework (.*)$/, field: 'primaryFramework', flag: (m, flag) => `${flag}: unknown framework ${m[1]}` },
  { re: /^unknown companion framework (.*)$/, field: 'companionFrameworks', flag: (m, flag) => `${flag}: unknown framework ${m[1]}` },
  { re: /^(companion framework "[^"]+" is already the primary framework): remove it from companionFrameworks$/, field: 'companionFrameworks', flag: (m, flag) => `${m[1]}: remove it from ${flag}` },
  { re: /^(companion framework "[^"]+" is listed twice)$/, field: 'companionFrameworks', flag: (m, flag) => `${flag}: ${m[1]}` },
  { re: /^(\w+)(\[\d+\])? (must .*|does not .*|combines .*)$/, field: '$1', flag: (m, flag) => `${flag} ${m[3]}` },
];

/** What the user typed for a field, to repeat in the message when the API's sentence does not. */
function typed(value: unknown): string {
  if (value === undefined || typeof value === 'boolean') return '';
  const text = Array.isArray(value) ? value.join(',') : String(value);
  return ` (got "${text}")`;
}

/**
 * A rewriter of problem sentences: fields set by flags (or missing) are named by their flag; fields
 * read from `requestFile` are named as in the file, after the file's name.
 */
export function flagWording(body: Record<string, unknown>, fromFile: ReadonlySet<string>, requestFile?: string): (line: string) => string {
  return (line) => {
    for (const { re, field, flag } of SENTENCES) {
      const m = re.exec(line);
      if (!m) continue;
      const name = field === '$1' ? m[1] : field;
      if (!(name in FLAG_OF)) return line;
      if (fromFile.has(name)) return `${requestFile}: ${line}`;
      const sentence = flag(m, FLAG_OF[name as keyof typeof FLAG_OF]);
      // a broken rule of a typed value repeats the value (the schema's sentence does not)
      return /^--\S+ (must|does not|combines)/.test(sentence) ? `${sentence}${typed(body[name])}` : sentence;
    }
    return line;
  };
}

/** A resolver warning in flag terms (the GPU warnings tell the user to send "gpu": true). */
export function warningWording(message: string): string {
  return message.replace('send "gpu": true', 'add --gpu').replace(/^gpu is true/, '--gpu is given');
}
