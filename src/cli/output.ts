// Terminal output of the CLI: colour only when the stream is a terminal (and NO_COLOR is unset), so
// pipes, files and CI logs get plain text.
import { fs } from '../node-builtins.js';
import { BatchedLines } from '../observability/batched-lines.js';

export interface Output {
  out(line?: string): void;
  err(line?: string): void;
  /** styles for stdout (plain text when stdout is no terminal) */
  style: Styles;
  /** styles for stderr */
  errStyle: Styles;
}

export interface Styles { red(s: string): string; green(s: string): string; yellow(s: string): string; cyan(s: string): string; bold(s: string): string; dim(s: string): string }

function styles(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): Styles {
  const on = Boolean(stream.isTTY) && !env.NO_COLOR && env.TERM !== 'dumb';
  const wrap = (open: number, close: number) => (s: string) => (on ? `\u001b[${open}m${s}\u001b[${close}m` : s);
  return { red: wrap(31, 39), green: wrap(32, 39), yellow: wrap(33, 39), cyan: wrap(36, 39), bold: wrap(1, 22), dim: wrap(2, 22) };
}

/**
 * The process's own output, written straight to descriptors 1 and 2, a line at a time: process.stdout on
 * a pipe is a net.Socket, and setting it up cost each run ~3 ms (node:tty, which tells a terminal, loads
 * node:net too). A terminal is a character device here; so is /dev/null, which colour cannot harm. A
 * reader that went away ends what we print, quietly (EPIPE), and a full non-blocking pipe is waited on.
 */
export function standardOutput(env = process.env): Output {
  const stdout = new BatchedLines(1, 0);
  const stderr = new BatchedLines(2, 0);
  const terminal = (fd: number) => ({ isTTY: isCharacterDevice(fd) });
  return {
    out: (line = '') => { stdout.write(`${line}\n`); },
    err: (line = '') => { stderr.write(`${line}\n`); },
    style: styles(terminal(1), env),
    errStyle: styles(terminal(2), env),
  };
}

function isCharacterDevice(fd: number): boolean {
  try {
    return fs.fstatSync(fd).isCharacterDevice();
  } catch {
    return false;
  }
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
