// Run once when the kit builds a service's stand-in image (as root): creates the named user the manifest
// runs the service as, the volume folders owned by that user (as upstream images prepare their data
// folders), a shim for every program the manifest says the image carries that this image lacks, and each
// script file its health check hands to an interpreter, written to ask the stand-in server (so it fails
// while the server is down).
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const config = JSON.parse(readFileSync('/standin/config.json', 'utf8'));
const has = (program) => {
  try { execFileSync('sh', ['-c', `command -v "$1"`, 'sh', program], { stdio: 'ignore' }); return true; } catch { return false; }
};
let owner = '0:0';
if (config.user) {
  const [name, group] = config.user.split(':');
  if (/^\d+$/.test(name)) owner = `${name}:${group ?? name}`;
  else {
    if (!safeId(name)) execFileSync('useradd', ['--system', '--create-home', name]);
    owner = `${name}:${group ?? name}`;
  }
}
function safeId(name) { try { execFileSync('id', [name], { stdio: 'ignore' }); return true; } catch { return false; } }
for (const dir of config.volumes) {
  mkdirSync(dir, { recursive: true });
  execFileSync('chown', [owner, dir]);
}
// a file the image ships in a seeded folder (its default configuration, say): the server checks it is there
// (entry.sh checks before the server's pid is recorded, so no probe can pass while it ends)
for (const dir of config.seeded ?? []) writeFileSync(`${dir}/.standin-image-file`, `shipped in ${config.image}\n`);
writeFileSync('/standin/seeded', (config.seeded ?? []).map((dir) => `${dir}\n`).join(''));
for (const program of config.binaries) {
  // a program named relative to upstream's working folder (./venv/bin/python) goes under the stand-in's own
  const path = program.startsWith('/') ? program : program.startsWith('./') ? `/standin/work/${program.slice(2)}` : `/usr/local/bin/${program}`;
  if (program.includes('/') ? existsSync(path) : has(program)) continue;
  mkdirSync(dirname(path), { recursive: true });
  copyFileSync('/standin/shim.sh', path);
  chmodSync(path, 0o755);
}

const port = config.ports[0] ?? 0;
const probes = {
  py: `import sys, urllib.request\ntry:\n    urllib.request.urlopen("http://127.0.0.1:${port}/", timeout=5)\nexcept Exception:\n    sys.exit(1)\n`,
  js: `fetch("http://127.0.0.1:${port}/").then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1));\n`,
  php: `<?php exit(@file_get_contents("http://127.0.0.1:${port}/") === false ? 1 : 0);\n`,
  sh: `#!/bin/sh\nexec curl -fsS -o /dev/null "http://127.0.0.1:${port}/"\n`,
};
for (const script of config.scripts ?? []) {
  const path = script.startsWith('/') ? script : `/standin/work/${script.replace(/^\.\//, '')}`;
  if (existsSync(path)) continue;
  const extension = script.split('.').pop();
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, probes[{ mjs: 'js', cjs: 'js' }[extension] ?? extension]);
  chmodSync(path, 0o755);
}
