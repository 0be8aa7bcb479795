// Hot reload as editors, sed -i, rsync and git save (issue 24): a file replaced by rename is still seen
// the next time, every save reloads, and the scratch files editors leave beside a file are ignored. The
// server runs as a real process; as root it runs as nobody, so another user's mode-600 swap file is
// unreadable to it, as on a server where the operator edits as root and the service has its own user.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { catalogueCopy, service } from '../support/fixture.js';
import { spawnServer, stopServer, waitForOutput, type ServerProcess } from '../support/process.js';

const asRoot = process.getuid?.() === 0;

describe('hot reload survives how files are saved', () => {
  let server: ServerProcess;
  let folder: string;
  let manifest: string;

  const health = async () => ((await (await fetch(`${server.url}/api/v1/health`)).json()) as { data: { catalogue: { revision: string; lastReloadError: unknown } } }).data.catalogue;
  const description = async () => ((await (await fetch(`${server.url}/api/v1/services/saved`)).json()) as { data: { description: string } }).data.description;
  /** Runs `save`, waits for the reload it causes, and checks the new revision serves the new text. */
  const savedAndReloaded = async (text: string, save: () => void) => {
    const before = (await health()).revision;
    const mark = server.output().length;
    save();
    await waitForOutput(server, /catalogue reloaded \(files changed\)/, mark);
    const after = await health();
    assert.notEqual(after.revision, before, `the save "${text}" gave a new revision`);
    assert.equal(after.lastReloadError, null);
    assert.equal(await description(), text);
  };

  before(async () => {
    const dirs = catalogueCopy();
    folder = path.join(dirs.plugins, 'services', 'saved');
    manifest = path.join(folder, 'service.yaml');
    fs.mkdirSync(folder);
    fs.writeFileSync(manifest, service('saved').replace('A service for loader tests.', 'First save.'));
    server = await spawnServer({
      STACK_PLUGINS_DIR: dirs.plugins, STACK_CATALOGUE_DIR: dirs.catalogue, STACK_CATALOGUE_CACHE: '', STACK_RELOAD_DEBOUNCE_MS: '100',
    }, { user: asRoot ? { uid: 65534, gid: 65534 } : undefined });
    await waitForOutput(server, /watching .* changes reload the catalogue/);
  });
  after(async () => {
    await stopServer(server);
  });

  test('five rename-saves and five in-place saves of a manifest each reload the catalogue', async () => {
    assert.equal(await description(), 'First save.');
    for (let i = 1; i <= 5; i++) {
      // as an editor, sed -i or rsync: a new file beside the old one, renamed over it
      const text = `Renamed save ${i}.`;
      await savedAndReloaded(text, () => {
        const temp = path.join(folder, `.service.yaml.${i}.tmp`);
        fs.writeFileSync(temp, service('saved').replace('A service for loader tests.', text));
        fs.renameSync(temp, manifest);
      });
    }
    for (let i = 1; i <= 5; i++) {
      const text = `In-place save ${i}.`;
      await savedAndReloaded(text, () => fs.writeFileSync(manifest, service('saved').replace('A service for loader tests.', text)));
    }
  });

  test('editor scratch files (a mode-600 swap file, 4913, backups, locks) neither reload nor log a failure', async () => {
    const mark = server.output().length;
    const revision = (await health()).revision;
    // unreadable to the server: as root it runs as nobody; otherwise mode 000 keeps out its own user
    fs.writeFileSync(path.join(folder, '.service.yaml.swp'), 'vim swap', { mode: asRoot ? 0o600 : 0o000 });
    fs.writeFileSync(path.join(folder, '.service.yaml.swx'), 'vim swap (being made)', { mode: 0o600 });
    fs.writeFileSync(path.join(folder, '4913'), '');
    fs.writeFileSync(path.join(folder, '5036'), ''); // vim's next try when 4913 exists
    fs.rmSync(path.join(folder, '4913'));
    fs.rmSync(path.join(folder, '5036'));
    fs.writeFileSync(path.join(folder, 'service.yaml~'), 'backup');
    fs.symlinkSync('root@host.1234:1700000000', path.join(folder, '.#service.yaml'));
    fs.writeFileSync(path.join(folder, '#service.yaml#'), 'emacs auto-save');
    // a reload the scratch files caused would be logged well within this (the debounce is 100 ms)
    await sleep(1500);
    assert.doesNotMatch(server.output().slice(mark), /catalogue (reloaded|checked)/, 'scratch files do not reload the catalogue');
    assert.equal((await health()).revision, revision);

    await savedAndReloaded('Saved beside scratch files.', () => fs.writeFileSync(manifest, service('saved').replace('A service for loader tests.', 'Saved beside scratch files.')));
    const log = server.output().slice(mark);
    assert.doesNotMatch(log, /watching .*(failed|EACCES|permission)/i, 'no watch failure is logged');
    assert.doesNotMatch(log, /send SIGHUP to reload now/);
    assert.equal(log.match(/catalogue reloaded/g)?.length, 1, 'only the real save reloaded');
  });
});
