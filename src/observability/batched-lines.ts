// Log lines written to a file descriptor in batches, synchronously. Under load the request log is a
// line per request: a write call each was ~7 % of a catalogue read's CPU time. pino's own batching
// (sonic-boom) appends each line to one growing string and measures that string's byte length on every
// line, which copies it each time: at 16 kB batches that was ~3 % again. Here a batch is a list of lines,
// joined once when it is written.
import { fs } from '../node-builtins.js';

/** Blocks this thread for `ms` (a full pipe: the reader needs a moment). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export class BatchedLines {
  private lines: string[] = [];
  private length = 0;
  private readonly timer: NodeJS.Timeout;

  /**
   * Lines are written once `batchChars` characters have gathered, and at least every `intervalMs`
   * (the timer never keeps the process alive).
   */
  constructor(private readonly fd: number, private readonly batchChars = 16 * 1024, intervalMs = 100) {
    this.timer = setInterval(() => this.flushSync(), intervalMs);
    this.timer.unref();
  }

  /** pino's destination interface: one whole line, ending in a newline. */
  write(line: string): boolean {
    this.lines.push(line);
    this.length += line.length;
    if (this.length >= this.batchChars) this.flushSync();
    return true;
  }

  /** pino's logger.flush() calls this. */
  flush(done?: (err?: Error) => void): void {
    this.flushSync();
    done?.();
  }

  /** Writes what has gathered, all of it: partial writes are continued, a full non-blocking pipe waited on. */
  flushSync(): void {
    if (this.lines.length === 0) return;
    const data = Buffer.from(this.lines.join(''));
    this.lines = [];
    this.length = 0;
    let written = 0;
    while (written < data.length) {
      try {
        written += fs.writeSync(this.fd, data, written);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN') {
          pause(1);
          continue;
        }
        // the reader is gone (EPIPE) or the descriptor closed: there is nowhere left to write the log
        if (code === 'EPIPE' || code === 'EBADF') return;
        throw err;
      }
    }
  }

  /** Writes what is left and stops the timer. */
  end(): void {
    clearInterval(this.timer);
    this.flushSync();
  }
}
