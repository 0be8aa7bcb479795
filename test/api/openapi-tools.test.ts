// OpenAPI tools pointed at the served URL, as automation would use them: Redocly's linter finds no
// error, and openapi-typescript generates types a typed client compiles against.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { REPO_ROOT } from '../../src/config.js';
import { startServer, type TestServer } from '../support/server.js';

function run(command: string, args: string[], cwd = REPO_ROOT): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = execFile(command, args, { cwd, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' }, timeout: 120_000 },
      (_e, stdout, stderr) => resolve({ code: child.exitCode, output: `${stdout}${stderr}` }));
  });
}
const bin = (name: string) => path.join(REPO_ROOT, 'node_modules', '.bin', name);

describe('OpenAPI tools read the served document', () => {
  let server: TestServer;
  before(async () => { server = await startServer(); });
  after(async () => { await server.close(); });

  test('redocly lint: no errors and no warnings', async () => {
    const result = await run(bin('redocly'), ['lint', `${server.url}/api/v1/openapi.json`, '--format', 'stylish']);
    assert.equal(result.code, 0, result.output);
    assert.match(result.output, /valid/i);
    assert.doesNotMatch(result.output, /\d+ warnings?/, result.output);
  });

  test('openapi-typescript generates types that a typed client compiles against', async () => {
    const dir = fs.mkdtempSync(path.join(REPO_ROOT, 'node_modules', '.openapi-client-'));
    try {
      const generated = await run(bin('openapi-typescript'), [`${server.url}/api/v1/openapi.json`, '-o', path.join(dir, 'api.d.ts')]);
      assert.equal(generated.code, 0, generated.output);
      fs.writeFileSync(path.join(dir, 'client.ts'), `import type { paths, components } from './api.js';
type GenerateBody = paths['/api/v1/generate']['post']['requestBody']['content']['application/json'];
type Conflict = components['schemas']['ErrorConflict']['error']['details'];
type Remaining = paths['/api/v1/services']['get']['responses'][200]['headers']['X-RateLimit-Remaining'];
const body: GenerateBody = { name: 'typed', preset: 'web-agent', proxy: 'caddy', format: 'tar' };
const conflict: Conflict = { conflicts: [{ services: ['redis', 'valkey'] }] };
const remaining: Remaining = 3;
// @ts-expect-error: an unknown proxy value type-checks only as a string, but a number never does
const wrong: GenerateBody = { name: 7 };
export { body, conflict, remaining, wrong };
`);
      fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', skipLibCheck: true }, files: ['client.ts'] }));
      const compiled = await run(process.execPath, [path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(dir, 'tsconfig.json')]);
      assert.equal(compiled.code, 0, compiled.output);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
