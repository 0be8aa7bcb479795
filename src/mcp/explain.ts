// explain_error: what an API error code, a warning code or a loader rule means and what to do about it,
// from the codes' one definition (src/errors.ts, catalogue/problems.ts) and their rows in docs/errors.md,
// and advice on a sentence of details.errors.
import { fs } from '../node-builtins.js';
import path from 'node:path';
import { LOAD_RULES, didYouMean } from '../catalogue/problems.js';
import { REPO_ROOT } from '../config.js';
import { API_ERRORS, validationError, WARNINGS } from '../errors.js';
import { checkArgs, type Args } from './arguments.js';

type Section = 'api-error' | 'warning' | 'loader-rule';
const SECTIONS: Record<string, Section> = { 'API error codes': 'api-error', 'Warning codes': 'warning', 'Loader rules': 'loader-rule' };

const DOC_ROWS = (() => {
  let rows: Map<string, string[]> | undefined;
  /** The rows of docs/errors.md by section and code (the first cell naming the code in backticks). */
  return () => {
    if (rows) return rows;
    rows = new Map();
    let text = '';
    try { text = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'errors.md'), 'utf8'); } catch { /* the source tables still answer */ }
    let section: Section | undefined;
    for (const line of text.split('\n')) {
      const heading = /^## (.+)$/.exec(line);
      if (heading) section = SECTIONS[heading[1].trim()];
      if (!section || !line.startsWith('|')) continue;
      const cells = line.split('|').slice(1, -1).map((c) => c.trim());
      const code = cells.map((c) => /^`([^`]+)`$/.exec(c)?.[1]).find(Boolean);
      if (code) rows.set(`${section} ${code}`, [...(rows.get(`${section} ${code}`) ?? []), cells.join(' | ')]);
    }
    return rows;
  };
})();

/** The documentation rows of a code in one section of docs/errors.md, if any. */
function documentation(section: Section, code: string): { documentation?: string } {
  const rows = DOC_ROWS().get(`${section} ${code}`);
  return rows ? { documentation: rows.join('\n') } : {};
}

/** What a client should do about each API error code and warning. */
const ADVICE: Record<string, string> = {
  VALIDATION_ERROR: 'Read details.errors: each entry names a field and the rule it breaks, or an unknown id with the nearest existing id. Fix every entry, then call validate_stack again. Ids come from list_services, list_skill_packs, list_presets, list_frameworks_and_proxies.',
  UNAUTHORIZED: 'Send Authorization: Bearer <key> with a key configured in STACK_API_KEY (the same key as the HTTP API).',
  NOT_FOUND: 'The id does not exist; the message suggests the nearest one. List the valid ids with the list_* tools.',
  CONFLICT: 'Two selected services overlap in purpose (details.conflicts lists the pairs). Remove one service of each pair, then generate again; validate_stack reports the same pairs as CONFLICT warnings.',
  RATE_LIMITED: 'A rate-limit bucket is spent (read 100, write 20, generate 5 per minute by default); wait the seconds given in details.retryAfterSeconds (the Retry-After header over HTTP), then call again.',
  SERVICE_UNAVAILABLE: 'Too many generations are queued; wait a second and try again.',
  CONFLICT_WARNING: 'Remove one of the two services before generating: generate refuses the pair with CONFLICT.',
  PRESET_OVERRIDES: 'Send either preset or services/skills: with a preset, the services and skills sent are ignored.',
  GPU_REQUIRED: 'Send "gpu": true (and run the stack on a host with an NVIDIA GPU and the NVIDIA container toolkit), or drop the service.',
  GPU_UNUSED: 'Drop "gpu": true, or add a service that can use a GPU (e.g. a local model server).',
  PLATFORM_UNSUPPORTED: 'Choose the platform the image is published for, or accept emulation (slow) on this host.',
};

/** Known sentences of details.errors and what to do about each. */
const MESSAGE_PATTERNS: [RegExp, (m: RegExpExecArray) => string][] = [
  [/unknown (service|preset|skill pack|framework|proxy|category) "([^"]+)"/, (m) => `"${m[2]}" is not a ${m[1]} id in this catalogue. ${({ service: 'list_services (with text to search)', preset: 'list_presets', 'skill pack': 'list_skill_packs', framework: 'list_frameworks_and_proxies', proxy: 'list_frameworks_and_proxies (or send "none")', category: 'list_categories' } as Record<string, string>)[m[1]]} lists the valid ids; the message names the nearest one when one is close.`],
  [/skill pack "([^"]+)" needs service "([^"]+)"/, (m) => `Add "${m[2]}" to services (skill pack "${m[1]}" uses it), or drop the skill pack. get_service shows what "${m[2]}" is.`],
  [/^name must be/, () => 'name is the Compose project name: 1 to 63 characters of a-z, 0-9, _ and -, starting with a letter or digit, e.g. "my-stack".'],
  [/^domain must be/, () => 'domain is a host name such as "agents.example.com" (at least one dot) or "localhost"; omit it to reach services on localhost.'],
  [/^unknown field "([^"]+)"/, (m) => `"${m[1]}" is not a request field: the fields are those of the validate_stack / generate_stack input schema.`],
  [/companion/, () => 'companionFrameworks must not repeat the primary framework or list one framework twice.'],
];

/** Every code explain_error knows, each once (CONFLICT is both an error and a warning). */
export function knownCodes(): string[] {
  return [...new Set([...Object.keys(API_ERRORS), ...Object.keys(WARNINGS), ...Object.keys(LOAD_RULES)])];
}

export function explain(args: Args): Record<string, unknown> {
  const { code, message } = checkArgs(args, { code: { type: 'string' }, message: { type: 'string' } });
  if (!code && !message) throw validationError('the arguments are invalid', ['send code (an error code, a warning code or a loader rule id) or message (one entry of details.errors), or both']);
  const out: Record<string, unknown> = {};
  if (code) {
    const upper = code.toUpperCase();
    if (upper in API_ERRORS) {
      const e = API_ERRORS[upper as keyof typeof API_ERRORS];
      Object.assign(out, { kind: 'api-error', code: upper, httpStatus: e.status, meaning: e.meaning, whatToDo: ADVICE[upper], ...documentation('api-error', upper) });
      if (upper in WARNINGS) out.alsoAWarning = { meaning: WARNINGS[upper as keyof typeof WARNINGS], whatToDo: ADVICE[`${upper}_WARNING`], ...documentation('warning', upper) };
    } else if (upper in WARNINGS) {
      Object.assign(out, { kind: 'warning', code: upper, meaning: WARNINGS[upper as keyof typeof WARNINGS], whatToDo: ADVICE[upper], ...documentation('warning', upper) });
    } else if (code in LOAD_RULES) {
      Object.assign(out, { kind: 'loader-rule', code, meaning: LOAD_RULES[code as keyof typeof LOAD_RULES], whatToDo: 'A catalogue (plugin) problem, reported by the loader at start and by stackwright lint: fix the plugin file named in the problem. It concerns the operator of the service, not the request.', ...documentation('loader-rule', code) });
    } else {
      const all = knownCodes();
      throw validationError('the arguments are invalid', [`unknown code "${code}"${didYouMean(code, all)}; codes: ${all.join(', ')}`]);
    }
  }
  if (message) {
    const found = MESSAGE_PATTERNS.map(([re, advise]) => { const m = re.exec(message); return m ? advise(m) : undefined; }).filter(Boolean);
    out.message = message;
    out.messageAdvice = found.length ? found : ['No specific advice for this sentence: it names the field and the rule; fix that field and validate again.'];
  }
  return out;
}
