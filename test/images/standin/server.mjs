// The generic stand-in's server. It reads /standin/config.json (made from the plugin manifest when the kit
// builds the image) and:
//  - checks it can write to every volume the manifest names (as the user the stack runs it as), and keeps a
//    start count there, so a second start on kept volumes is seen and a permission problem stops the container;
//  - stops when a folder the manifest seeds (seed: true) lacks the file prepare.mjs put there in the image;
//  - listens on every TCP port the manifest names and answers any HTTP request with 200 and a small JSON body
//    holding the words health checks look for.
// It proves orchestration only: ports, networks, volumes, users, health checks, restarts. Not upstream's program.
import { createServer } from 'node:http';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';

const config = JSON.parse(readFileSync('/standin/config.json', 'utf8'));
// a seeded folder holds what the image ships there (prepare.mjs); a volume mounted over it without those files
// (a Kubernetes claim no init container filled) stops the stand-in, as a missing default configuration would
for (const dir of config.seeded ?? []) {
  if (!existsSync(`${dir}/.standin-image-file`)) {
    console.error(`stand-in for ${config.image}: ${dir} lacks the files the image ships there (.standin-image-file)`);
    process.exit(1);
  }
}
const starts = {};
for (const dir of config.volumes) {
  try {
    appendFileSync(`${dir}/.standin-starts`, `${new Date().toISOString()} ${hostname()}\n`);
    starts[dir] = readFileSync(`${dir}/.standin-starts`, 'utf8').trim().split('\n').length;
  } catch (error) {
    console.error(`stand-in for ${config.image}: cannot write to the volume ${dir} as uid ${process.getuid()}: ${error.message}`);
    process.exit(1);
  }
}
try { writeFileSync('/tmp/standin.pid', String(process.pid)); } catch { /* a probe then starts a second server, which fails on the port */ }

// Health checks that read the answer grep for their program's success words; the body carries them all.
const HEALTHY = { status: 'UP', healthy: true, checks: 'pass SERVING interface PONG 1' };
const body = (request) => JSON.stringify({ ...HEALTHY, standin: config.image, path: request.url, method: request.method, uid: process.getuid(), starts });
for (const port of config.ports) {
  createServer((request, response) => {
    request.resume();
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(body(request));
  }).on('error', (error) => { console.error(`stand-in: port ${port}: ${error.message}`); process.exit(1); })
    .listen(port, '0.0.0.0');
}
console.log(`stand-in for ${config.image}: uid ${process.getuid()}, ports ${config.ports.join(' ') || 'none'}, volumes ${config.volumes.join(' ') || 'none'}`);
// with no port to listen on (an image the stack only runs, such as the Docker socket proxy), it still runs
if (config.ports.length === 0) setInterval(() => undefined, 60_000);
const stop = () => process.exit(0);
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.on('SIGQUIT', stop);
