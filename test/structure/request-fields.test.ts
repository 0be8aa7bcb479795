// The request is defined once, in schemas/generate-request.schema.json. The TypeScript types and the
// fields' order (src/bundle/request-fields.generated.ts) are generated from it at build time, the CLI's
// flag table is typed by it, and the MCP tools read it at run time; this test holds the rest to it: every
// schema field and enum value reaches the CLI's help, the MCP tools' arguments and the page.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { REPO_ROOT } from '../../src/config.js';
import { REQUEST_PROPERTIES } from '../../src/bundle/request-fields.generated.js';
import { FLAG_OF } from '../../src/cli/flags.js';
import { createMcpServer } from '../../src/mcp/tools.js';
import { silentLogger } from '../../src/observability/log.js';
import { WorkQueue } from '../../src/usecases/work-queue.js';
import { shippedCatalogue } from '../support/server.js';

type Property = { enum?: string[]; type?: string };
const schema = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'schemas', 'generate-request.schema.json'), 'utf8')) as { properties: Record<string, Property> };
const fields = Object.keys(schema.properties);
/** How the CLI sets the one field that is no flag of its own: format tar is --tar <file>. */
const CLI_FORM: Record<string, string> = { format: '--tar' };
/** Fields the page does not offer yet, each with why (a stale entry fails below). */
const PAGE_LACKS: Record<string, string> = {
  hardened: 'no hardening switch on the page yet: its stacks are always hardened (issue 31 left it)',
  format: 'the page builds its own .tar.gz from the JSON bundle (web/tar.js)',
};

test('the generated request types are what the schema gives (npm run build writes them)', () => {
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'scripts', 'request-fields.mjs'), '--check'], { stdio: 'pipe' });
  assert.deepEqual([...REQUEST_PROPERTIES], fields);
});

test('every schema field is a CLI flag, named in stackwright help generate with its enum values', () => {
  const help = execFileSync(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'src', 'cli', 'main.ts'), 'help', 'generate'], { cwd: REPO_ROOT }).toString();
  for (const field of fields) {
    const flag = CLI_FORM[field] ?? (FLAG_OF as Record<string, string>)[field];
    assert.ok(flag, `schema field ${field} has no CLI flag (src/cli/flags.ts FLAG_OF)`);
    const line = help.split('\n').find((l) => l.trimStart().startsWith(`${flag} `) || l.trim() === flag);
    assert.ok(line, `stackwright help generate does not list ${flag} (${field})`);
    for (const value of schema.properties[field].enum ?? []) {
      if (field === 'format') continue;
      assert.ok(line.includes(value), `the help line of ${flag} does not name ${field}'s value ${value}: ${line}`);
    }
  }
});

test('every schema field and enum value is in the MCP tools\' arguments (validate_stack, generate_stack)', async () => {
  const catalogue = shippedCatalogue();
  const server = createMcpServer({ catalogue: () => catalogue, generator: () => { throw new Error('not used'); }, generations: new WorkQueue(1, 1), log: silentLogger, version: 'test' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'request-fields-test', version: '1' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  const { tools } = await client.listTools();
  for (const name of ['validate_stack', 'generate_stack']) {
    const properties = tools.find((t) => t.name === name)!.inputSchema.properties as Record<string, Property>;
    for (const field of fields) {
      assert.ok(properties[field], `${name} has no argument ${field}`);
      assert.deepEqual(properties[field].enum, schema.properties[field].enum, `${name}'s ${field} values`);
    }
  }
  await client.close();
});

test('every schema field and enum value is on the page, but for the ones it says it lacks', () => {
  const page = ['index.html', 'state.js'].map((f) => fs.readFileSync(path.join(REPO_ROOT, 'web', f), 'utf8')).join('\n');
  for (const field of fields) {
    const present = new RegExp(`name="${field}"|\\b${field}:`).test(page);
    if (field in PAGE_LACKS) {
      assert.ok(!present, `the page offers ${field} now: remove it from PAGE_LACKS`);
      continue;
    }
    assert.ok(present, `the page has no control for ${field}`);
    for (const value of schema.properties[field].enum ?? []) assert.match(page, new RegExp(`value="${value}"`), `the page does not offer ${field} ${value}`);
  }
});
