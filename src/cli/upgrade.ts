// `stackwright upgrade <stack-dir>`: regenerate a stack from its stackwright.json with the current
// catalogue, show what changes as a unified diff, and write only the files the user has not edited
// (their sha256 still matches the record). .env keeps every value and gains the new keys;
// docker-compose.override.yml is never touched; every file replaced or removed is kept in a backup
// that `--rollback` restores.
import { fs } from '../node-builtins.js';
import { KUSTOMIZATION_FILE } from '../emit/kubernetes/index.js';
import { STACK_FILE } from '../emit/swarm/index.js';
import path from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { ENV_EXAMPLE_FILE, fileHash, imagePins, PROVENANCE_FILE } from '../bundle/provenance.js';
import { writeBundleFile } from './bundle-dir.js';
import { generateBundle, loadGenerator } from './engine.js';
import { CliFailure, type Output } from './output.js';
import { parseBoundedJson } from '../json-nesting.js';

export interface UpgradeOptions { 'dry-run'?: boolean; force?: boolean; rollback?: boolean }

/** Files that belong to the user: never written by an upgrade. */
const USER_FILES = new Set(['.env', 'docker-compose.override.yml']);
const BACKUPS = path.join('.stackwright', 'upgrade-backups');
/** Beside an edited file, the version the upgrade would have written, for the user to merge. */
const NEW_SUFFIX = '.stackwright-new';

type Action = 'add' | 'update' | 'remove' | 'keep-edit' | 'keep-deleted';
interface Step { file: string; action: Action; before?: string; after?: string }

interface StackRecord { request: { [field: string]: unknown }; files: { [file: string]: string }; images?: { [variable: string]: string }; stackwright?: { catalogueRevision?: string; version?: string } }

const sha256 = fileHash;
const read = (file: string): string | undefined => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined);

function readRecord(dir: string): StackRecord {
  const file = path.join(dir, PROVENANCE_FILE);
  const text = read(file);
  if (text === undefined) throw new CliFailure(`${dir} has no ${PROVENANCE_FILE}: it is not a stack Stackwright generated (or it predates stack records); generate it again with stackwright generate`);
  try {
    const record = parseBoundedJson(text) as StackRecord;
    if (!record.request || typeof record.request !== 'object' || !record.files || typeof record.files !== 'object') throw new Error('request or files missing');
    return record;
  } catch (e) {
    throw new CliFailure(`${file} cannot be read as a stack record (${(e as Error).message}); restore it from the bundle or a backup`);
  }
}

/** What an upgrade would do to each file, without doing it. */
function plan(dir: string, record: StackRecord, files: { [file: string]: string }, force: boolean): Step[] {
  const steps: Step[] = [];
  for (const [file, after] of Object.entries(files)) {
    if (file === PROVENANCE_FILE || USER_FILES.has(file)) continue;
    const before = read(path.join(dir, file));
    const recorded = record.files[file];
    const edited = before !== undefined && recorded !== undefined && sha256(before) !== recorded;
    if (before === undefined) steps.push({ file, action: recorded !== undefined && !force ? 'keep-deleted' : 'add', after });
    else if (before === after) continue;
    else if (edited && !force) steps.push({ file, action: 'keep-edit', before, after });
    else steps.push({ file, action: 'update', before, after });
  }
  for (const [file, recorded] of Object.entries(record.files)) {
    if (file in files || USER_FILES.has(file)) continue;
    const before = read(path.join(dir, file));
    if (before === undefined) continue;
    steps.push({ file, action: sha256(before) === recorded || force ? 'remove' : 'keep-edit', before });
  }
  return steps.sort((a, b) => a.file.localeCompare(b.file));
}

/** The keys of .env.example that .env lacks, as lines to append (values as the example has them). */
function newEnvLines(env: string, example: string): string[] {
  const keyOf = (line: string) => /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(line)?.[1];
  const have = new Set(env.split('\n').map(keyOf).filter(Boolean));
  const lines: string[] = [];
  let comments: string[] = [];
  for (const line of example.split('\n')) {
    const key = keyOf(line);
    if (!key) {
      comments = line.startsWith('#') ? [...comments, line] : [];
      continue;
    }
    if (!have.has(key)) lines.push(...comments, line);
    comments = [];
  }
  return lines;
}

/** The value of KEY in an env file (its last line, as Compose reads it), without surrounding quotes. */
function envValue(env: string, key: string): string | undefined {
  const lines = [...env.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))];
  const raw = lines.at(-1)?.[1].trim();
  return raw === undefined ? undefined : raw.replace(/^(['"])(.*)\1$/, '$2');
}

interface PinChange { variable: string; from: string; to: string }

/**
 * The image pins of .env measured against the previous and the new generation: a pin still at what the
 * previous generation wrote follows the new default (`follow`); one the user chose stays (`kept`). The
 * previous defaults come from stackwright.json, or for a stack recorded before it kept them, from an
 * unedited .env.example.
 */
function imagePinChanges(dir: string, record: StackRecord, env: string, newExample: string): { follow: PinChange[]; kept: PinChange[] } {
  let previous = record.images;
  if (!previous) {
    const example = read(path.join(dir, ENV_EXAMPLE_FILE));
    previous = example !== undefined && sha256(example) === record.files[ENV_EXAMPLE_FILE] ? imagePins(example) : {};
  }
  const follow: PinChange[] = [];
  const kept: PinChange[] = [];
  for (const [variable, to] of Object.entries(imagePins(newExample))) {
    const current = envValue(env, variable);
    if (current === undefined || current === to) continue;
    if (current === previous[variable]) follow.push({ variable, from: current, to });
    else kept.push({ variable, from: current, to });
  }
  return { follow, kept };
}

/** .env with each followed pin's last line set to the new default. */
function applyPins(env: string, follow: PinChange[]): string {
  let out = env;
  for (const { variable, to } of follow) {
    const lines = [...out.matchAll(new RegExp(`^${variable}=.*$`, 'gm'))];
    const last = lines.at(-1)!;
    out = `${out.slice(0, last.index)}${variable}=${to}${out.slice(last.index! + last[0].length)}`;
  }
  return out;
}

function printDiff(io: Output, file: string, before: string, after: string): void {
  const patch = createTwoFilesPatch(`a/${file}`, `b/${file}`, before, after, '', '', { context: 3 });
  for (const line of patch.split('\n').slice(1)) {
    if (line.startsWith('+') && !line.startsWith('+++')) io.out(io.style.green(line));
    else if (line.startsWith('-') && !line.startsWith('---')) io.out(io.style.red(line));
    else if (line.startsWith('@@')) io.out(io.style.cyan(line));
    else io.out(line);
  }
}

export async function runUpgrade(dirArg: string, opts: UpgradeOptions, io: Output): Promise<number> {
  const dir = path.resolve(dirArg);
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new CliFailure(`${dirArg} is not a folder`);
  if (opts.rollback) return rollback(dir, io);
  const record = readRecord(dir);
  const { generator } = loadGenerator();
  const { bundle } = await generateBundle(generator, { ...record.request, format: 'json' });
  const steps = plan(dir, record, bundle.files, Boolean(opts.force));
  const envText = read(path.join(dir, '.env'));
  const newExample = bundle.files[ENV_EXAMPLE_FILE] ?? '';
  const pins = envText === undefined ? { follow: [], kept: [] } : imagePinChanges(dir, record, envText, newExample);
  const envAdd = envText === undefined ? [] : newEnvLines(envText, newExample);
  const envPinned = envText === undefined ? undefined : applyPins(envText, pins.follow);
  const envAfter = envPinned === undefined ? undefined
    : envAdd.length ? `${envPinned}${envPinned.endsWith('\n') || envPinned === '' ? '' : '\n'}# added by stackwright upgrade ${new Date().toISOString().slice(0, 10)}\n${envAdd.join('\n')}\n` : envPinned;
  // a kept edit's new version beside it counts as a change only when it is not already there as it would be written
  const besides = steps.filter((s) => s.action === 'keep-edit' && s.after !== undefined && read(path.join(dir, `${s.file}${NEW_SUFFIX}`)) !== s.after);

  const from = record.stackwright?.catalogueRevision ?? 'unknown';
  io.out(io.style.bold(`Upgrading ${dir}: catalogue ${from} → ${generator.catalogue.revision}`));
  for (const s of steps) {
    if (s.action === 'add') printDiff(io, s.file, '', s.after!);
    else if (s.action === 'update') printDiff(io, s.file, s.before!, s.after!);
    else if (s.action === 'remove') printDiff(io, s.file, s.before!, '');
  }
  if (envAfter !== undefined && envAfter !== envText) printDiff(io, '.env', envText!, envAfter);
  const count = (a: Action) => steps.filter((s) => s.action === a).length;
  const summary = `${count('update')} updated, ${count('add')} added, ${count('remove')} removed, ${count('keep-edit')} kept as you edited them, ${count('keep-deleted')} kept deleted; .env: ${envAdd.filter((l) => !l.startsWith('#')).length} new key(s), ${pins.follow.length} image(s) moved to the new default`;
  for (const s of steps.filter((x) => x.action === 'keep-edit')) {
    io.out(io.style.yellow(`kept your edit: ${s.file}${s.after !== undefined ? ` (the new version is ${opts['dry-run'] ? 'shown by --force' : `in ${s.file}${NEW_SUFFIX}`})` : ' (the new catalogue no longer generates it)'}`));
  }
  for (const s of steps.filter((x) => x.action === 'keep-deleted')) io.out(io.style.yellow(`kept deleted: ${s.file} (--force writes it again)`));
  for (const p of pins.follow) io.out(`${p.variable}: ${p.from} → ${p.to} (you had not changed it)`);
  for (const p of pins.kept) io.out(io.style.yellow(`kept your ${p.variable}=${p.from}; the new default is ${p.to} (set it in .env to follow)`));
  const changes = steps.some((s) => s.action === 'add' || s.action === 'update' || s.action === 'remove') || besides.length > 0 || envAfter !== envText;
  if (!changes) {
    io.out(`nothing to change: ${summary}`);
    return 0;
  }
  if (opts['dry-run']) {
    io.out(`dry run, nothing written: ${summary}`);
    return 0;
  }

  // the backup first: every file the upgrade replaces or removes (a .stackwright-new beside an edit too), the record and .env
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const backup = path.join(dir, BACKUPS, stamp);
  const keep = (file: string, content: string) => writeBundleFile(backup, path.join('files', file), content);
  for (const s of steps) if ((s.action === 'update' || s.action === 'remove') && s.before !== undefined) keep(s.file, s.before);
  const added = steps.filter((s) => s.action === 'add').map((s) => s.file);
  for (const s of besides) {
    const beside = `${s.file}${NEW_SUFFIX}`;
    const earlier = read(path.join(dir, beside));
    if (earlier === undefined) added.push(beside);
    else keep(beside, earlier);
  }
  keep(PROVENANCE_FILE, read(path.join(dir, PROVENANCE_FILE))!);
  if (envText !== undefined) keep('.env', envText);
  fs.writeFileSync(path.join(backup, 'upgrade.json'), `${JSON.stringify({ at: new Date().toISOString(), from, to: generator.catalogue.revision, added }, null, 2)}\n`);

  for (const s of steps) {
    if (s.action === 'add' || s.action === 'update') writeBundleFile(dir, s.file, s.after!);
    else if (s.action === 'remove') fs.rmSync(path.join(dir, s.file));
  }
  for (const s of besides) writeBundleFile(dir, `${s.file}${NEW_SUFFIX}`, s.after!);
  if (envAfter !== undefined && envAfter !== envText) fs.writeFileSync(path.join(dir, '.env'), envAfter);
  // the new record hashes the files as generated, so an edit kept now still counts as an edit next time
  writeBundleFile(dir, PROVENANCE_FILE, bundle.files[PROVENANCE_FILE]);
  io.out(io.style.green(`upgraded: ${summary}`));
  io.out(`backup: ${path.relative(dir, backup)}; undo with: stackwright upgrade --rollback ${dirArg}`);
  io.out(bundle.files[KUSTOMIZATION_FILE] !== undefined
    ? 'then apply it: scripts/secrets.sh && kubectl apply -k . (kubectl rollout undo goes back; see README.md)'
    : bundle.files[STACK_FILE] !== undefined
      ? 'then apply it: scripts/update.sh (deploys the new stack file, one task at a time; Swarm rolls back a service whose health check fails)'
      : 'then apply it: scripts/update.sh (pulls the new images, recreates the containers, rolls back if a health check fails)');
  return 0;
}

/** Puts back the files of the newest upgrade backup and removes the files that upgrade added. */
function rollback(dir: string, io: Output): number {
  const root = path.join(dir, BACKUPS);
  const stamps = fs.existsSync(root) ? fs.readdirSync(root).filter((d) => !d.startsWith('rolled-back-')).sort() : [];
  if (stamps.length === 0) throw new CliFailure(`${dir} has no upgrade backup to roll back to (${BACKUPS} is empty)`);
  const backup = path.join(root, stamps[stamps.length - 1]);
  const metaFile = path.join(backup, 'upgrade.json');
  let meta: { added: string[] };
  try {
    meta = parseBoundedJson(fs.readFileSync(metaFile, 'utf8')) as { added: string[] };
    if (!Array.isArray(meta?.added) || !meta.added.every((f) => typeof f === 'string')) throw new Error('"added" is not a list of files');
  } catch (e) {
    throw new CliFailure(`${metaFile} cannot be read as an upgrade backup record (${(e as Error).message}); nothing was changed: put back the files under ${path.join(backup, 'files')} by hand`);
  }
  const filesDir = path.join(backup, 'files');
  const restore = (sub: string) => {
    for (const entry of fs.readdirSync(path.join(filesDir, sub), { withFileTypes: true })) {
      const rel = path.join(sub, entry.name);
      if (entry.isDirectory()) restore(rel);
      else writeBundleFile(dir, rel, fs.readFileSync(path.join(filesDir, rel), 'utf8'));
    }
  };
  restore('');
  for (const file of meta.added) fs.rmSync(path.join(dir, file), { force: true });
  // a rolled-back upgrade is used up, so a second --rollback goes one further back
  fs.renameSync(backup, path.join(root, `rolled-back-${stamps[stamps.length - 1]}`));
  io.out(io.style.green(`rolled back to the files before the upgrade of ${stamps[stamps.length - 1]}; ${meta.added.length} file(s) it wrote removed${meta.added.length ? ` (${meta.added.join(', ')})` : ''}`));
  return 0;
}
