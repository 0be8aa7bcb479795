// npm run test:engine: the real-engine tier. Without arguments it runs the engine tests (node:test) as CI does
// (a representative part of each file, tiers.ts); with --all every engine test, then every preset booted behind
// Caddy with a table; with --presets [preset...] only that table. No engine is a failure, never a pass by skipping.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { engineProblem } from './engine.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const problem = await engineProblem();
if (problem) {
  console.error(`test:engine: the real-engine tier cannot run here: ${problem}`);
  process.exit(1);
}

const args = process.argv.slice(2);
// --presets [preset...]: only boot every preset (or the named ones) behind Caddy and print the table
if (args.includes('--presets')) {
  const { runAllPresets } = await import('./all-presets.js');
  process.exit(await runAllPresets(args.filter((a) => !a.startsWith('--'))));
}
// --all: every engine test in full (CI runs a representative part: tiers.ts), then every preset booted
const all = args.includes('--all');
if (all) process.env.STACKWRIGHT_ENGINE_ALL = '1';
const files = readdirSync(here).filter((f) => f.endsWith('.engine-test.ts')).sort().map((f) => path.join(here, f));
// spawn, not spawnSync: a dockerd started above is this process's child, and only a running event loop reaps
// it when a test stops it (a zombie still answers kill -0, so a test waiting for it to end would wait forever)
const runner = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=1', ...files], { stdio: 'inherit' });
runner.on('close', async (code, signal) => {
  const status = code ?? (signal ? 1 : 0);
  if (!all) process.exit(status);
  const { runAllPresets } = await import('./all-presets.js');
  process.exit(Math.max(status, await runAllPresets([])));
});
