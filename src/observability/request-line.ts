// The request log line (requests.ts: one per request), written to the logger's own destination in exactly
// the bytes `logger.info(fields, message)` would write. pino's general path (a serialiser lookup, a type
// switch and a character-by-character escape check for every field) was the largest part of a catalogue
// read's CPU after the socket write; this line's fields are few and fixed. The level prefix, the time and
// the bindings (pid, hostname, a child's fields) come from the logger itself, through pino.symbols (its
// documented hooks for integrations), so they cannot drift from its other lines; a logger set up in a way
// this does not reproduce (mixins, hooks, message prefixes, nested keys, a multistream) keeps using
// `logger.info`. A test holds the two byte for byte.
import pino, { type Logger } from 'pino';

export interface RequestLine {
  requestId: string;
  method: string;
  route: string;
  status: number;
  durationMs: number;
  client: string;
  /** left out when undefined, as pino leaves out an undefined field */
  key?: string;
}

export type RequestLineWriter = (line: RequestLine, message: string) => void;

const { chindingsSym, formattersSym, hooksSym, lsCacheSym, mixinSym, needsMetadataGsym, nestedKeySym, streamSym, timeSym } = pino.symbols;
// present at run time (pino 10), missing from its type declarations
const msgPrefixSym = (pino.symbols as unknown as Record<string, symbol>).msgPrefixSym;

type Internals = Logger & Record<symbol, unknown>;

export function requestLineWriter(logger: Logger): RequestLineWriter {
  const internals = logger as Internals;
  const stream = internals[streamSym] as { write(text: string): unknown } & Record<symbol, unknown>;
  const sameAsPino = !internals[mixinSym] && !(internals[hooksSym] as { streamWrite?: unknown } | undefined)?.streamWrite
    && !(internals[formattersSym] as { log?: unknown } | undefined)?.log && !internals[msgPrefixSym] && !internals[nestedKeySym]
    && stream?.[needsMetadataGsym] !== true && typeof stream?.write === 'function';
  if (!sameAsPino) return (line, message) => logger.info(line, message);
  const levelValue = logger.levels.values.info;
  const prefix = (internals[lsCacheSym] as Record<number, string>)[levelValue];
  const time = internals[timeSym] as () => string;
  const bindings = internals[chindingsSym] as string;
  return (line, message) => {
    if (!logger.isLevelEnabled('info')) return;
    const key = line.key === undefined ? '' : `,"key":${JSON.stringify(line.key)}`;
    stream.write(`${prefix}${time()}${bindings},"requestId":${JSON.stringify(line.requestId)},"method":${JSON.stringify(line.method)},"route":${JSON.stringify(line.route)},"status":${number(line.status)},"durationMs":${number(line.durationMs)},"client":${JSON.stringify(line.client)}${key},"msg":${JSON.stringify(message)}}\n`);
  };
}

/** A number as pino writes one: a non-finite one is null. */
function number(n: number): string {
  return Number.isFinite(n) ? String(n) : 'null';
}
