// The service's one logger (pino): JSON lines on stdout, one object per event, with time, level and the
// event's fields; on a terminal the same records as short human lines (pretty.ts). Every part of the
// service logs through the logger it is handed, never through console.
import pino, { type Logger } from 'pino';
import type { LogSettings } from './log-settings.js';
import { prettyStream } from './pretty.js';

export type { Logger };

export type { LogSettings } from './log-settings.js';

export function createLogger(settings: LogSettings, out: NodeJS.WritableStream & { isTTY?: boolean } = process.stdout): Logger {
  const pretty = settings.format === 'pretty' || (settings.format === 'auto' && out.isTTY === true);
  const destination = pretty ? prettyStream(out) : out === process.stdout ? stdoutDestination() : out;
  return pino({
    level: settings.level,
    timestamp: pino.stdTimeFunctions.isoTime,
    // the level as its name ("info"), which log collectors read without a lookup table
    formatters: { level: (label) => ({ level: label }) },
  }, destination);
}

/**
 * Standard output, written in batches: a write call per request line was ~7 % of the CPU time of a
 * catalogue read under load. Lines are written once 4 kB have gathered, and at least every 100 ms;
 * writes are synchronous, and whatever is left is written when the process exits (process.exit included,
 * so a refused start still says why). logger.flush() writes at once (the "listening" line does).
 */
function stdoutDestination() {
  const destination = pino.destination({ fd: 1, sync: true, minLength: 4096, periodicFlush: 100 });
  process.once('exit', () => destination.flushSync());
  return destination;
}

/** For servers started inside another program (tests, tools) that did not pass a logger. */
export const silentLogger: Logger = pino({ level: 'silent' });
