// The live check: the selection is sent to POST /api/v1/validate after a quiet moment, and the answer is
// shown twice: in the summary panel (status, memory, the lists) and beside the field each problem or
// warning concerns. What the page itself knows (an empty name) is merged into every answer, so a late
// answer never wipes it.
import { ApiFailure, apiKey, post } from './api.js';
import { $, count, el, megabytes } from './dom.js';

/** Which field a problem sentence of details.errors is about. */
const FIELD_OF_ERROR = [
  [/^name\b/, 'name'],
  [/^domain\b/, 'domain'],
  [/^proxy "[^"]+" serves plain HTTP/, 'proxy'],
  [/^preset\b|unknown preset/, 'preset'],
  [/^services\b|unknown service|is a framework, not a service/, 'services'],
  [/^skills\b|skill pack/, 'skills'],
  [/^primaryFramework\b|unknown primaryFramework/, 'primaryFramework'],
  [/^companionFrameworks\b|companion framework/, 'companionFrameworks'],
  [/^proxy\b|unknown proxy/, 'proxy'],
  [/^platform\b/, 'platform'],
  [/^gpu\b/, 'gpu'],
  [/^deploymentType\b/, 'deploymentType'],
];
const FIELD_OF_WARNING = { CONFLICT: 'services', PRESET_OVERRIDES: 'preset', GPU_REQUIRED: 'gpu', GPU_UNUSED: 'gpu', PLATFORM_UNSUPPORTED: 'platform' };
const CONTROL_OF_FIELD = { name: 'name', domain: 'domain', preset: 'preset', proxy: 'proxy', primaryFramework: 'primaryFramework', platform: 'platform' };
/** The engine's sentence for a skill pack whose service is missing: the page offers to add it. */
const MISSING_SERVICE = /^skill pack "[^"]+" needs service "([^"]+)"/;

const NAME_NEEDED = 'name is needed to generate: it becomes the Compose project name';

/**
 * ctx: request() → the validate body; nameMissing() → boolean; serviceName(id) → its name or undefined
 * (unknown); canAddService() → whether services can be added (no preset in use); keyRefused(failure).
 * The fix buttons carry data-add-service; the page adds the service when one is clicked.
 */
export function liveCheck(ctx) {
  const form = $('stack-form');
  const panel = $('validation');
  let timer;
  let inFlight;
  let lastSent = '';
  /** the last answer: { kind: 'nokey' | 'valid' | 'invalid' | 'failed' | 'refused', data?, errors?, text? } */
  let answer = { kind: 'nokey' };
  /**
   * the details opened or closed by the user; until then they open by themselves on a wide screen when
   * there is something to fix (on a phone the bar stays small: the problems are beside the fields)
   */
  let moreOpen;
  const wide = window.matchMedia('(min-width: 60rem)');

  const fixFor = (sentence) => {
    const id = MISSING_SERVICE.exec(sentence)?.[1];
    const name = id && ctx.serviceName(id);
    if (!name || !ctx.canAddService()) return null;
    return el('button', { type: 'button', class: 'fix', 'data-add-service': id }, `Add ${name} (${id})`);
  };

  const clearFieldMessages = () => {
    for (const box of form.querySelectorAll('[data-msg-for]')) box.replaceChildren();
    for (const control of form.querySelectorAll('[aria-invalid]')) control.removeAttribute('aria-invalid');
  };

  const addFieldMessage = (field, kind, text, fix) => {
    const box = form.querySelector(`[data-msg-for="${field}"]`);
    if (!box) return;
    box.append(el('p', { class: kind }, el('strong', {}, kind === 'error' ? 'Error: ' : 'Warning: '), text, fix ? ' ' : null, fix));
    if (kind === 'error' && CONTROL_OF_FIELD[field]) $(CONTROL_OF_FIELD[field]).setAttribute('aria-invalid', 'true');
  };

  const statusOf = (problems, warnings) => {
    const conflict = warnings.find((w) => w.code === 'CONFLICT');
    if (answer.kind === 'refused') return ['bad', 'The API key was refused and is forgotten: enter the key again (above) to check this selection.'];
    if (answer.kind === 'nokey') return ['muted', problems.length ? `Enter the API key to check the rest; ${count(problems.length, 'problem')} to fix already.` : 'Enter the API key to check the selection as you change it.'];
    if (answer.kind === 'failed') return ['bad', answer.text];
    if (problems.length) return ['bad', `Not ready: ${count(problems.length, 'problem')} to fix (shown next to the fields).`];
    if (conflict) return ['bad', `Generate will refuse this, because ${conflict.message}.`];
    if (warnings.length) return ['warn', `Valid, with ${count(warnings.length, 'warning')} (shown next to the fields).`];
    return ['ok', 'Valid: this stack can be generated.'];
  };

  /** Shows the last answer merged with what the page knows, in the panel and beside the fields. */
  const render = () => {
    clearFieldMessages();
    const problems = [...(ctx.nameMissing() ? [NAME_NEEDED] : []), ...(answer.kind === 'invalid' ? answer.errors : [])];
    const data = answer.kind === 'valid' ? answer.data : undefined;
    const warnings = data?.warnings ?? [];
    for (const sentence of problems) addFieldMessage(FIELD_OF_ERROR.find(([re]) => re.test(sentence))?.[1] ?? '', 'error', sentence, fixFor(sentence));
    for (const w of warnings) {
      addFieldMessage(FIELD_OF_WARNING[w.code] ?? '', 'warning', w.code === 'CONFLICT' ? `Generate will refuse this, because ${w.message} (${w.code})` : `${w.message} (${w.code})`);
    }
    const [tone, text] = statusOf(problems, warnings);
    const nodes = [el('p', { class: `status ${tone}` }, text)];
    if (data) {
      nodes.push(el('dl', { class: 'memory' },
        el('dt', {}, 'Memory the stack needs (estimate)'), el('dd', {}, megabytes(data.estimatedMemoryMB)),
        typeof data.memoryLimitMB === 'number' ? [el('dt', {}, 'Worst case (sum of the containers’ memory limits)'), el('dd', {}, megabytes(data.memoryLimitMB))] : null));
    }
    const lists = [
      problems.length ? [el('h3', {}, 'Problems'), el('ul', { class: 'errors' }, problems.map((p) => el('li', {}, p, fixFor(p) ? ' ' : null, fixFor(p))))] : null,
      warnings.length ? [el('h3', {}, 'Warnings'), el('ul', { class: 'warnings' }, warnings.map((w) => el('li', {}, el('strong', {}, `${w.code}: `), w.message)))] : null,
      data ? [el('h3', {}, `Services (${data.resolvedServices.length}, dependencies first)`), el('p', { class: 'list' }, data.resolvedServices.join(', ')),
        el('h3', {}, 'Skill packs'), el('p', { class: 'list' }, data.resolvedSkills.join(', ') || 'none'),
        el('p', { class: 'hint' }, 'Host-port clashes are moved at generation; the moves are listed with the generated stack.')] : null,
    ].filter(Boolean);
    if (lists.length) {
      const label = data ? `Details: ${count(data.resolvedServices.length, 'service')}, ${count(data.resolvedSkills.length, 'skill pack')}` : `Details: ${count(problems.length, 'problem')}`;
      const open = moreOpen ?? (wide.matches && (problems.length > 0 || warnings.length > 0));
      const more = el('details', { class: 'check-more', open }, el('summary', {}, label), lists);
      more.addEventListener('toggle', () => { moreOpen = more.open; });
      nodes.push(more);
    }
    // the panel is a live region: it is replaced only when what it says changes, so nothing is read twice
    const next = el('div', {}, nodes);
    if (next.innerHTML !== panel.innerHTML) panel.replaceChildren(...next.childNodes);
  };

  const validateNow = async () => {
    if (!apiKey.get()) {
      if (answer.kind !== 'refused') answer = { kind: 'nokey' };
      render();
      return;
    }
    const body = ctx.request();
    const text = JSON.stringify(body);
    if (text === lastSent) {
      render();
      return;
    }
    lastSent = text;
    inFlight?.abort();
    const controller = new AbortController();
    inFlight = controller;
    panel.setAttribute('aria-busy', 'true');
    try {
      const data = await post('/api/v1/validate', body, { signal: controller.signal });
      if (controller !== inFlight) return;
      answer = { kind: 'valid', data };
    } catch (e) {
      if (e.name === 'AbortError' || controller !== inFlight) return;
      lastSent = '';
      if (!(e instanceof ApiFailure)) throw e;
      if (e.code === 'VALIDATION_ERROR') answer = { kind: 'invalid', errors: [...new Set(e.details?.errors ?? [e.message])] };
      else if (e.status === 401) {
        answer = { kind: 'refused' };
        ctx.keyRefused(e);
      } else {
        answer = { kind: 'failed', text: `The check failed: ${e.describe()}${e.status === 429 || e.status === 503 ? ' The check runs again then by itself.' : ''}` };
        if (e.status === 429 || e.status === 503) schedule((e.retryAfter ?? 5) * 1000);
      }
    } finally {
      if (controller === inFlight) {
        panel.removeAttribute('aria-busy');
        inFlight = undefined;
      }
    }
    render();
  };

  /** Checks after `delay` ms of quiet; `force` sends the same body again (a new key). */
  function schedule(delay = 500, force = false) {
    clearTimeout(timer);
    if (force) lastSent = '';
    // what the page knows is shown at once; the server's part follows
    render();
    timer = setTimeout(validateNow, delay);
  }

  return {
    schedule,
    /** The key was refused or forgotten: the last answer no longer holds. */
    forget(refused) {
      inFlight?.abort();
      inFlight = undefined;
      lastSent = '';
      answer = { kind: refused ? 'refused' : 'nokey' };
      render();
    },
    /** Problems from a refused generate (the same sentences as validate's). */
    showProblems(errors) {
      lastSent = '';
      answer = { kind: 'invalid', errors: [...new Set(errors)] };
      render();
    },
  };
}
