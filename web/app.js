// The page: builds the form from the public catalogue reads, validates the selection as it changes
// (debounced POST /api/v1/validate), generates (JSON for the file list and README, tar for the download).
import { ApiFailure, apiKey, getData, post } from './api.js';

const $ = (id) => document.getElementById(id);
const form = $('stack-form');
const main = $('main');

/** Creates an element: el('p', { class: 'hint' }, 'text', child). Text is always set as text, never as HTML. */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value === undefined || value === null) continue;
    if (name === 'class') node.className = value;
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) if (child !== undefined && child !== null && child !== false) node.append(child);
  return node;
}

const catalogue = { services: [], skillPacks: [], presets: [], frameworks: [], proxies: [], defaultFramework: '', categories: new Map() };
const byId = (list) => new Map(list.map((x) => [x.id, x]));

// ---- alerts ---------------------------------------------------------------------------------------

function showAlert(text) {
  const alert = $('alert');
  alert.textContent = text;
  alert.hidden = !text;
}

function reportFailure(e, where) {
  if (!(e instanceof ApiFailure)) throw e;
  if (e.status === 401) setKeyStatus('The key was refused: enter the key of this server.', true);
  showAlert(`${where}: ${e.describe()}`);
}

// ---- the key --------------------------------------------------------------------------------------

function setKeyStatus(text, bad = false) {
  const status = $('key-status');
  status.textContent = text;
  status.classList.toggle('bad', bad);
}

function refreshKeyUi() {
  const has = Boolean(apiKey.get());
  $('forget-key').hidden = !has;
  $('api-key').value = '';
  $('api-key').placeholder = has ? 'a key is set for this tab' : '';
  $('api-key').required = !has;
  if (has) setKeyStatus('A key is set for this tab; it is forgotten when the tab closes.');
}

$('key-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const value = $('api-key').value.trim();
  if (!value) {
    setKeyStatus('Enter a key first.', true);
    return;
  }
  apiKey.set(value);
  refreshKeyUi();
  showAlert('');
  scheduleValidation(0, true);
});

$('forget-key').addEventListener('click', () => {
  apiKey.clear();
  refreshKeyUi();
  setKeyStatus('The key is forgotten. Validating and generating need it.');
  $('api-key').focus();
});

// ---- building the form ----------------------------------------------------------------------------

function checkbox(name, value, labelChildren, describedBy) {
  const input = el('input', { type: 'checkbox', name, value, id: `${name}-${value}`, 'aria-describedby': describedBy });
  return el('div', { class: 'choice-row', 'data-id': value }, el('label', { class: 'choice', for: input.id }, input, ' ', labelChildren));
}

function buildServices() {
  const groups = $('service-groups');
  groups.replaceChildren();
  const byCategory = new Map();
  for (const s of catalogue.services) {
    if (!byCategory.has(s.category)) byCategory.set(s.category, []);
    byCategory.get(s.category).push(s);
  }
  const order = [...catalogue.categories.keys(), ...[...byCategory.keys()].filter((c) => !catalogue.categories.has(c))];
  for (const id of order) {
    const services = byCategory.get(id);
    if (!services) continue;
    const category = catalogue.categories.get(id) ?? { name: id };
    const set = el('fieldset', { class: 'group', 'data-category': id },
      el('legend', {}, category.name),
      category.description ? el('p', { class: 'hint' }, category.description) : null);
    for (const s of services) {
      const descId = `service-desc-${s.id}`;
      const row = checkbox('services', s.id, [el('span', { class: 'choice-name' }, s.name), ' ', el('code', {}, s.id)], descId);
      const facts = [`${s.minMemoryMB} MB`, s.maturity];
      if (s.requires.length) facts.push(`adds ${s.requires.join(', ')}`);
      if (s.conflictsWith.length) facts.push(`conflicts with ${s.conflictsWith.join(', ')}`);
      row.append(el('p', { class: 'hint', id: descId }, `${s.description} (${facts.join(' · ')})`));
      row.dataset.search = [s.id, s.name, s.description, s.category, category.name, ...s.tags].join(' ').toLowerCase();
      set.append(row);
    }
    groups.append(set);
  }
  filterServices();
}

function buildSkills() {
  const list = $('skill-list');
  list.replaceChildren();
  for (const p of catalogue.skillPacks) {
    const descId = `skill-desc-${p.id}`;
    const row = checkbox('skills', p.id, [el('span', { class: 'choice-name' }, p.name), ' ', el('code', {}, p.id)], descId);
    const needs = p.requiredServices.length ? `needs ${p.requiredServices.join(', ')}` : 'needs no service';
    const uses = p.optionalServices.length ? `; can use ${p.optionalServices.join(', ')}` : '';
    row.append(el('p', { class: 'hint', id: descId }, `${p.description} (${p.skills.length} skills; ${needs}${uses})`));
    list.append(row);
  }
}

function buildFrameworks() {
  const primary = $('primaryFramework');
  primary.replaceChildren(...catalogue.frameworks.map((f) => el('option', { value: f.id, selected: f.id === catalogue.defaultFramework },
    `${f.name}${f.id === catalogue.defaultFramework ? ' (default)' : ''}`)));
  const list = $('companion-list');
  list.replaceChildren(...catalogue.frameworks.map((f) => {
    const row = checkbox('companionFrameworks', f.id, [el('span', { class: 'choice-name' }, f.name), ' ', el('code', {}, f.id)], `fw-desc-${f.id}`);
    row.append(el('p', { class: 'hint', id: `fw-desc-${f.id}` }, `${f.description} (${f.runtime}, ${f.minMemoryMB} MB)`));
    return row;
  }));
  syncCompanions();
}

function buildPresetsAndProxies() {
  $('preset').append(...catalogue.presets.map((p) => el('option', { value: p.id }, p.name)));
  $('proxy').append(...catalogue.proxies.map((p) => el('option', { value: p.id }, `${p.name} (${p.id})`)));
}

// ---- form state -----------------------------------------------------------------------------------

const checked = (name) => [...form.querySelectorAll(`input[name="${name}"]:checked`)].map((i) => i.value);
const setChecked = (name, ids) => {
  for (const input of form.querySelectorAll(`input[name="${name}"]`)) input.checked = ids.includes(input.value);
};

/** A preset decides the services and skill packs: they show its choice and cannot be changed until customised. */
function syncPreset() {
  const preset = byId(catalogue.presets).get($('preset').value);
  $('preset-desc').textContent = preset ? `${preset.description} Services: ${preset.services.join(', ')}. Skill packs: ${preset.skills.join(', ') || 'none'}.` : '';
  $('customise').hidden = !preset;
  $('services-locked').hidden = !preset;
  $('skills-locked').hidden = !preset;
  for (const input of form.querySelectorAll('input[name="services"], input[name="skills"]')) input.disabled = Boolean(preset);
  if (preset) {
    setChecked('services', preset.services);
    setChecked('skills', preset.skills);
  }
}

/** The primary framework cannot also be a companion. */
function syncCompanions() {
  const primary = $('primaryFramework').value;
  for (const input of form.querySelectorAll('input[name="companionFrameworks"]')) {
    input.disabled = input.value === primary;
    if (input.disabled) input.checked = false;
  }
}

function filterServices() {
  const words = $('service-search').value.toLowerCase().split(/\s+/).filter(Boolean);
  let shown = 0;
  for (const row of form.querySelectorAll('#service-groups .choice-row')) {
    // a chosen service stays visible, so a search never hides what is selected
    const match = words.every((w) => row.dataset.search.includes(w)) || row.querySelector('input').checked;
    row.hidden = !match;
    if (match) shown++;
  }
  for (const group of form.querySelectorAll('#service-groups .group')) group.hidden = !group.querySelector('.choice-row:not([hidden])');
  $('search-count').textContent = words.length ? `${shown} of ${catalogue.services.length} services shown` : `${catalogue.services.length} services`;
}

/** The request body the form describes (fields left at their default are left out). */
function stackRequest() {
  const body = {};
  const name = $('name').value.trim();
  if (name) body.name = name;
  const preset = $('preset').value;
  if (preset) body.preset = preset;
  else {
    const services = checked('services');
    const skills = checked('skills');
    if (services.length) body.services = services;
    if (skills.length) body.skills = skills;
  }
  const primary = $('primaryFramework').value;
  if (primary && primary !== catalogue.defaultFramework) body.primaryFramework = primary;
  const companions = checked('companionFrameworks');
  if (companions.length) body.companionFrameworks = companions;
  const proxy = $('proxy').value;
  if (proxy && proxy !== 'none') body.proxy = proxy;
  const domain = $('domain').value.trim();
  if (domain) body.domain = domain;
  const deployment = form.querySelector('input[name="deploymentType"]:checked')?.value;
  if (deployment && deployment !== 'docker') body.deploymentType = deployment;
  if ($('gpu').checked) body.gpu = true;
  const platform = $('platform').value;
  if (platform) body.platform = platform;
  return body;
}

// ---- messages next to fields ----------------------------------------------------------------------

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
const CONTROL_OF_FIELD = { name: 'name', domain: 'domain', preset: 'preset', proxy: 'proxy', primaryFramework: 'primaryFramework', gpu: 'gpu', platform: 'platform' };

function fieldOfError(sentence) {
  return FIELD_OF_ERROR.find(([re]) => re.test(sentence))?.[1];
}

function clearFieldMessages() {
  for (const box of form.querySelectorAll('[data-msg-for]')) box.replaceChildren();
  for (const control of form.querySelectorAll('[aria-invalid]')) control.removeAttribute('aria-invalid');
}

function addFieldMessage(field, kind, text) {
  const box = form.querySelector(`[data-msg-for="${field}"]`);
  if (!box) return false;
  box.append(el('p', { class: kind }, el('strong', {}, kind === 'error' ? 'Error: ' : 'Warning: '), text));
  if (kind === 'error' && CONTROL_OF_FIELD[field]) $(CONTROL_OF_FIELD[field]).setAttribute('aria-invalid', 'true');
  return true;
}

// ---- live validation ------------------------------------------------------------------------------

let validateTimer;
let inFlight;
let lastValidated = '';

function scheduleValidation(delay = 500, force = false) {
  clearTimeout(validateTimer);
  if (force) lastValidated = '';
  validateTimer = setTimeout(validateNow, delay);
}

async function validateNow() {
  if (!apiKey.get()) {
    renderValidation(el('p', { class: 'hint' }, 'Enter the API key to check the selection as you change it.'));
    return;
  }
  const body = stackRequest();
  const text = JSON.stringify(body);
  if (text === lastValidated) return;
  lastValidated = text;
  inFlight?.abort();
  const controller = new AbortController();
  inFlight = controller;
  $('validation').setAttribute('aria-busy', 'true');
  try {
    const data = await post('/api/v1/validate', body, { signal: controller.signal });
    if (controller !== inFlight) return;
    showAlert('');
    showValidation(data);
  } catch (e) {
    if (e.name === 'AbortError' || controller !== inFlight) return;
    lastValidated = '';
    if (e instanceof ApiFailure && e.code === 'VALIDATION_ERROR') {
      showAlert('');
      showProblems(e.details?.errors ?? [e.message]);
    } else {
      reportFailure(e, 'Checking the selection');
      if (e instanceof ApiFailure && e.status === 429) scheduleValidation((e.retryAfter ?? 5) * 1000);
    }
  } finally {
    if (controller === inFlight) $('validation').removeAttribute('aria-busy');
  }
}

function renderValidation(...nodes) {
  $('validation').replaceChildren(...nodes);
}

function showValidation(data) {
  clearFieldMessages();
  // each warning beside its field; all of them are listed in the panel too
  for (const w of data.warnings) addFieldMessage(FIELD_OF_WARNING[w.code] ?? '', 'warning', `${w.message} (${w.code})`);
  const gb = (data.estimatedMemoryMB / 1024).toFixed(1);
  renderValidation(
    el('p', { class: data.warnings.length ? 'status warn' : 'status ok' },
      data.warnings.length ? `Valid, with ${data.warnings.length} warning${data.warnings.length > 1 ? 's' : ''} (shown next to the fields).` : 'Valid: this stack can be generated.'),
    data.warnings.length ? el('ul', { class: 'warnings' }, data.warnings.map((w) => el('li', {}, el('strong', {}, `${w.code}: `), w.message))) : null,
    el('dl', { class: 'facts' },
      el('dt', {}, 'Memory estimate'), el('dd', {}, `${data.estimatedMemoryMB} MB (about ${gb} GB)`),
      el('dt', {}, `Services (${data.resolvedServices.length}, dependencies first)`), el('dd', {}, data.resolvedServices.join(', ')),
      el('dt', {}, 'Skill packs'), el('dd', {}, data.resolvedSkills.join(', ') || 'none')),
    el('p', { class: 'hint' }, 'Host-port clashes are moved at generation; the moves are listed with the generated stack.'),
  );
}

function showProblems(errors) {
  clearFieldMessages();
  for (const sentence of errors) addFieldMessage(fieldOfError(sentence) ?? '', 'error', sentence);
  renderValidation(
    el('p', { class: 'status bad' }, `Not valid: ${errors.length} problem${errors.length > 1 ? 's' : ''} to fix.`),
    el('ul', { class: 'errors' }, errors.map((e) => el('li', {}, e))),
  );
}

// ---- generate and download ------------------------------------------------------------------------

function needKeyAndName() {
  if (!apiKey.get()) {
    showAlert('Generating needs the API key: enter it above.');
    $('api-key').focus();
    return false;
  }
  if (!$('name').value.trim()) {
    clearFieldMessages();
    addFieldMessage('name', 'error', 'a name is needed to generate (the Compose project name)');
    $('name').focus();
    return false;
  }
  return true;
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  if (!needKeyAndName()) return;
  const status = $('generate-status');
  status.textContent = 'Generating…';
  $('generate').disabled = true;
  // the check beside shows the selection being generated
  scheduleValidation(0);
  try {
    const bundle = await post('/api/v1/generate', stackRequest());
    showAlert('');
    showBundle(bundle);
    status.textContent = `Generated ${Object.keys(bundle.files).length} files; download the .tar.gz to use them.`;
    $('download').disabled = false;
  } catch (e) {
    status.textContent = '';
    if (e instanceof ApiFailure && e.code === 'VALIDATION_ERROR') {
      showProblems(e.details?.errors ?? [e.message]);
      showAlert('The stack was not generated: fix the problems shown next to the fields.');
    } else if (e instanceof ApiFailure && e.code === 'CONFLICT') {
      clearFieldMessages();
      addFieldMessage('services', 'error', e.message);
      showAlert(`The stack was not generated: ${e.message}`);
    } else reportFailure(e, 'Generating');
  } finally {
    $('generate').disabled = false;
  }
});

function showBundle(bundle) {
  const s = bundle.summary;
  $('bundle-summary').textContent = `${bundle.name}: ${s.services} services, ${s.skills} skill packs, proxy ${s.proxy}, about ${s.estimatedMemoryMB} MB.`;
  $('file-list').replaceChildren(...Object.entries(bundle.files).map(([file, content]) =>
    el('li', {}, el('code', {}, file), ` ${new Blob([content]).size.toLocaleString('en')} bytes`)));
  const readme = bundle.files['README.md'] ?? '';
  $('readme').textContent = readme;
  const moves = readme.split('\n').filter((line) => /^- Host port \d+ was already taken/.test(line)).map((line) => line.slice(2).replace(/`/g, ''));
  $('port-moves').replaceChildren(...(moves.length
    ? [el('h3', {}, 'Port moves'), el('ul', {}, moves.map((m) => el('li', {}, m)))]
    : [el('p', { class: 'hint' }, 'No host port had to move.')]));
  $('bundle').hidden = false;
  $('bundle-title').focus();
}

$('download').addEventListener('click', async () => {
  if (!needKeyAndName()) return;
  const status = $('generate-status');
  status.textContent = 'Preparing the .tar.gz…';
  try {
    const res = await post('/api/v1/generate', { ...stackRequest(), format: 'tar' }, { raw: true });
    const name = /filename="([^"]+)"/.exec(res.headers.get('Content-Disposition') ?? '')?.[1] ?? `${$('name').value.trim()}.tar.gz`;
    const url = URL.createObjectURL(await res.blob());
    const link = el('a', { href: url, download: name, hidden: true });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    status.textContent = `Downloaded ${name}.`;
  } catch (e) {
    status.textContent = '';
    reportFailure(e, 'Downloading');
  }
});

// ---- wiring ---------------------------------------------------------------------------------------

form.addEventListener('input', (event) => {
  if (event.target.id === 'service-search') {
    filterServices();
    return;
  }
  scheduleValidation();
});
form.addEventListener('change', (event) => {
  const target = event.target;
  if (target.id === 'service-search') return;
  if (target.id === 'preset') syncPreset();
  if (target.id === 'primaryFramework') syncCompanions();
  scheduleValidation();
});
$('customise').addEventListener('click', () => {
  const preset = byId(catalogue.presets).get($('preset').value);
  $('preset').value = '';
  syncPreset();
  if (preset) {
    setChecked('services', preset.services);
    setChecked('skills', preset.skills);
  }
  filterServices();
  scheduleValidation(0);
  form.querySelector('#services-set input[type="checkbox"]')?.focus();
});

async function start() {
  try {
    catalogue.categories = new Map(JSON.parse(main.dataset.categories || '[]').map((c) => [c.id, c]));
  } catch { /* names fall back to ids */ }
  try {
    const [services, skills, presets, frameworks, proxies] = await Promise.all([
      getData('/api/v1/services'), getData('/api/v1/skills'), getData('/api/v1/presets'), getData('/api/v1/frameworks'), getData('/api/v1/proxies'),
    ]);
    Object.assign(catalogue, {
      services: services.services, skillPacks: skills.skillPacks, presets: presets.presets,
      frameworks: frameworks.frameworks, defaultFramework: frameworks.default, proxies: proxies.proxies,
    });
  } catch (e) {
    $('form-status').textContent = 'The catalogue could not be loaded.';
    reportFailure(e, 'Loading the catalogue');
    return;
  }
  buildPresetsAndProxies();
  buildServices();
  buildSkills();
  buildFrameworks();
  syncPreset();
  $('form-status').textContent = `${catalogue.services.length} services, ${catalogue.skillPacks.length} skill packs, ${catalogue.presets.length} presets, ${catalogue.frameworks.length} frameworks.`;
  form.dataset.ready = 'true';
  refreshKeyUi();
  scheduleValidation(0);
}

void start();
