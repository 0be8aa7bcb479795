// The eta configuration every plugin and bundle template is compiled with (one place, so the loader's
// compile check and the renderer agree). No HTML escaping: the output is config files and scripts, and
// each template escapes for its own context with the helpers in engine/escape.ts.
import { Eta } from 'eta';

export const eta = new Eta({ autoEscape: false, autoTrim: false, useWith: false, varName: 'it', cache: false });

export type CompiledTemplate = ReturnType<typeof eta.compile>;

export function compileTemplate(source: string): CompiledTemplate {
  return eta.compile(source);
}

export function renderTemplate(fn: CompiledTemplate, data: object): string {
  return eta.render(fn, data);
}

/** The useful line of an eta error (its message also carries the whole compiled function). */
export function templateErrorMessage(e: unknown): string {
  const lines = String((e as Error).message ?? e).split('\n').map((l) => l.trim());
  return lines.find((l) => l && !/^=+$/.test(l) && l !== 'Bad template syntax') ?? 'bad template syntax';
}
