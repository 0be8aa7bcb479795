// The page: builds the form from the public catalogue reads and keeps one selection object that the form
// shows, the address keeps (state.js) and the live check (check.js) and Generate (bundle.js) send.
import { apiKey, getData } from './api.js';
import { liveCheck } from './check.js';
import { generator } from './bundle.js';
import { chooser } from './chooser.js';
import { $, count, el } from './dom.js';
import { defaultSelection, queryOfSelection, requestOfSelection, selectionFromQuery } from './state.js';

const form = $('stack-form');
const main = $('main');

const catalogue = { services: [], skillPacks: [], presets: [], frameworks: [], proxies: [], defaultFramework: '', categories: new Map() };
const byId = (list) => new Map(list.map((x) => [x.id, x]));

let defaults;
let selection;
/** the selection before the last preset was applied, while it may be restored */
let undo;
let services;
let skills;

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

/** A 401: the key is forgotten, the check's last result with it, and the key is asked for again. */
function keyRefused(failure) {
  apiKey.clear();
  refreshKeyUi();
  setKeyStatus(`The key was refused (${failure.message}) and is forgotten: enter the key of this server again.`, true);
  check.forget(true);
}

const check = liveCheck({
  request: () => requestOfSelection(selection, defaults),
  nameMissing: () => !selection.name.trim(),
  serviceName: (id) => byId(catalogue.services).get(id)?.name,
  canAddService: () => !selection.preset,
  keyRefused,
});

const stack = generator({
  request: () => requestOfSelection(selection, defaults),
  nameMissing: () => !selection.name.trim(),
  keyRefused: (failure) => {
    keyRefused(failure);
    $('api-key').focus();
  },
  showProblems: (errors) => check.showProblems(errors),
  focusKey: () => $('api-key').focus(),
});

$('key-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const value = $('api-key').value.trim();
  if (!value) {
    setKeyStatus('Enter a key first.', true);
    return;
  }
  apiKey.set(value);
  refreshKeyUi();
  check.schedule(0, true);
});

$('forget-key').addEventListener('click', () => {
  apiKey.clear();
  refreshKeyUi();
  setKeyStatus('The key is forgotten. Checking and generating need it.');
  check.forget(false);
  $('api-key').focus();
});

// ---- the selection --------------------------------------------------------------------------------

/** After every change: the address, the preset's notes, the check, and the generated stack's freshness. */
function changed(delay) {
  history.replaceState(null, '', `${location.pathname}${queryOfSelection(selection, defaults)}`);
  showPreset();
  services.show(selection.services);
  skills.show(selection.skills);
  showCompanions();
  stack.selectionChanged(requestOfSelection(selection, defaults));
  check.schedule(delay);
}

/** Every control set from the selection (at start, and after a preset, an undo or a fix). */
function showSelection() {
  $('name').value = selection.name;
  $('preset').value = selection.preset;
  $('primaryFramework').value = selection.primaryFramework;
  $('proxy').value = selection.proxy;
  $('domain').value = selection.domain;
  for (const radio of form.querySelectorAll('input[name="deploymentType"]')) radio.checked = radio.value === selection.deploymentType;
  $('gpu').checked = selection.gpu;
  $('platform').value = selection.platform;
}

function toggle(list, id, chosen) {
  selection[list] = chosen ? [...new Set([...selection[list], id])] : selection[list].filter((x) => x !== id);
  changed();
}

// ---- presets: browsing the list only describes; applying is a button, and can be undone ----------------

function describeSelection(s) {
  if (s.preset) return `the preset “${byId(catalogue.presets).get(s.preset)?.name ?? s.preset}”`;
  return `your choice of ${count(s.services.length, 'service')} and ${count(s.skills.length, 'skill pack')}`;
}

function showPreset() {
  const presets = byId(catalogue.presets);
  const browsed = presets.get($('preset').value);
  const applied = presets.get(selection.preset);
  $('preset-desc').textContent = browsed
    ? `${browsed.description} Services: ${browsed.services.join(', ')}. Skill packs: ${browsed.skills.join(', ') || 'none'}.`
    : 'Choose services and skill packs yourself, below.';
  const apply = $('apply-preset');
  apply.hidden = $('preset').value === selection.preset;
  apply.textContent = browsed ? `Use “${browsed.name}”` : 'Stop using the preset';
  const notes = [];
  if (applied) {
    notes.push(el('p', { class: 'hint' }, `In use: the preset “${applied.name}”.`, ' ',
      el('button', { type: 'button', id: 'customise' }, 'Customise this preset')));
  }
  if (undo) {
    notes.push(el('p', { class: 'hint' }, `It replaced ${describeSelection(undo)}.`, ' ', el('button', { type: 'button', id: 'undo-preset' }, 'Undo')));
  }
  $('preset-state').replaceChildren(...notes);
  for (const [which, noun] of [['services', 'services'], ['skills', 'skill packs']]) {
    const locked = $(`${which}-locked`);
    locked.hidden = !applied;
    locked.textContent = applied ? `The preset “${applied.name}” decides the ${noun}: ${applied[which].join(', ') || 'none'}. Choose “Customise this preset” (under Preset) to change them.` : '';
    $(`${which}-chooser`).hidden = Boolean(applied);
  }
}

function applyPreset() {
  const id = $('preset').value;
  const before = structuredClone(selection);
  if (!id) {
    customise();
    return;
  }
  const preset = byId(catalogue.presets).get(id);
  // something of the user's own is being replaced: it may be restored
  undo = before.preset || before.services.length || before.skills.length ? before : undefined;
  Object.assign(selection, { preset: preset.id, services: [], skills: [] });
  changed(0);
  $('preset').focus();
}

/** The preset's services and skill packs become the user's own selection, to change freely. */
function customise() {
  const preset = byId(catalogue.presets).get(selection.preset);
  if (!preset) return;
  Object.assign(selection, { preset: '', services: [...preset.services], skills: [...preset.skills] });
  undo = undefined;
  $('preset').value = '';
  changed(0);
  $('services-search').focus();
}

$('preset').addEventListener('change', showPreset);
$('apply-preset').addEventListener('click', applyPreset);
$('preset-state').addEventListener('click', (event) => {
  if (event.target.id === 'customise') customise();
  if (event.target.id === 'undo-preset') {
    selection = undo;
    undo = undefined;
    showSelection();
    changed(0);
    $('preset').focus();
  }
});

// ---- building the form ----------------------------------------------------------------------------

function buildChoosers() {
  const categories = catalogue.categories;
  const order = [...categories.keys(), ...new Set(catalogue.services.map((s) => s.category).filter((c) => !categories.has(c)))];
  services = chooser({
    root: $('services-chooser'), name: 'services', noun: ['service', 'services'],
    groups: order.map((id) => categories.get(id) ?? { id, name: id }),
    items: catalogue.services.map((s) => ({
      id: s.id, name: s.name, description: s.description, group: s.category,
      facts: [`needs ${s.minMemoryMB} MB`, s.maturity, s.requires.length ? `adds ${s.requires.join(', ')}` : '', s.conflictsWith.length ? `conflicts with ${s.conflictsWith.join(', ')}` : ''].filter(Boolean).join(' · '),
      text: [s.description, s.category, categories.get(s.category)?.name ?? '', ...s.tags].join(' '),
    })),
    onToggle: (id, chosen) => toggle('services', id, chosen),
  });
  skills = chooser({
    root: $('skills-chooser'), name: 'skills', noun: ['skill pack', 'skill packs'],
    groups: [{ id: 'all', name: 'All skill packs', description: 'Each pack needs the services it names; the check offers to add a missing one.' }],
    items: catalogue.skillPacks.map((p) => ({
      id: p.id, name: p.name, description: p.description, group: 'all',
      facts: `${count(p.skills.length, 'skill')}; ${p.requiredServices.length ? `needs ${p.requiredServices.join(', ')}` : 'needs no service'}${p.optionalServices.length ? `; can use ${p.optionalServices.join(', ')}` : ''}`,
      text: [p.description, ...p.requiredServices, ...p.optionalServices, ...p.skills].join(' '),
    })),
    onToggle: (id, chosen) => toggle('skills', id, chosen),
  });
}

function buildFrameworks() {
  $('primaryFramework').replaceChildren(...catalogue.frameworks.map((f) => el('option', { value: f.id },
    `${f.name}${f.id === catalogue.defaultFramework ? ' (default)' : ''}`)));
  $('companion-list').replaceChildren(...catalogue.frameworks.map((f) => el('div', { class: 'choice-row' },
    el('label', { class: 'choice', for: `companionFrameworks-${f.id}` },
      el('input', { type: 'checkbox', name: 'companionFrameworks', value: f.id, id: `companionFrameworks-${f.id}`, 'aria-describedby': `fw-desc-${f.id}` }),
      el('span', {}, el('span', { class: 'choice-name' }, f.name), ' ', el('code', {}, f.id))),
    el('p', { class: 'hint', id: `fw-desc-${f.id}` }, `${f.description} (${f.runtime}, needs ${f.minMemoryMB} MB)`))));
}

/** The companions: the primary framework cannot also be one. */
function showCompanions() {
  for (const input of form.querySelectorAll('input[name="companionFrameworks"]')) {
    input.disabled = input.value === selection.primaryFramework;
    input.checked = selection.companionFrameworks.includes(input.value);
  }
  const n = selection.companionFrameworks.length;
  $('companion-count').textContent = `${catalogue.frameworks.length}${n ? `, ${n} chosen` : ''}`;
}

// ---- wiring ---------------------------------------------------------------------------------------

const TEXT_FIELDS = { name: 'name', domain: 'domain' };
const SELECT_FIELDS = { primaryFramework: 'primaryFramework', proxy: 'proxy', platform: 'platform' };

form.addEventListener('input', (event) => {
  const field = TEXT_FIELDS[event.target.id];
  if (!field) return;
  selection[field] = event.target.value;
  changed();
});
form.addEventListener('change', (event) => {
  const target = event.target;
  if (SELECT_FIELDS[target.id]) {
    selection[SELECT_FIELDS[target.id]] = target.value;
    if (target.id === 'primaryFramework') selection.companionFrameworks = selection.companionFrameworks.filter((f) => f !== target.value);
  } else if (target.name === 'deploymentType') selection.deploymentType = target.value;
  else if (target.id === 'gpu') selection.gpu = target.checked;
  else if (target.name === 'companionFrameworks') {
    selection.companionFrameworks = target.checked
      ? [...selection.companionFrameworks, target.value]
      : selection.companionFrameworks.filter((f) => f !== target.value);
  } else return;
  changed();
});
form.addEventListener('submit', (event) => {
  event.preventDefault();
  void stack.generate();
});
// the one-click fix of a skill pack whose service is missing (in the check and beside the skill packs)
document.addEventListener('click', (event) => {
  const id = event.target.closest('[data-add-service]')?.dataset.addService;
  if (!id || selection.preset) return;
  toggle('services', id, true);
  check.schedule(0);
  $('services-chooser').querySelector(`[data-remove="${CSS.escape(id)}"]`)?.focus();
});

async function start() {
  try {
    catalogue.categories = new Map(JSON.parse(main.dataset.categories || '[]').map((c) => [c.id, c]));
  } catch { /* names fall back to ids */ }
  try {
    const [servicesData, skillsData, presets, frameworks, proxies] = await Promise.all([
      getData('/api/v1/services'), getData('/api/v1/skills'), getData('/api/v1/presets'), getData('/api/v1/frameworks'), getData('/api/v1/proxies'),
    ]);
    Object.assign(catalogue, {
      services: servicesData.services, skillPacks: skillsData.skillPacks, presets: presets.presets,
      frameworks: frameworks.frameworks, defaultFramework: frameworks.default, proxies: proxies.proxies,
    });
  } catch (e) {
    $('form-status').textContent = 'The catalogue could not be loaded.';
    const alert = $('alert');
    alert.textContent = `Loading the catalogue: ${e.describe?.() ?? e.message}. Reload the page to try again.`;
    alert.hidden = false;
    return;
  }
  $('preset').append(...catalogue.presets.map((p) => el('option', { value: p.id }, p.name)));
  $('proxy').append(...catalogue.proxies.map((p) => el('option', { value: p.id }, `${p.name} (${p.id})`)));
  buildChoosers();
  buildFrameworks();
  defaults = defaultSelection(catalogue.defaultFramework);
  const optionsOf = (id) => new Set([...$(id).options].map((o) => o.value));
  const known = {
    services: new Set(catalogue.services.map((s) => s.id)), skills: new Set(catalogue.skillPacks.map((p) => p.id)),
    companionFrameworks: new Set(catalogue.frameworks.map((f) => f.id)),
    preset: optionsOf('preset'), primaryFramework: optionsOf('primaryFramework'), proxy: optionsOf('proxy'), platform: optionsOf('platform'),
    deploymentType: new Set([...form.querySelectorAll('input[name="deploymentType"]')].map((r) => r.value)),
  };
  const { selection: fromUrl, dropped } = selectionFromQuery(location.search, defaults, known);
  selection = fromUrl;
  showSelection();
  $('form-status').textContent = `${catalogue.services.length} services, ${catalogue.skillPacks.length} skill packs, ${catalogue.presets.length} presets, ${catalogue.frameworks.length} frameworks.`
    + (dropped.length ? ` The link named what this page does not offer, left out: ${dropped.join(', ')}.` : '');
  refreshKeyUi();
  changed(0);
  form.dataset.ready = 'true';
}

void start();
