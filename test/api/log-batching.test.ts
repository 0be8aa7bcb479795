// The service's standard output is written in batches (src/observability/batched-lines.ts). A collector
// must still get every line, whole and in order: when it reads slowly (the pipe fills up), and when the
// process exits before a batch is full.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, test } from 'node:test';
import { REPO_ROOT } from '../../src/config.js';
import { parseLogLine } from '../support/process.js';

/** A process that logs through the service's logger (JSON lines on stdout): `script` runs with `log` in scope. */
function logWith(script: string): { stdout: NodeJS.ReadableStream; exit: Promise<number | null>; kill: () => void } {
  const logModule = JSON.stringify(path.join(REPO_ROOT, 'src/observability/log.ts'));
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e',
    `import { createLogger } from ${logModule}; const log = createLogger({ level: 'info', format: 'json' }); ${script}`], { stdio: ['ignore', 'pipe', 'inherit'] });
  return { stdout: child.stdout!, exit: new Promise((r) => child.on('exit', r)), kill: () => child.kill() };
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let out = '';
  for await (const chunk of stream) out += String(chunk);
  return out;
}

describe('log lines written in batches', () => {
  test('a reader that falls behind gets every line, whole and in order (the full pipe is waited on)', async () => {
    // 5 MB of lines, far more than a pipe holds: the writer meets a full pipe many times
    const lines = 20_000;
    const { stdout, exit } = logWith(`for (let i = 0; i < ${lines}; i++) log.info({ i, pad: 'x'.repeat(200) }, 'line ' + i);`);
    stdout.pause();
    await new Promise((r) => setTimeout(r, 500));
    const [out, code] = await Promise.all([readAll(stdout), exit]);
    assert.equal(code, 0);
    const records = out.split('\n').filter(Boolean).map(parseLogLine);
    assert.equal(records.length, lines);
    records.forEach((record, i) => assert.equal(record.i, i, `line ${i} in its place`));
  });

  test('lines short of a batch are written when the process exits, process.exit included', async () => {
    const { stdout, exit } = logWith(`log.info('first'); log.warn({ code: 3 }, 'last words'); process.exit(3);`);
    const [out, code] = await Promise.all([readAll(stdout), exit]);
    assert.equal(code, 3);
    assert.deepEqual(out.split('\n').filter(Boolean).map((l) => parseLogLine(l).msg), ['first', 'last words']);
  });

  test('lines short of a batch are written within moments while the process runs on', async () => {
    const { stdout, exit, kill } = logWith(`log.info('while running'); setTimeout(() => process.exit(0), 60_000);`);
    let out = '';
    for await (const chunk of stdout) {
      out += String(chunk);
      if (out.includes('\n')) break;
    }
    kill();
    await exit;
    assert.equal(parseLogLine(out.split('\n')[0]).msg, 'while running');
  });
});
