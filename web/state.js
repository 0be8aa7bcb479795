// The selection: one object the form shows, the URL keeps (so a reload keeps it and a link shares it) and
// the API requests are made from. The URL uses the API's field names; lists are comma-separated.

const LISTS = ['services', 'skills', 'companionFrameworks'];
const TEXTS = ['name', 'preset', 'primaryFramework', 'proxy', 'domain', 'deploymentType', 'platform'];

export const DEFAULT_NAME = 'my-stack';

export function defaultSelection(defaultFramework) {
  return {
    name: DEFAULT_NAME, preset: '', services: [], skills: [], primaryFramework: defaultFramework, companionFrameworks: [],
    proxy: 'none', domain: '', deploymentType: 'docker', gpu: false, platform: '',
  };
}

/**
 * The selection a query string describes, over the defaults. Values the page does not offer (known: field
 * → Set of values, for the lists and the fields chosen from a list) are left out and returned in
 * `dropped`, so a stale link still opens (and says what it lost).
 */
export function selectionFromQuery(search, defaults, known) {
  const params = new URLSearchParams(search);
  const selection = structuredClone(defaults);
  const dropped = [];
  for (const key of TEXTS) {
    if (!params.has(key)) continue;
    const value = params.get(key).trim();
    if (value && known[key] && !known[key].has(value)) dropped.push(value);
    else selection[key] = value;
  }
  for (const key of LISTS) {
    if (!params.has(key)) continue;
    const ids = [...new Set(params.get(key).split(',').map((s) => s.trim()).filter(Boolean))];
    selection[key] = ids.filter((id) => known[key].has(id));
    dropped.push(...ids.filter((id) => !known[key].has(id)));
  }
  selection.gpu = params.get('gpu') === 'true';
  return { selection, dropped };
}

/** The query string of a selection: only what differs from the defaults. */
export function queryOfSelection(selection, defaults) {
  const params = new URLSearchParams();
  for (const key of TEXTS) if (selection[key] !== defaults[key]) params.set(key, selection[key]);
  for (const key of LISTS) if (selection[key].length) params.set(key, selection[key].join(','));
  if (selection.gpu) params.set('gpu', 'true');
  const text = params.toString().replace(/%2C/g, ',').replace(/%2F/g, '/');
  return text ? `?${text}` : '';
}

/** The API request body of a selection (fields at their default left out; a preset replaces services and skills). */
export function requestOfSelection(selection, defaults) {
  const body = {};
  if (selection.name.trim()) body.name = selection.name.trim();
  if (selection.preset) body.preset = selection.preset;
  else {
    if (selection.services.length) body.services = selection.services;
    if (selection.skills.length) body.skills = selection.skills;
  }
  if (selection.primaryFramework && selection.primaryFramework !== defaults.primaryFramework) body.primaryFramework = selection.primaryFramework;
  if (selection.companionFrameworks.length) body.companionFrameworks = selection.companionFrameworks;
  if (selection.proxy && selection.proxy !== 'none') body.proxy = selection.proxy;
  if (selection.domain.trim()) body.domain = selection.domain.trim();
  if (selection.deploymentType !== 'docker') body.deploymentType = selection.deploymentType;
  if (selection.gpu) body.gpu = true;
  if (selection.platform) body.platform = selection.platform;
  return body;
}
