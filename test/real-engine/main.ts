// npm run test:engine: the real-engine tier. Without arguments it runs the engine tests (node:test) on the
// representative stacks; with --all it boots every preset behind Caddy and prints a table. No engine is a
// failure, never a pass by skipping.
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

if (process.argv.includes('--all')) {
  const { runAllPresets } = await import('./all-presets.js');
  process.exit(await runAllPresets(process.argv.slice(2).filter((a) => a !== '--all')));
}

// --every-fault: the whole fault matrix of faults.engine-test.ts (CI runs one test of each kind of fault)
if (process.argv.includes('--every-fault')) process.env.STACKWRIGHT_EVERY_FAULT = '1';
const files = readdirSync(here).filter((f) => f.endsWith('.engine-test.ts')).sort().map((f) => path.join(here, f));
// spawn, not spawnSync: a dockerd started above is this process's child, and only a running event loop reaps
// it when a test stops it (a zombie still answers kill -0, so a test waiting for it to end would wait forever)
const runner = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=1', ...files], { stdio: 'inherit' });
runner.on('close', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
