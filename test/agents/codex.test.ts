// Codex's first answer without a cloud key, run for real (issue 20): the CLI from npm at the catalogue's pin, with
// the model provider settings the README gives for the stack's Ollama, against test/stub-model/server.mjs.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { agentPackage, noteCommand, run, stubForFile } from '../support/agents.js';
import { shippedCatalogue } from '../support/server.js';

const codex = path.join(agentPackage('@openai/codex', 'codex'), 'bin', 'codex.js');
const { root, stub: currentStub } = stubForFile('codex');

test('without a key, the README\'s command for the stack\'s Ollama answers through its Responses API', async () => {
  const note = shippedCatalogue().frameworks.get('codex')!.manifest.firstRun.localModelsNote;
  const { env, program, args } = await noteCommand(note);
  assert.equal(program, 'codex');
  assert.ok(args.includes('model_providers.stack-ollama.base_url="http://ollama:11434/v1"'), args.join(' '));
  // the stub stands as the stack's Ollama; `codex exec` is the one-shot form of the interactive command
  const settings = args.map((a) => a.replace('http://ollama:11434', currentStub().url).replace('PLACEHOLDER', 'qwen3:4b'));
  const home = fs.mkdtempSync(path.join(root, 'home-'));
  const before = (await currentStub().requests()).length;
  const res = await run(process.execPath, [codex, 'exec', '--skip-git-repo-check', ...settings, 'hello from the offline codex test'], {
    cwd: home, env: { PATH: process.env.PATH, HOME: home, ...env }, timeoutMs: 400_000,
  });
  assert.equal(res.code, 0, `${res.stdout}\n${res.stderr}`);
  assert.match(res.stdout, /STUB-OK qwen3:4b: hello from the offline codex test/, res.stderr);
  const calls = (await currentStub().requests()).slice(before);
  assert.ok(calls.some((c) => c.path === '/v1/responses' && c.model === 'qwen3:4b'), JSON.stringify(calls));
});
