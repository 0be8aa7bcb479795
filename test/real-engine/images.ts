// The image kit: nothing can be pulled here, so every image a stack names is built from Debian packages
// (and npm, for OpenClaw) and tagged with the exact reference the stack uses. test/images/README.md says
// what each image does and does not prove.
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as yaml from 'js-yaml';
import type { Catalogue, ContainerManifest } from '../../src/catalogue/types.js';
import { DOCKER_HOST, SOCKET_PROXY_IMAGE, SOCKET_PROXY_TAG } from '../../src/model/socket-proxy.js';
import { command, docker, dockerOk } from './engine.js';
import { REAL_PROGRAMS, realProgramFor } from './programs.js';

export const KIT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'images');
export const BASE_IMAGE = 'stackwright-test/debian:trixie';

/** Which kit image runs for an upstream reference (its real program, or a close stand-in), or undefined for the generic stand-in. */
function kitFor(reference: string): { dir: string; version?: string } | undefined {
  const [name, tag = 'latest'] = splitReference(reference);
  // the upstream program itself, from Debian or npm (programs.ts)
  const real = realProgramFor(name);
  if (real) return { dir: real.dir, version: real.perTag ? tag : real.npm ? real.version : undefined };
  // close stand-ins: another program in the upstream one's place
  if (name === 'httpd') return { dir: 'htpasswd' };
  if (name === 'mysql') return { dir: 'mariadb' };
  if (name === 'alpine') return { dir: 'helper' };
  return undefined;
}

function splitReference(reference: string): [string, string | undefined] {
  const at = reference.lastIndexOf(':');
  return at > reference.lastIndexOf('/') ? [reference.slice(0, at), reference.slice(at + 1)] : [reference, undefined];
}

async function imageExists(reference: string): Promise<boolean> {
  return (await docker(['image', 'inspect', '--format', '{{.Id}}', reference])).code === 0;
}

/** The Debian base every kit image starts from: debootstrap's minimal trixie, imported once per engine. */
export async function ensureBase(): Promise<void> {
  if (await imageExists(BASE_IMAGE)) return;
  const root = mkdtempSync(path.join(os.tmpdir(), 'stackwright-rootfs-'));
  const boot = await command('debootstrap', ['--variant=minbase', 'trixie', root, 'http://deb.debian.org/debian'], { timeoutMs: 600_000 });
  if (boot.code !== 0) throw new Error(`debootstrap failed:\n${boot.stderr.slice(-2000)}`);
  const imported = await command('sh', ['-c', 'tar -C "$1" -c . | docker import - "$2" && rm -rf "$1"', 'sh', root, BASE_IMAGE]);
  if (imported.code !== 0) throw new Error(`docker import failed:\n${imported.stderr}`);
}

const built = new Map<string, Promise<string>>();

/** Builds a kit folder once per run (Docker's layer cache makes a rebuild cheap) and returns its tag. */
function buildKit(dir: string, version = 'latest'): Promise<string> {
  const tag = `stackwright-test/kit-${dir}:${version}`;
  let done = built.get(tag);
  if (!done) {
    done = (async () => {
      const program = REAL_PROGRAMS.find((p) => p.dir === dir);
      const npm = program?.npm;
      // an npm kit's context is made by npm install, so Docker's cache cannot see it unchanged: built once per tag
      if (npm && (await imageExists(tag))) return tag;
      const context = npm ? await npmContext(dir, npm, version, program?.npmOverrides) : path.join(KIT_DIR, dir);
      await dockerOk(['build', '-q', '-t', tag, context], { timeoutMs: 900_000 });
      return tag;
    })();
    built.set(tag, done);
  }
  return done;
}

/**
 * An npm kit's build context: the kit folder, the package at the given version installed by the host's npm into
 * app/ (the registry is reachable from here, not always from inside a build) and the Node binary running this
 * process (Node 24 in CI), so the build needs no package manager inside the image. The install is kept in a folder
 * per kit and version under the temporary directory and reused (it takes minutes; it needs no engine, so
 * `npmContext` can run ahead of a locked engine run).
 */
export async function npmContext(dir: string, npmPackage: string, version: string, overrides?: Record<string, string>): Promise<string> {
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major < 22 || (major === 22 && minor < 14)) throw new Error(`the npm kits need Node 22.14 or newer; the tests run on ${process.version}`);
  const context = path.join(os.tmpdir(), 'stackwright-npm-kits', `${dir}-${version}`);
  const installed = path.join(context, 'app', '.installed');
  if (!existsSync(installed)) {
    rmSync(path.join(context, 'app'), { recursive: true, force: true });
    mkdirSync(path.join(context, 'app'), { recursive: true });
    writeFileSync(path.join(context, 'app', 'package.json'), JSON.stringify({ private: true, ...(overrides ? { overrides } : {}) }));
    // native modules (Actual's better-sqlite3) are compiled for the Node the kit ships: its headers, not the ones the
    // host's node-gyp would default to (Debian's npm builds against Debian's Node 20 in /usr/include/nodejs)
    const nodedir = nodeHeadersDir();
    const env = { ...process.env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`, ...(nodedir ? { npm_config_nodedir: nodedir } : {}) };
    const npm = await command('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', '--omit=dev', `${npmPackage}@${version}`], { cwd: path.join(context, 'app'), env, timeoutMs: 900_000 });
    if (npm.code !== 0) throw new Error(`npm install ${npmPackage}@${version} failed:\n${npm.stderr.slice(-2000)}`);
    writeFileSync(installed, `${npmPackage}@${version}\n`);
  }
  cpSync(path.join(KIT_DIR, dir), context, { recursive: true });
  copyFileSync(process.execPath, path.join(context, 'node'));
  return context;
}

/**
 * The folder holding include/node for the Node running this process: its own distribution (bin/node beside
 * include/), or npm's `node` package, whose platform package carries the distribution's headers.
 */
function nodeHeadersDir(): string | undefined {
  const bin = path.dirname(realpathSync(process.execPath));
  const candidates = [path.dirname(bin), path.join(path.dirname(bin), 'node_modules', `node-${process.platform}-${process.arch}`)];
  return candidates.find((dir) => existsSync(path.join(dir, 'include', 'node', 'node_api.h')));
}

/** What the generic stand-in needs to know of the upstream image it replaces, from its manifest. */
/**
 * `seeded`: the volume folders whose files the image ships (`seed: true`): the stand-in puts a file there at build and
 * refuses to start without it, as the program would without its default configuration.
 */
export interface StandinConfig { image: string; ports: number[]; volumes: string[]; seeded: string[]; user?: string; binaries: string[]; scripts: string[] }

export function standinConfig(reference: string, manifest: ContainerManifest | undefined): StandinConfig {
  const ports = new Set<number>();
  for (const p of manifest?.ports ?? []) if ((p.protocol ?? 'tcp') === 'tcp') ports.add(p.container);
  const binaries = new Set(manifest?.binaries ?? []);
  const test = manifest?.healthcheck?.test;
  if (Array.isArray(test) && test[0]) binaries.add(test[0]);
  // script files the health check hands to an interpreter (python /opt/app/check.py, node healthcheck.mjs)
  const words = Array.isArray(test) ? test : (test ?? '').split(/\s+/);
  const scripts = words.filter((w) => /^(?:\/|\.\/)?[\w.-]+(?:\/[\w.-]+)*\.(?:py|sh|js|mjs|cjs|php)$/.test(w) && w !== test?.[0]);
  // the Docker socket proxy is the stack's own container, not a plugin: its port is the engine's to know
  if (reference === `${SOCKET_PROXY_IMAGE}:${SOCKET_PROXY_TAG}`) ports.add(Number(new URL(DOCKER_HOST).port));
  return {
    image: reference,
    scripts,
    ports: [...ports],
    volumes: (manifest?.volumes ?? []).map((v) => v.target),
    seeded: (manifest?.volumes ?? []).filter((v) => v.seed).map((v) => v.target),
    // the user Compose runs it as, else the one its image starts as (a claim on Kubernetes is root's until fsGroup)
    user: manifest?.user ?? manifest?.imageUser,
    binaries: [...binaries],
  };
}

/**
 * Ollama's place taken by our stub model server (test/stub-model/server.mjs), on top of the generic stand-in made
 * for Ollama's manifest: a framework wired to the stack's Ollama then gets real answers to its chats.
 */
async function buildModelStub(reference: string, manifest: ContainerManifest | undefined): Promise<void> {
  await buildStandin(reference, manifest);
  const context = mkdtempSync(path.join(os.tmpdir(), 'stackwright-stub-model-'));
  cpSync(path.join(KIT_DIR, 'stub-model'), context, { recursive: true });
  copyFileSync(path.join(KIT_DIR, '..', 'stub-model', 'server.mjs'), path.join(context, 'server.mjs'));
  await dockerOk(['build', '-q', '--build-arg', `STANDIN=${reference}`, '-t', reference, context]);
  rmSync(context, { recursive: true, force: true });
}

/**
 * Issue 35: llama.cpp's and vLLM's places taken by the stub model server answering as that server
 * (STUB_SERVER: its routes, its /v1/models, a 401 without the key the service was given), started the way the
 * stack starts the server: llama.cpp's image entry point (LLAMA_API_KEY, LLAMA_ARG_ALIAS from the service's
 * environment), vLLM's `vllm serve <model>` under the compose entry point bash -c.
 */
const SERVER_STUBS: Record<string, { server: string; port: number; key: string; program?: string; model: string }> = {
  'ghcr.io/ggml-org/llama.cpp': { server: 'llama-cpp', port: 8080, key: 'LLAMA_API_KEY', model: '"$LLAMA_ARG_ALIAS"' },
  'vllm/vllm-openai': { server: 'vllm', port: 8000, key: 'VLLM_API_KEY', program: 'vllm', model: '"$2"' },
};

async function buildServerStub(reference: string, manifest: ContainerManifest | undefined, stub: (typeof SERVER_STUBS)[string]): Promise<void> {
  await buildStandin(reference, manifest);
  const context = mkdtempSync(path.join(os.tmpdir(), 'stackwright-server-stub-'));
  copyFileSync(path.join(KIT_DIR, '..', 'stub-model', 'server.mjs'), path.join(context, 'server.mjs'));
  writeFileSync(path.join(context, 'run.sh'), `#!/bin/sh
${stub.program ? `[ "$1" = serve ] || { echo "${stub.program} (stub): only serve" >&2; exit 2; }
` : ''}`
    + `HOST=0.0.0.0 PORT=${stub.port} STUB_SERVER=${stub.server} STUB_API_KEY="$${stub.key}" STUB_MODELS=${stub.model} exec node /stub-model/server.mjs
`);
  const target = stub.program ? `/usr/local/bin/${stub.program}` : '/stub-model/run.sh';
  writeFileSync(path.join(context, 'Dockerfile'), `FROM ${reference}
COPY server.mjs /stub-model/server.mjs
COPY run.sh ${target}
RUN chmod 755 ${target}
`
    + (stub.program ? '' : `ENTRYPOINT ["${target}"]
`));
  await dockerOk(['build', '-q', '-t', reference, context]);
  rmSync(context, { recursive: true, force: true });
}

async function buildStandin(reference: string, manifest: ContainerManifest | undefined): Promise<void> {
  const base = await buildKit('standin');
  const context = mkdtempSync(path.join(os.tmpdir(), 'stackwright-standin-'));
  writeFileSync(path.join(context, 'config.json'), JSON.stringify(standinConfig(reference, manifest)));
  // an image that starts as a user of its own does so here too (its last USER), where the manifest sets none: the stack
  // then runs it as Docker runs the upstream image, and its volumes are that user's as Docker copies them from the image
  const runAs = manifest?.user === undefined && manifest?.imageUser !== undefined && !manifest.imageUser.startsWith('0:') ? `USER ${manifest.imageUser}\n` : '';
  writeFileSync(path.join(context, 'Dockerfile'), `FROM ${base}\nCOPY config.json /standin/config.json\nWORKDIR /standin/work\nRUN node /standin/prepare.mjs\n${runAs}`);
  await dockerOk(['build', '-q', '-t', reference, context]);
}

/** Every container manifest of the catalogue by the image reference it pins. */
export function manifestsByReference(catalogue: Catalogue): Map<string, ContainerManifest> {
  const out = new Map<string, ContainerManifest>();
  for (const group of [catalogue.services, catalogue.frameworks, catalogue.proxies]) {
    for (const plugin of group.values()) {
      const m = plugin.manifest as ContainerManifest;
      out.set(`${m.image}:${m.imageTag}`, m);
      const gpuTag = (m as { gpuImageTag?: string }).gpuImageTag;
      if (gpuTag) out.set(`${m.image}:${gpuTag}`, m);
    }
  }
  return out;
}

/** The image references a generated stack runs: its compose file's defaults and the images its scripts run. */
export function stackImages(dir: string): string[] {
  // a Compose stack, or a Swarm one (stack.yml names its images the same way)
  const file = existsSync(path.join(dir, 'docker-compose.yml')) ? 'docker-compose.yml' : 'stack.yml';
  const compose = yaml.load(readFileSync(path.join(dir, file), 'utf8')) as { services: Record<string, { image?: string }> };
  const refs = new Set<string>();
  for (const service of Object.values(compose.services)) {
    const m = /^\$\{[A-Z0-9_]+:-([^}]+)\}$/.exec(service.image ?? '');
    if (m) refs.add(m[1]);
    else if (service.image) refs.add(service.image);
  }
  const scripts = ['lib.sh', 'backup.sh'].map((f) => { try { return readFileSync(path.join(dir, 'scripts', f), 'utf8'); } catch { return ''; } }).join('\n');
  for (const m of scripts.matchAll(/docker run --rm -i '?([a-z0-9./-]+:[A-Za-z0-9._-]+)/g)) refs.add(m[1]);
  for (const m of scripts.matchAll(/^HELPER_IMAGE=([a-z0-9./-]+:[A-Za-z0-9._-]+)/gm)) refs.add(m[1]);
  return [...refs].sort();
}

/** Makes every reference present on the engine: a close stand-in where the kit has one, else the generic one. */
export async function provideImages(references: string[], catalogue: Catalogue): Promise<{ reference: string; kit: string }[]> {
  await ensureBase();
  const manifests = manifestsByReference(catalogue);
  const out: { reference: string; kit: string }[] = [];
  for (const reference of references) {
    const kit = kitFor(reference);
    if (kit) {
      await dockerOk(['tag', await buildKit(kit.dir, kit.version), reference]);
      out.push({ reference, kit: kit.dir });
    } else if (splitReference(reference)[0] === 'ollama/ollama') {
      await buildModelStub(reference, manifests.get(reference));
      out.push({ reference, kit: 'stub-model' });
    } else if (SERVER_STUBS[splitReference(reference)[0]]) {
      await buildServerStub(reference, manifests.get(reference), SERVER_STUBS[splitReference(reference)[0]]);
      out.push({ reference, kit: 'stub-model' });
    } else {
      await buildStandin(reference, manifests.get(reference));
      out.push({ reference, kit: 'standin' });
    }
  }
  return out;
}
