// The eta configuration every plugin and bundle template is compiled with (one place, so the loader's
// compile check and the renderer agree). No HTML escaping: the output is config files and scripts, and
// each template escapes for its own context with the helpers in emit/escape.ts.
import { Eta } from 'eta';
import { LRUCache } from 'lru-cache';
import { CHUNK_CHARS, settledChunks } from './text-chunks.js';

const OPTIONS = { autoEscape: false, autoTrim: false, useWith: false, varName: 'it', cache: false } as const;

/**
 * Every template can render its output in chunks (renderTemplateChunks, text-chunks.ts): a compiled
 * template reads the chunk list from its render options, and after each piece it appends, moves its
 * output to that list once it reaches CHUNK_CHARS. Rendered the usual way (no list), it runs as eta's own.
 */
export const eta = new Eta({
  ...OPTIONS,
  // the list is this render's own: a template it includes renders whole, into this one's output
  functionHeader: 'const __chunks = options?.chunks; if (__chunks !== undefined) options = { ...options, chunks: undefined };',
});
const etaCompileBody = eta.compileBody;
// the chunk is flattened as it is cut (text-chunks.ts flattened: its pieces die young)
const CUT = `if (__chunks !== undefined && __eta.res.length >= ${CHUNK_CHARS}) { __chunks.push(__eta.res); __eta.res.charCodeAt(0); __eta.res = ''; }\n`;
// eta's own code for each part of the template, one part at a time, and the cut after each part that writes
eta.compileBody = function (parts) {
  let code = '';
  for (const part of parts) {
    code += etaCompileBody.call(this, [part]);
    if (typeof part === 'string' || part.t !== 'e') code += CUT;
  }
  return code;
};

/** The same configuration with line tracking, which costs a statement per tag: used only after a render failed. */
const tracing = new Eta({ ...OPTIONS, debug: true });

export type CompiledTemplate = ReturnType<typeof eta.compile>;

/**
 * Compiled templates by their source, for the whole process: a compiled template is a function of its
 * source alone (the options are fixed above), so every generator, every catalogue snapshot (a hot reload
 * keeps the unchanged plugins' templates) and the loader's own check share one compilation of each.
 */
const compiled = new LRUCache<string, CompiledTemplate>({ maxSize: 32 * 1024 * 1024, sizeCalculation: (_fn, source) => Math.max(1, source.length) });

export function compileTemplate(source: string): CompiledTemplate {
  let fn = compiled.get(source);
  // a source that does not compile throws here every time, and is never kept
  if (!fn) compiled.set(source, (fn = eta.compile(source)));
  return fn;
}

export function renderTemplate(fn: CompiledTemplate, data: object): string {
  return eta.render(fn, data);
}

/** A template's output as chunks of about CHUNK_CHARS (text-chunks.ts), for files that grow with the stack. */
export function renderTemplateChunks(fn: CompiledTemplate, data: object): string[] {
  const chunks: string[] = [];
  chunks.push(eta.render(fn, data, { chunks } as never));
  return settledChunks(chunks);
}

/** The useful line of an eta error (its message also carries the whole compiled function). */
export function templateErrorMessage(e: unknown): string {
  const lines = String((e as Error).message ?? e).split('\n').map((l) => l.trim());
  return lines.find((l) => l && !/^=+$/.test(l) && l !== 'Bad template syntax') ?? 'bad template syntax';
}

/**
 * The template line a render failed at, found by rendering the source again with line tracking on the
 * same data (undefined if that render does not fail the same way).
 */
export function failingLine(source: string, data: object): number | undefined {
  try {
    tracing.render(tracing.compile(source), data);
  } catch (e) {
    const line = /^line (\d+)\n/.exec(String((e as Error).message))?.[1];
    return line ? Number(line) : undefined;
  }
  return undefined;
}
