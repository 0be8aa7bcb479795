// The service's one logger (pino): JSON lines on stdout, one object per event, with time, level and the
// event's fields; on a terminal the same records as short human lines (pretty.ts). Every part of the
// service logs through the logger it is handed, never through console.
import pino, { type Logger } from 'pino';
import type { LogSettings } from './log-settings.js';
import { prettyStream } from './pretty.js';
import { BatchedLines } from './batched-lines.js';

export type { Logger };

export type { LogSettings } from './log-settings.js';

export function createLogger(settings: LogSettings, out: NodeJS.WritableStream & { isTTY?: boolean } = process.stdout): Logger {
  const pretty = settings.format === 'pretty' || (settings.format === 'auto' && out.isTTY === true);
  const destination = pretty ? prettyStream(out) : out === process.stdout ? stdoutDestination() : out;
  return pino({
    level: settings.level,
    timestamp: isoTimeOncePerMillisecond(),
    // the level as its name ("info"), which log collectors read without a lookup table
    formatters: { level: (label) => ({ level: label }) },
  }, destination);
}

/**
 * pino's ISO time field, made once per millisecond: under load several request lines share one, and
 * formatting a date was ~2 % of a catalogue read's CPU time.
 */
function isoTimeOncePerMillisecond(): () => string {
  let lastMs = Number.NaN;
  let field = '';
  return () => {
    const now = Date.now();
    if (now !== lastMs) {
      lastMs = now;
      field = `,"time":"${new Date(now).toISOString()}"`;
    }
    return field;
  };
}

/**
 * Standard output, written in batches (batched-lines.ts): once 16 kB have gathered, and at least every
 * 100 ms; whatever is left is written when the process exits (process.exit included, so a refused start
 * still says why). logger.flush() writes at once (the "listening" line does).
 */
function stdoutDestination(): BatchedLines {
  const destination = new BatchedLines(1);
  process.once('exit', () => destination.end());
  return destination;
}

/** For servers started inside another program (tests, tools) that did not pass a logger. */
export const silentLogger: Logger = pino({ level: 'silent' });
