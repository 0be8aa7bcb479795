// `stackwright generate`: a stack offline, from a request file and/or flags, written to a folder or a
// .tar.gz. The request is checked and rendered by the API's own code, so the files are byte-identical.
import { fs } from '../node-builtins.js';
import path from 'node:path';
import { parseStackRequest } from '../usecases/request.js';
import { writeBundle } from './bundle-dir.js';
import { CliShapes } from './shapes.js';
import { cliConfig } from './settings.js';
import { flagWording, warningWording } from './flags.js';
import { CliFailure, UsageError, type Output } from './output.js';
import { MAX_JSON_DEPTH, nestingDepth } from '../json-nesting.js';

export interface GenerateOptions {
  request?: string;
  name?: string;
  preset?: string;
  services?: string;
  skills?: string;
  proxy?: string;
  domain?: string;
  framework?: string;
  companions?: string;
  deployment?: string;
  platform?: string;
  gpu?: boolean;
  'no-hardening'?: boolean;
  out?: string;
  tar?: string;
  force?: boolean;
}

const list = (value: string) => value.split(',').map((s) => s.trim()).filter(Boolean);

/** A .tar.gz name: --tar writes a gzip-compressed tar, and a name that says otherwise misleads. */
const TAR_NAME = /\.(tar\.gz|tgz)$/i;

/** The request body (the file's fields, then the flags over them), and which fields came from the file. */
function requestWithOrigins(opts: GenerateOptions, readStdin: () => string = () => fs.readFileSync(0, 'utf8')): { body: Record<string, unknown>; fromFile: Set<string> } {
  let body: Record<string, unknown> = {};
  if (opts.request !== undefined) {
    const text = opts.request === '-' ? readStdin() : readFile(opts.request);
    // the same nesting bound as the HTTP body, before anything recursive meets the text
    if (nestingDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
      throw new UsageError(`${opts.request} nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels; a generate request needs 2`);
    }
    try {
      body = JSON.parse(text);
    } catch (e) {
      throw new UsageError(`${opts.request} is not JSON: ${(e as Error).message}`);
    }
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw new UsageError(`${opts.request} must hold a JSON object (a generate request)`);
  }
  const fromFile = new Set(Object.keys(body));
  const set = (field: string, value: unknown) => {
    if (value === undefined) return;
    body[field] = value;
    fromFile.delete(field);
  };
  set('name', opts.name);
  set('preset', opts.preset);
  set('services', opts.services === undefined ? undefined : list(opts.services));
  set('skills', opts.skills === undefined ? undefined : list(opts.skills));
  set('proxy', opts.proxy);
  set('domain', opts.domain);
  set('primaryFramework', opts.framework);
  set('companionFrameworks', opts.companions === undefined ? undefined : list(opts.companions));
  set('deploymentType', opts.deployment);
  set('platform', opts.platform);
  if (opts.gpu) set('gpu', true);
  if (opts['no-hardening']) set('hardened', false);
  if (opts.out !== undefined && opts.tar !== undefined) throw new UsageError('give --out or --tar, not both');
  if (opts.tar !== undefined && !TAR_NAME.test(opts.tar)) {
    throw new UsageError(`--tar writes a gzip-compressed tar archive: give a file name ending in .tar.gz or .tgz (got "${opts.tar}")`);
  }
  // the format follows where the files go; a request file's own format field is overruled
  body.format = opts.tar !== undefined ? 'tar' : 'json';
  return { body, fromFile };
}

function readFile(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

export async function runGenerate(opts: GenerateOptions, io: Output): Promise<number> {
  const { body, fromFile } = requestWithOrigins(opts);
  const config = cliConfig();
  const shapes = new CliShapes(config);
  const parsed = parseStackRequest('generate', body);
  const request = { ...parsed.request, name: parsed.request.name! };
  let { bundle, warnings } = (!parsed.errors.length && shapes.bundleOf(request)) || {};
  let tar: Buffer | undefined;
  // a shape is worked out and kept once the files are written, so they never wait for it
  let keepShape = () => {};
  if (bundle) {
    if (body.format === 'tar') tar = await (await import('../bundle/archive.js')).archiveBuffer(bundle);
  } else {
    const { generateBundle, loadGenerator, resolve } = await import('./engine.js');
    const { generator, catalogueKey } = loadGenerator(config, shapes.check);
    // a refused value is a wrong command line (exit 2), worded in the flags the user typed
    ({ bundle, tar } = await generateBundle(generator, body, { valuesAreArguments: true, describe: flagWording(body, fromFile, opts.request === '-' ? 'the request on standard input' : opts.request) }));
    // what the API's validate would warn about (a GPU the stack needs or cannot use, a platform an image
    // lacks, a preset overriding services): the request passed every check, so it resolves cleanly
    warnings = resolve(generator.catalogue, request).warnings;
    const rendered = bundle;
    keepShape = () => shapes.keep(generator, catalogueKey, request, rendered, warnings!);
  }
  for (const w of warnings!) {
    io.err(`${io.errStyle.yellow('warning:')} ${w.code}: ${warningWording(w.message)}`);
  }
  if (tar) {
    const target = path.resolve(opts.tar!);
    fs.writeFileSync(target, tar);
    io.out(`${io.style.green('wrote')} ${target} (${bundle.summary.services} services, ${tar.length} bytes)`);
    keepShape();
    return 0;
  }
  const dir = path.resolve(opts.out ?? bundle.name);
  if (fs.existsSync(dir) && fs.readdirSync(dir).length > 0 && !opts.force) {
    throw new CliFailure(`${dir} exists and is not empty: choose another --out, use --force to write over it, or run stackwright upgrade ${dir} to update a stack`);
  }
  await writeBundle(dir, bundle.files);
  io.out(`${io.style.green('wrote')} ${Object.keys(bundle.files).length} files to ${dir}`);
  io.out(`  ${bundle.summary.services} services, ${bundle.summary.skills} skill packs, proxy ${bundle.summary.proxy}`);
  io.out(`  memory: needs about ${bundle.summary.estimatedMemoryMB} MB (the parts' minimums), at most ${bundle.summary.memoryLimitMB} MB (their limits)`);
  const next = { kubernetes: 'scripts/secrets.sh && kubectl apply -k .', swarm: 'scripts/deploy.sh' }[request.deploymentType as string] ?? 'scripts/start.sh';
  io.out(`  next: cd ${path.relative(process.cwd(), dir) || '.'} && ${next}`);
  keepShape();
  return 0;
}
