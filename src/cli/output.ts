// Terminal output of the CLI: colour only when the stream is a terminal (and NO_COLOR is unset), so
// pipes, files and CI logs get plain text.
import type { Writable } from 'node:stream';

export interface Output {
  out(line?: string): void;
  err(line?: string): void;
  /** styles for stdout (plain text when stdout is no terminal) */
  style: Styles;
  /** styles for stderr */
  errStyle: Styles;
}

export interface Styles { red(s: string): string; green(s: string): string; yellow(s: string): string; cyan(s: string): string; bold(s: string): string; dim(s: string): string }

function styles(stream: Writable & { isTTY?: boolean }, env: NodeJS.ProcessEnv): Styles {
  const on = Boolean(stream.isTTY) && !env.NO_COLOR && env.TERM !== 'dumb';
  const wrap = (open: number, close: number) => (s: string) => (on ? `\u001b[${open}m${s}\u001b[${close}m` : s);
  return { red: wrap(31, 39), green: wrap(32, 39), yellow: wrap(33, 39), cyan: wrap(36, 39), bold: wrap(1, 22), dim: wrap(2, 22) };
}

export function terminalOutput(stdout: Writable = process.stdout, stderr: Writable = process.stderr, env = process.env): Output {
  for (const stream of [stdout, stderr]) stream.on('error', quietOnClosedPipe);
  return {
    out: (line = '') => { if (!stdout.destroyed) stdout.write(`${line}\n`); },
    err: (line = '') => { if (!stderr.destroyed) stderr.write(`${line}\n`); },
    style: styles(stdout, env),
    errStyle: styles(stderr, env),
  };
}

/**
 * A reader that went away (`stackwright list services | head -3`) ends what we print, not the command:
 * its work (files written, the exit code) stands, as for a program that ignores SIGPIPE. Other write
 * errors still surface.
 */
function quietOnClosedPipe(e: NodeJS.ErrnoException): void {
  if (e.code !== 'EPIPE') throw e;
}

/** A wrong command line: printed with the command's usage (or a pointer to it), exit code 2. */
export class UsageError extends Error {
  readonly showUsage: boolean;
  constructor(message: string, options: { showUsage?: boolean } = {}) {
    super(message);
    this.showUsage = options.showUsage ?? true;
  }
}

/** A command that could not do its work (exit code 1), with what is wrong. */
export class CliFailure extends Error {}

/** Exit codes of every command (docs/cli.md). */
export const EXIT = { ok: 0, problems: 1, usage: 2 } as const;
