// The catalogue loader through its public API (loadCatalogue) and through the server's refusal to start.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import v8 from 'node:v8';
import { REPO_ROOT, readConfig } from '../../src/config.js';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { formatProblem } from '../../src/catalogue/problems.js';
import { settledDocument } from '../../src/catalogue/settled-document.js';
import { service, writeCatalogue } from '../support/fixture.js';
import { KEY } from '../support/keys.js';
import { expectProblem, problems } from '../support/problems.js';
import { logText } from '../support/process.js';

describe('the shipped catalogue', () => {
  const config = readConfig({});
  const result = loadCatalogue({ plugins: config.pluginsDir, catalogue: config.catalogueDir });

  test('loads without errors or warnings', () => {
    assert.deepEqual(result.errors.map(formatProblem), []);
    assert.deepEqual(result.warnings.map(formatProblem), []);
  });

  test('holds what issue 2 asks for: 8 frameworks, 3 proxies, 30+ services over 10+ categories, 6+ packs and presets', () => {
    const c = result.catalogue!;
    assert.deepEqual([...c.frameworks.keys()].sort(), ['claude-code', 'codex', 'copaw', 'memu', 'nanobot', 'nanoclaw', 'openclaw', 'zeroclaw']);
    assert.equal(c.defaultFramework, 'openclaw');
    assert.deepEqual([...c.proxies.keys()], ['caddy', 'nginx', 'traefik']);
    assert.ok(c.services.size >= 30, `${c.services.size} services`);
    assert.ok(c.servicesByCategory.size >= 10, `${c.servicesByCategory.size} categories in use`);
    assert.ok(c.skillPacks.size >= 6 && c.presets.size >= 6);
  });

  test('is frozen', () => {
    const s = result.catalogue!.services.get('postgresql')!;
    assert.throws(() => { (s.manifest as { name: string }).name = 'x'; }, TypeError);
  });

  test('keeps Latin-1 text as one-byte strings, also from a manifest holding a wider character', () => {
    // V8's serializer tags a two-byte string 'c' (0x63): such a manifest's strings would all be two-byte
    // as cut out of its text, and so every stack file holding one (settled-document.ts)
    const twoByte = (text: string) => v8.serialize(text)[2] === 0x63;
    assert.equal(twoByte('plain'), false);
    assert.equal(twoByte('em — dash'), true);
    const wide = [...result.catalogue!.services.values()].filter((s) => /[^\x00-\xff]/.test(fs.readFileSync(path.join(config.pluginsDir, 'services', s.id, 'service.yaml'), 'utf8')));
    assert.ok(wide.length > 0, 'a service manifest with a character past Latin-1');
    const strings: string[] = [];
    const collect = (value: unknown): void => {
      if (typeof value === 'string') strings.push(value);
      else if (value && typeof value === 'object') for (const v of Object.values(value)) collect(v);
    };
    for (const s of wide) collect(s.manifest);
    const latin1 = strings.filter((text) => !/[^\x00-\xff]/.test(text));
    assert.ok(latin1.length > 50);
    assert.deepEqual(latin1.filter(twoByte), []);
  });

  test('a manifest is rebuilt through JSON only where JSON keeps every value (.inf, .nan and -0 it would not)', () => {
    const plain = { a: 1, b: ['x', null, { c: true }] };
    assert.deepEqual(settledDocument(plain), plain);
    assert.notEqual(settledDocument(plain), plain, 'rebuilt');
    for (const odd of [{ n: Infinity }, { n: [Number.NaN] }, { n: { m: -0 } }]) assert.equal(settledDocument(odd), odd, JSON.stringify(odd));
  });

  test('a valid fixture loads', () => {
    const r = loadCatalogue(writeCatalogue());
    assert.deepEqual(r.errors.map(formatProblem), []);
    assert.deepEqual([...r.catalogue!.services.keys()], ['alpha', 'beta']);
  });
});

describe('broken plugins are refused with file, field and reason', () => {
  test('invalid YAML names the line', () => {
    expectProblem(problems({ 'plugins/services/alpha/service.yaml': 'name: [unclosed\n' }),
      'plugins/services/alpha/service.yaml', '', 'yaml.parse', /line \d+/);
  });

  test('a schema violation names the JSON pointer', () => {
    const list = problems({ 'plugins/services/alpha/service.yaml': service('alpha', 'ports:\n  - { container: "http", description: web }\nfavourite: blue\n').replace('maturity: stable', 'maturity: gold') });
    const file = 'plugins/services/alpha/service.yaml';
    expectProblem(list, file, '/maturity', 'schema', /must be one of: "stable", "beta", "experimental"/);
    expectProblem(list, file, '/ports/0/container', 'schema', /must be an integer/);
    expectProblem(list, file, '', 'schema', /unknown field "favourite"/);
  });

  test('a missing required field is named', () => {
    expectProblem(problems({ 'plugins/services/alpha/service.yaml': service('alpha').replace(/^image: .*\n/m, '') }),
      'plugins/services/alpha/service.yaml', '', 'schema', /missing required field "image"/);
  });

  test('an unknown reference is named with the nearest id', () => {
    expectProblem(problems({ 'plugins/services/beta/service.yaml': service('beta', 'requires: [alpah]\n') }),
      'plugins/services/beta/service.yaml', '/requires/0', 'ref.unknown', /unknown service "alpah" \(did you mean "alpha"\?\)/);
  });

  test('references to a plugin whose manifest did not load point at its errors, with no knock-on problems', () => {
    const list = problems({ 'plugins/services/alpha/service.yaml': service('alpha', 'bogusField: 1\n') });
    const cause = /service "alpha", whose manifest did not load \(fix the errors in plugins\/services\/alpha\/service\.yaml first\)/;
    expectProblem(list, 'plugins/services/alpha/service.yaml', '', 'schema', /unknown field "bogusField"/);
    expectProblem(list, 'plugins/services/beta/service.yaml', '/requires/0', 'ref.unknown', cause);
    expectProblem(list, 'plugins/skills/pack/skill-pack.yaml', '/requiredServices/0', 'ref.unknown', cause);
    // the preset holds beta, which requires alpha: whether it holds what the pack needs cannot be judged yet
    assert.deepEqual(list.filter((p) => p.rule === 'preset.inconsistent'), []);
    assert.equal(list.length, 3);
  });

  test('unknown conflictsWith, skill-pack and preset references are named', () => {
    const list = problems({
      'plugins/services/alpha/service.yaml': service('alpha', 'conflictsWith: [gamma]\n'),
      'plugins/skills/pack/skill-pack.yaml': 'name: Pack\ndescription: A pack for loader tests.\nrequiredServices: [alpha, delta]\nskills: [one]\n',
      'catalogue/presets/small.yaml': 'name: Small\ndescription: A preset for loader tests.\nservices: [beta, epsilon]\nskills: [pack, nopack]\nmemoryBudgetMB: 4096\n',
    });
    expectProblem(list, 'plugins/services/alpha/service.yaml', '/conflictsWith/0', 'ref.unknown', /"gamma"/);
    expectProblem(list, 'plugins/skills/pack/skill-pack.yaml', '/requiredServices/1', 'ref.unknown', /"delta"/);
    expectProblem(list, 'catalogue/presets/small.yaml', '/services/1', 'ref.unknown', /"epsilon"/);
    expectProblem(list, 'catalogue/presets/small.yaml', '/skills/1', 'ref.unknown', /"nopack"/);
  });

  test('a requires cycle is shown as a path', () => {
    expectProblem(problems({ 'plugins/services/alpha/service.yaml': service('alpha', 'requires: [beta]\n') }),
      'plugins/services/alpha/service.yaml', '/requires', 'requires.cycle', /alpha -> beta -> alpha/);
  });

  test('an id that does not match its folder is refused', () => {
    expectProblem(problems({ 'plugins/services/alpha/service.yaml': `id: alpha-copy\n${service('alpha')}` }),
      'plugins/services/alpha/service.yaml', '/id', 'id.mismatch', /"alpha-copy" does not match the folder name "alpha"/);
    expectProblem(problems({ 'plugins/services/Bad_Name/service.yaml': service('x') }),
      'plugins/services/Bad_Name/service.yaml', '', 'id.invalid', /"Bad_Name" is not a valid id/);
  });

  test('an unknown category is named', () => {
    expectProblem(problems({ 'plugins/services/alpha/service.yaml': service('alpha').replace('category: database', 'category: databases') }),
      'plugins/services/alpha/service.yaml', '/category', 'category.unknown', /"databases".*did you mean "database"/);
  });

  test('a preset missing a service its skill pack needs is inconsistent', () => {
    expectProblem(problems({
      'plugins/services/beta/service.yaml': service('beta'),
    }), 'catalogue/presets/small.yaml', '/skills/0', 'preset.inconsistent', /skill pack "pack" needs service "alpha"/);
  });

  test('a bad {{service.VAR}} reference, a template that does not compile and a missing skill file are named', () => {
    const list = problems({
      'plugins/services/beta/service.yaml': service('beta', 'requires: [alpha]\nenvironment:\n  - { name: URL, value: "x://{{alpha.NOPE}}", description: d }\n'),
      'plugins/frameworks/fw/config.yaml.eta': 'a: <% if ( %>\n',
      'plugins/skills/pack/skills/one.md': null,
    });
    expectProblem(list, 'plugins/services/beta/service.yaml', '/environment/0/value', 'env.ref', /declares no variable NOPE/);
    expectProblem(list, 'plugins/frameworks/fw/framework.yaml', '', 'template.compile', /config\.yaml\.eta/);
    expectProblem(list, 'plugins/skills/pack/skill-pack.yaml', '/skills/0', 'skill.missing', /skills\/one\.md/);
  });

  test('bad {{host:id}} and {{port:id:PORT}} references are named', () => {
    const list = problems({
      'plugins/services/beta/service.yaml': service('beta', 'requires: [alpha]\nenvironment:\n  - { name: A, value: "{{host:gamma}}", description: d }\n  - { name: B, value: "{{port:alpha:9999}}", description: d }\n  - { name: C, value: "{{port:alpha}}", description: d }\n'),
    });
    expectProblem(list, 'plugins/services/beta/service.yaml', '/environment/0/value', 'env.ref', /"gamma" is neither this plugin, a service it requires nor its ifPresent plugin/);
    expectProblem(list, 'plugins/services/beta/service.yaml', '/environment/1/value', 'env.ref', /"alpha" has no container port 9999/);
    expectProblem(list, 'plugins/services/beta/service.yaml', '/environment/2/value', 'env.ref', /write \{\{port:id:PORT\}\}/);
  });

  test('two plugins whose volumes would be one Docker volume are both named', () => {
    const r = loadCatalogue(writeCatalogue({
      'plugins/services/gamma/service.yaml': service('gamma', 'volumes: [{ name: b-data, target: /data, description: data }]\nstop: { gracePeriod: 30s }\nimageUser: "0:0"\n'),
      'plugins/services/gamma-b/service.yaml': service('gamma-b', 'volumes: [{ name: data, target: /var/lib/x, description: data }]\nstop: { gracePeriod: 30s }\nimageUser: "0:0"\n'),
    }));
    expectProblem(r.errors, 'plugins/services/gamma/service.yaml', '/volumes/0/name', 'volume.clash', /Docker volume "gamma-b-data", as would volume "data" of plugins\/services\/gamma-b/);
    expectProblem(r.errors, 'plugins/services/gamma-b/service.yaml', '/volumes/0/name', 'volume.clash', /Docker volume "gamma-b-data", as would volume "b-data" of plugins\/services\/gamma\//);
  });

  test('a folder the image declares a VOLUME without a volume at exactly that path is named', () => {
    const r = loadCatalogue(writeCatalogue({
      // /data/db is under the volume at /data, not at it: Docker would still make an anonymous volume there
      'plugins/services/gamma/service.yaml': service('gamma', 'imageVolumes: [/data, /data/db, /logs]\nvolumes: [{ name: data, target: /data, description: data }]\nstop: { gracePeriod: 30s }\n'),
      'plugins/services/delta/service.yaml': service('delta', 'imageVolumes: [/srv]\nvolumes: [{ name: srv, target: /srv, description: data }]\nstop: { gracePeriod: 30s }\n'),
    }));
    expectProblem(r.errors, 'plugins/services/gamma/service.yaml', '/imageVolumes/1', 'volume.image', /declares VOLUME \/data\/db, and no volume has target \/data\/db/);
    expectProblem(r.errors, 'plugins/services/gamma/service.yaml', '/imageVolumes/2', 'volume.image', /VOLUME \/logs/);
    assert.deepEqual(r.errors.filter((e) => e.rule === 'volume.image').map((e) => `${e.file}${e.pointer}`), ['plugins/services/gamma/service.yaml/imageVolumes/1', 'plugins/services/gamma/service.yaml/imageVolumes/2']);
  });

  test('a plugin with a volume says which user its claims belong to: a numeric user, or the user its image starts as', () => {
    const volume = 'volumes: [{ name: data, target: /data, description: data }]\nstop: { gracePeriod: 30s }\n';
    const r = loadCatalogue(writeCatalogue({
      'plugins/services/gamma/service.yaml': service('gamma', volume),
      'plugins/services/delta/service.yaml': service('delta', `${volume}user: app\n`),
      'plugins/services/kappa/service.yaml': service('kappa', `${volume}imageUser: "472:0"\n`),
      'plugins/services/lambda/service.yaml': service('lambda', `${volume}user: "999:999"\n`),
      'plugins/services/mu/service.yaml': service('mu'),
    }));
    expectProblem(r.errors, 'plugins/services/gamma/service.yaml', '/imageUser', 'volume.owner', /give imageUser, the uid:gid .* starts as/);
    expectProblem(r.errors, 'plugins/services/delta/service.yaml', '/user', 'volume.owner', /user "app" is a name, which Kubernetes cannot run a pod as/);
    assert.deepEqual(r.errors.filter((e) => e.rule === 'volume.owner').map((e) => e.file).sort(), ['plugins/services/delta/service.yaml', 'plugins/services/gamma/service.yaml']);
    // numbers only: a name is no imageUser
    const bad = problems({ 'plugins/services/nu/service.yaml': service('nu', `${volume}imageUser: grafana\n`) });
    assert.ok(bad.some((p) => p.file === 'plugins/services/nu/service.yaml' && p.pointer === '/imageUser'), bad.map(formatProblem).join('\n'));
  });

  test('a service and a framework sharing an id are refused', () => {
    const list = problems({ 'plugins/services/fw/service.yaml': service('fw') });
    expectProblem(list, 'plugins/services/fw/service.yaml', '', 'id.duplicate', /also the id of plugins\/frameworks\/fw\/framework\.yaml/);
    expectProblem(list, 'plugins/frameworks/fw/framework.yaml', '', 'id.duplicate', /also the id of plugins\/services\/fw\/service\.yaml/);
  });

  test('every problem is reported in one run', () => {
    const list = problems({
      'plugins/services/alpha/service.yaml': 'name: [unclosed\n',
      'plugins/services/beta/service.yaml': service('beta', 'requires: [zeta]\n'),
      'catalogue/presets/small.yaml': 'name: Small\n',
    });
    assert.ok(list.length >= 3, list.map(formatProblem).join('\n'));
    assert.deepEqual(new Set(list.map((p) => p.file)), new Set(['plugins/services/alpha/service.yaml', 'plugins/services/beta/service.yaml', 'catalogue/presets/small.yaml', 'plugins/skills/pack/skill-pack.yaml']));
  });

  test('a moving tag such as latest is refused: a stack must start the same image every time', () => {
    const list = problems({ 'plugins/services/alpha/service.yaml': service('alpha').replace('imageTag: "1.2.3"', 'imageTag: latest') });
    expectProblem(list, 'plugins/services/alpha/service.yaml', '/imageTag', 'image.latest', /moves under you: pin a release/);
  });
});

describe('the server on a broken catalogue', () => {
  test('refuses to start, exits non-zero and lists every problem', () => {
    const dirs = writeCatalogue({ 'plugins/services/beta/service.yaml': service('beta', 'requires: [zeta]\n').replace('category: database', 'category: nope') });
    const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'src/main.ts')], {
      env: { ...process.env, STACK_PLUGINS_DIR: dirs.plugins, STACK_CATALOGUE_DIR: dirs.catalogue, PORT: '0', STACK_API_KEY: KEY },
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.equal(run.status, 1, run.stdout + run.stderr);
    const log = logText(run.stdout);
    assert.match(log, /3 error\(s\); not starting/);
    assert.match(log, /plugins\/services\/beta\/service\.yaml {2}\/requires\/0 {2}ref\.unknown/);
    assert.match(log, /plugins\/services\/beta\/service\.yaml {2}\/category {2}category\.unknown/);
  });
});
