// Generate and download. One click of Generate is one POST /api/v1/generate with "format": "tar": the
// archive is kept as it came, its files are read from it for the list and the viewer (tar.js), and
// Download saves those same bytes, so downloading never generates again. A Generate that starts drops the
// previous stack first, so a failure can never leave an older stack looking like its result.
import { ApiFailure, apiKey, post } from './api.js';
import { $, count, el } from './dom.js';
import { readTarGz } from './tar.js';

/** ctx: request() → the generate body; nameMissing(); keyRefused(failure); showProblems(errors); focusKey(). */
export function generator(ctx) {
  const message = $('generate-msg');
  let kept; // { blob, filename, request } of the stack on screen
  let busy = false;

  const say = (kind, text) => message.replaceChildren(text ? el('p', { class: kind }, text) : '');

  const clear = () => {
    kept = undefined;
    $('bundle').hidden = true;
    $('file-list').replaceChildren();
    $('viewer').textContent = '';
    $('download').disabled = true;
  };

  const view = (files, path) => {
    const file = files.find((f) => f.path === path) ?? files[0];
    $('viewer-title').textContent = file.path;
    $('viewer').textContent = file.text;
    for (const button of $('file-list').querySelectorAll('button')) button.setAttribute('aria-pressed', String(button.dataset.path === file.path));
  };

  const show = (files, name) => {
    $('bundle-summary').textContent = `${name}: ${count(files.length, 'file')}, ${files.reduce((n, f) => n + f.size, 0).toLocaleString('en')} bytes. Choose a file to read it.`;
    $('file-list').replaceChildren(...files.map((f) => el('li', {},
      el('button', { type: 'button', class: 'file', 'data-path': f.path, 'aria-pressed': 'false' }, el('code', {}, f.path), ' ', el('span', { class: 'size' }, `${f.size.toLocaleString('en')} bytes`)))));
    const readme = files.find((f) => f.path === 'README.md')?.text ?? '';
    const moves = readme.split('\n').filter((line) => /^- Host port \d+ was already taken/.test(line)).map((line) => line.slice(2).replace(/`/g, ''));
    $('port-moves').replaceChildren(...(moves.length
      ? [el('h3', {}, 'Port moves'), el('ul', {}, moves.map((m) => el('li', {}, m)))]
      : [el('p', { class: 'hint' }, 'No host port had to move.')]));
    $('bundle-stale').hidden = true;
    $('bundle').hidden = false;
    view(files, 'README.md');
    $('file-list').onclick = (event) => {
      const path = event.target.closest('button[data-path]')?.dataset.path;
      if (path !== undefined) view(files, path);
    };
  };

  const generate = async () => {
    if (busy) return;
    if (!apiKey.get()) {
      say('error', 'Generating needs the API key: enter it above, then Generate again.');
      ctx.focusKey();
      return;
    }
    if (ctx.nameMissing()) {
      say('error', 'Not generated: a name is needed (the Compose project name); enter one in the Name field.');
      $('name').focus();
      return;
    }
    clear();
    busy = true;
    $('generate').setAttribute('aria-disabled', 'true');
    say('progress', 'Generating…');
    const request = ctx.request();
    try {
      const res = await post('/api/v1/generate', { ...request, format: 'tar' }, { raw: true });
      const blob = await res.blob();
      const filename = /filename="([^"]+)"/.exec(res.headers.get('Content-Disposition') ?? '')?.[1] ?? `${request.name}.tar.gz`;
      const files = await readTarGz(blob);
      kept = { blob, filename, request: JSON.stringify(request) };
      show(files, request.name);
      $('download').disabled = false;
      say('ok', `Generated ${request.name} (${count(files.length, 'file')}). Download saves this stack as ${filename}; its files are under “Generated stack”.`);
      $('bundle-title').focus();
    } catch (e) {
      if (!(e instanceof ApiFailure)) {
        say('error', `Not generated: ${e.message}`);
        throw e;
      }
      if (e.code === 'VALIDATION_ERROR') {
        ctx.showProblems(e.details?.errors ?? [e.message]);
        say('error', 'Not generated: fix the problems listed in the check and next to the fields.');
      } else if (e.code === 'CONFLICT') {
        say('error', `Not generated: Generate refused this selection, because ${e.message}.`);
      } else {
        if (e.status === 401) ctx.keyRefused(e);
        say('error', `Not generated. ${e.describe()}`);
      }
    } finally {
      busy = false;
      $('generate').removeAttribute('aria-disabled');
    }
  };

  $('download').addEventListener('click', () => {
    if (!kept) return;
    const url = URL.createObjectURL(kept.blob);
    const link = el('a', { href: url, download: kept.filename, hidden: true });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    say('ok', `Saved ${kept.filename} (the stack generated above; nothing was generated again).`);
  });

  return {
    generate,
    /** The selection changed: the stack on screen is marked as from an earlier selection. */
    selectionChanged(request) {
      if (kept) $('bundle-stale').hidden = kept.request === JSON.stringify(request);
    },
  };
}
