#!/usr/bin/env node
// `stackwright`: the command line onto the same engine as the HTTP API (docs/cli.md).
// Exit codes: 0 done, 1 problems found or the work failed, 2 a wrong command line.
// Each command's modules are imported when it runs (`generate` never loads the linter, the diff library,
// the server or the MCP SDK): start-up time is most of a one-off command's time.
import nodeModule from 'node:module';
import type { ParseArgsConfig } from 'node:util';
import { util } from '../node-builtins.js';
import { didYouMean } from '../catalogue/problems.js';
import { STACKWRIGHT_VERSION } from '../version.js';
import type { GenerateOptions } from './generate.js';
import type { ListOptions } from './list.js';
import { CliFailure, EXIT, standardOutput, UsageError, type Output } from './output.js';
import type { UpgradeOptions } from './upgrade.js';

const HELP = `stackwright ${STACKWRIGHT_VERSION}: Docker Compose stacks for AI-agent frameworks

Usage: stackwright <command> [options]

Commands:
  serve                      start the HTTP service (settings from the environment, as npm start)
  lint [folder...]           check plugin folders as they would join the catalogue (no folder: the
                             whole catalogue); --format text|json|github
  list <kind> [filters]      the catalogue offline: presets, services, skills, frameworks, proxies
  generate [options]         generate a stack offline, the same files the API gives
  upgrade <stack-dir>        regenerate a stack with the current catalogue, keeping your edits;
                             --dry-run, --force, --rollback
  mcp                        serve the MCP tools on stdin/stdout
  help [command]             this text, or a command's options

Exit codes: 0 done, 1 problems found or the command failed, 2 a wrong command line.
Settings (plugins folder, catalogue folder, ...) come from the environment: see docs/configuration.md.`;

/** Where the list command's kinds go in its help (they live with the command, loaded only when asked). */
const LIST_KINDS_SLOT = '<kinds>';

const COMMAND_HELP: Record<string, string> = {
  serve: `Usage: stackwright serve

Starts the HTTP service on HOST:PORT (default 127.0.0.1:8080) with the settings in the environment
(docs/configuration.md). Reloads the catalogue when plugins/ or catalogue/ change, and on SIGHUP.`,
  lint: `Usage: stackwright lint [folder...] [--format text|json|github]

Checks plugin folders (a folder holding service.yaml, framework.yaml, proxy.yaml or skill-pack.yaml)
as they would join the catalogue in STACK_PLUGINS_DIR: the schema, then every cross-reference and
plugin rule. Without a folder, checks the whole catalogue the service would load.
Each problem names its file, JSON pointer and rule id (docs/errors.md lists the rules). A schema error
does not hide the folder's other problems: one run lists every problem that can be judged.
  --format text      one line a problem (default; colour on a terminal)
  --format json      one JSON document: { ok, errors[], warnings[], summary }
  --format github    GitHub Actions annotations (::error file=...)
Exit codes: 0 no errors (warnings allowed), 1 errors, 2 a wrong command line.`,
  list: `Usage: stackwright list ${LIST_KINDS_SLOT} [filters] [--format text|json]

Lists the catalogue in STACK_PLUGINS_DIR offline, as the API does (GET /api/v1/services, /skills,
/presets, /frameworks, /proxies). Filters combine:
  services     --category <id>  --tag <tag>  --maturity stable|beta|experimental  --text <words>
  skills       --service <id> (packs that need or can use it)  --text <words>
  presets      --text <words>
--text keeps the entries holding every word (id, name, tags or skills, description), best match first.
  --format text      one line an entry (default)
  --format json      the API's data ({ total, services } and so on)`,
  generate: `Usage: stackwright generate [--request file.json|-] [options] [--out dir | --tar file.tar.gz]

Generates a stack offline with the catalogue in STACK_PLUGINS_DIR: the same request checks and the same
bytes as POST /api/v1/generate. Flags override fields of the request file.
  --request <file>       a generate request as JSON ("-" reads standard input)
  --name <name>          the stack's name (required unless the file has one)
  --preset <id>          a preset (GET /api/v1/presets)
  --services <a,b>       services, comma-separated
  --skills <a,b>         skill packs, comma-separated
  --proxy <id>           caddy, traefik, nginx or none
  --domain <domain>      the public domain (proxy routes become https://<service>.<domain>)
  --framework <id>       the primary framework
  --companions <a,b>     companion frameworks
  --deployment <type>    docker, bare-metal, kubernetes (a Kustomize base; proxy traefik or none) or swarm (docker stack deploy)
  --platform <p>         linux/amd64 or linux/arm64
  --gpu                  give GPU-capable services the GPU
  --no-hardening         leave out cap_drop/no-new-privileges (hardened: false)
  --out <dir>            write the files there (default: ./<name>); refuses a non-empty folder without --force
  --tar <file>           write the .tar.gz instead (the name ends in .tar.gz or .tgz)
  --force                write into a folder that is not empty
A value the request checks refuse exits 2, naming the flag; warnings (a GPU a service needs, a platform
an image lacks) go to standard error.`,
  upgrade: `Usage: stackwright upgrade <stack-dir> [--dry-run] [--force] | --rollback

Regenerates the stack in <stack-dir> from its stackwright.json with the current catalogue and prints a
unified diff. Writes only the files you have not edited (their sha256 still matches the record); an
edited file is kept and the new version is written beside it as <file>.stackwright-new. .env keeps every
value and gains the new keys; docker-compose.override.yml is never touched. Every file replaced or
removed goes to .stackwright/upgrade-backups/<time>/ first.
  --dry-run     print the diff and the plan, write nothing
  --force       also replace files you edited (they are in the backup)
  --rollback    put back the files of the last upgrade
Then run scripts/update.sh in the stack to pull the new images and recreate the containers.`,
  mcp: `Usage: stackwright mcp

Serves the MCP tools (list/search services, presets, skill packs, frameworks, validate, generate, explain
an error) on standard input and output, for MCP clients that start a command (docs/web-and-mcp.md).`,
};

const OPTIONS: Record<string, ParseArgsConfig['options']> = {
  serve: {},
  mcp: {},
  lint: { format: { type: 'string' } },
  list: { category: { type: 'string' }, tag: { type: 'string' }, maturity: { type: 'string' }, text: { type: 'string' }, service: { type: 'string' }, format: { type: 'string' } },
  generate: {
    request: { type: 'string' }, name: { type: 'string' }, preset: { type: 'string' }, services: { type: 'string' }, skills: { type: 'string' },
    proxy: { type: 'string' }, domain: { type: 'string' }, framework: { type: 'string' }, companions: { type: 'string' },
    deployment: { type: 'string' }, platform: { type: 'string' }, gpu: { type: 'boolean' }, 'no-hardening': { type: 'boolean' },
    out: { type: 'string' }, tar: { type: 'string' }, force: { type: 'boolean' },
  },
  upgrade: { 'dry-run': { type: 'boolean' }, force: { type: 'boolean' }, rollback: { type: 'boolean' } },
};

/**
 * Refuses an option the command does not have, in our words (Node's parseArgs message suggests `--`
 * positionals and does not balance its quotes), with the nearest option when one is close.
 */
function checkOptionNames(command: string, args: string[]): void {
  const known = Object.keys(OPTIONS[command] ?? {}).map((name) => `--${name}`);
  for (const arg of args) {
    if (arg === '--') return;
    if (!arg.startsWith('-') || arg === '-') continue;
    const name = arg.split('=', 1)[0];
    if (known.includes(name)) continue;
    const options = known.length ? `the options of ${command} are ${known.join(', ')}` : `${command} takes no options`;
    throw new UsageError(`unknown option ${name}${didYouMean(name, known)}: ${options}`);
  }
}

/** A command's help text (the list kinds filled in from the list command). */
async function commandHelp(command: string): Promise<string> {
  if (command !== 'list') return COMMAND_HELP[command];
  const { LIST_KINDS } = await import('./list.js');
  return COMMAND_HELP.list.replace(LIST_KINDS_SLOT, LIST_KINDS.join('|'));
}

export async function runCli(argv: string[], io: Output = standardOutput()): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    const topic = command === 'help' ? rest[0] : undefined;
    io.out(topic && COMMAND_HELP[topic] ? await commandHelp(topic) : HELP);
    return EXIT.ok;
  }
  if (command === '--version' || command === '-v' || command === 'version') {
    io.out(STACKWRIGHT_VERSION);
    return EXIT.ok;
  }
  if (!(command in OPTIONS)) {
    io.err(`unknown command "${command}"\n\n${HELP}`);
    return EXIT.usage;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(await commandHelp(command));
    return EXIT.ok;
  }
  try {
    checkOptionNames(command, rest);
    const parsed = util.parseArgs({ args: rest, options: OPTIONS[command], allowPositionals: true, strict: true });
    const { positionals } = parsed;
    const values = parsed.values as Record<string, string | boolean | undefined>;
    switch (command) {
      case 'serve': {
        if (positionals.length) throw new UsageError('serve takes no arguments');
        const { serve } = await import('../serve.js');
        await serve();
        // the server keeps the process alive; the exit code comes from its shutdown
        return new Promise<number>(() => undefined);
      }
      case 'mcp': {
        if (positionals.length) throw new UsageError('mcp takes no arguments');
        const { runStdioServer } = await import('../mcp/stdio.js');
        // a catalogue that does not load is a failure with its problems listed, not a stack trace
        await runStdioServer().catch((e: Error) => { throw new CliFailure(`cannot start the MCP server: ${e.message}`); });
        return new Promise<number>(() => undefined);
      }
      case 'lint': {
        const [{ lintFolders, parseLintFormat, printLint }, { readConfig }] = await Promise.all([import('./lint.js'), import('../config.js')]);
        const format = parseLintFormat(values.format as string | undefined);
        const config = readConfig();
        return printLint(lintFolders(positionals, { plugins: config.pluginsDir, catalogue: config.catalogueDir }), format, io);
      }
      case 'list':
        if (positionals.length > 1) throw new UsageError(`list takes one kind (got ${positionals.map((p) => `"${p}"`).join(', ')})`);
        return (await import('./list.js')).runList(positionals[0], values as ListOptions, io);
      case 'generate':
        if (positionals.length) throw new UsageError(`generate takes no positional arguments (got "${positionals[0]}"); use --services a,b`);
        return await (await import('./generate.js')).runGenerate(values as GenerateOptions, io);
      case 'upgrade':
        if (positionals.length !== 1) throw new UsageError('upgrade needs exactly one stack folder: stackwright upgrade <stack-dir>');
        return await (await import('./upgrade.js')).runUpgrade(positionals[0], values as UpgradeOptions, io);
    }
  } catch (e) {
    if (e instanceof UsageError || (e as NodeJS.ErrnoException).code?.startsWith?.('ERR_PARSE_ARGS')) {
      const usage = e instanceof UsageError && !e.showUsage ? `(stackwright help ${command} lists the options)` : `\n${await commandHelp(command)}`;
      io.err(`${io.errStyle.red('error:')} ${(e as Error).message}\n${usage}`);
      return EXIT.usage;
    }
    if (e instanceof CliFailure) {
      io.err(`${io.errStyle.red('error:')} ${e.message}`);
      return EXIT.problems;
    }
    throw e;
  }
  return EXIT.ok;
}

// run when executed (bin or tsx), not when imported by a test
const invoked = process.argv[1] ?? '';
if (/[\\/]cli[\\/]main\.(js|ts)$/.test(invoked) || /[\\/]stackwright$/.test(invoked)) {
  // V8's compiled code kept on disk (os.tmpdir()/node-compile-cache, or NODE_COMPILE_CACHE; off with
  // NODE_DISABLE_COMPILE_CACHE=1): the command modules imported above compile from it on later runs.
  // It never fails a command: a folder it cannot write simply means no cache.
  nodeModule.enableCompileCache?.();
  runCli(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
