// What a plugin template sees and what the README says about logging in (issue 24), through a real
// server: a probe plugin dropped into the shipped catalogue prints its context, and the generated README
// shows its `login` in the route table and the address list.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { REPO_ROOT } from '../../src/config.js';
import { catalogueCopy, service } from '../support/fixture.js';
import { KEY } from '../support/keys.js';
import { spawnServer, stopServer, type ServerProcess } from '../support/process.js';

const PROBE = service('ctx-probe', `ports:
  - { container: 8080, host: 18093, web: true, auth: own, description: Web UI }
environment:
  - { name: ADMIN_USER, default: admin, description: admin user }
  - { name: ADMIN_PASSWORD, secret: true, description: admin password }
files:
  - { template: context.json.eta, target: /etc/probe/context.json }
login: "the user in {{ctx-probe.ADMIN_USER}} with the password in {{ctx-probe.ADMIN_PASSWORD}}"
`);
const DUMP = '<%= JSON.stringify({ keys: Object.keys(it), self: Object.keys(it.self), proxy: it.proxy, publicUrl: it.self.publicUrl, publicUrls: it.publicUrls, kinds: [...new Set(it.services.map((s) => s.kind))] }) %>\n';
const LOGIN = 'the user in `CTX_PROBE_ADMIN_USER` with the password in `CTX_PROBE_ADMIN_PASSWORD`';

interface Context { keys: string[]; self: string[]; proxy: unknown; publicUrl: string | null; publicUrls: Record<string, string>; kinds: string[] }

describe('the template context and the login field', () => {
  let server: ServerProcess;
  before(async () => {
    const dirs = catalogueCopy();
    const folder = path.join(dirs.plugins, 'services', 'ctx-probe');
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, 'service.yaml'), PROBE);
    fs.writeFileSync(path.join(folder, 'context.json.eta'), DUMP);
    server = await spawnServer({ STACK_PLUGINS_DIR: dirs.plugins, STACK_CATALOGUE_DIR: dirs.catalogue, STACK_CATALOGUE_CACHE: '', STACK_WATCH_CATALOGUE: '0' });
  });
  after(async () => {
    await stopServer(server);
  });

  const generate = async (request: Record<string, unknown>) => {
    const res = await fetch(`${server.url}/api/v1/generate`, {
      method: 'POST', headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'probe', services: ['ctx-probe'], ...request }),
    });
    const body = await res.json() as { data: { files: Record<string, string> } };
    assert.equal(res.status, 200, JSON.stringify(body));
    return { context: JSON.parse(body.data.files['config/ctx-probe/context.json']) as Context, readme: body.data.files['README.md'] };
  };

  test('behind Caddy with a domain: it.proxy and each public URL; the route table says how to log in', async () => {
    const { context, readme } = await generate({ proxy: 'caddy', domain: 'example.com' });
    assert.deepEqual(context.proxy, { id: 'caddy', name: 'Caddy', https: true });
    assert.equal(context.publicUrl, 'https://ctx-probe.example.com');
    assert.equal(context.publicUrls['ctx-probe'], 'https://ctx-probe.example.com');
    assert.deepEqual(context.kinds.sort(), ['framework', 'service']);
    assert.ok(readme.includes(`| https://ctx-probe.example.com/ | \`ctx-probe:8080\` | ${LOGIN} |`), readme);
  });

  test('without a proxy: it.proxy is null, the public URL is the published port, the address list says how to log in', async () => {
    const { context, readme } = await generate({});
    assert.equal(context.proxy, null);
    assert.match(context.publicUrl ?? '', /^http:\/\/localhost:\d+$/);
    assert.match(readme, new RegExp(`^- ctx-probe, web UI: http://localhost:\\d+/ \\(host port in \`\\.env\`: \`[A-Z0-9_]+\`\\); log in with ${LOGIN.replace(/[`.]/g, '\\$&')}$`, 'm'));
  });

  test('docs/plugins.md lists every name the template context carries, and every field of it.services', async () => {
    const { context } = await generate({ proxy: 'caddy', domain: 'example.com' });
    const doc = fs.readFileSync(path.join(REPO_ROOT, 'docs/plugins.md'), 'utf8');
    const table = doc.slice(doc.indexOf('## Templates'), doc.indexOf('## Hardened and bounded'));
    for (const key of context.keys) assert.match(table, new RegExp(`\\| \`it\\.${key}[\`(]`), `it.${key} is documented`);
    const servicesRow = table.split('\n').find((line) => line.startsWith('| `it.services` |'))!;
    for (const field of context.self) assert.match(servicesRow, new RegExp(`\\b${field}\\b`), `it.services[].${field} is documented`);
    for (const kind of context.kinds) assert.ok(servicesRow.includes(`\`${kind}\``), `kind ${kind} is documented`);
  });
});
