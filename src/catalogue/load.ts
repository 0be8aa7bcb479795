// Loads the catalogue: read + schema (read.ts) → cross-reference rules (rules.ts) → snapshot.ts → every
// plugin template rendered in representative stacks (template-check.ts). Every problem is
// collected before deciding, so an operator sees all of them in one run.
import { readCatalogue, type CatalogueDirs, type RawCatalogue } from './read.js';
import { checkCatalogue } from './rules.js';
import { buildSnapshot } from './snapshot.js';
import { checkTemplateRenders } from './template-check.js';
import { formatProblem, type Problem } from './problems.js';
import type { Catalogue } from './types.js';

export type { CatalogueDirs } from './read.js';

export interface LoadResult {
  /** undefined when any problem is an error */
  catalogue?: Catalogue;
  /** the checked plugins the snapshot was built from (for the start-up cache) */
  raw?: RawCatalogue;
  errors: Problem[];
  warnings: Problem[];
  loadMs: number;
}

export function loadCatalogue(dirs: CatalogueDirs): LoadResult {
  const started = performance.now();
  const problems: Problem[] = [];
  const raw = readCatalogue(dirs, problems);
  checkCatalogue(raw, problems);
  const errors = problems.filter((p) => p.severity === 'error');
  const warnings = problems.filter((p) => p.severity === 'warning');
  let catalogue = errors.length === 0 ? buildSnapshot(raw) : undefined;
  // rendering needs a catalogue whose references all hold, so it runs only on one that is otherwise clean
  const renderErrors = catalogue ? checkTemplateRenders(catalogue) : [];
  if (renderErrors.length) {
    errors.push(...renderErrors);
    catalogue = undefined;
  }
  return { catalogue, raw, errors, warnings, loadMs: performance.now() - started };
}

export class CatalogueLoadError extends Error {
  constructor(readonly errors: Problem[]) {
    super(`the catalogue has ${errors.length} problem(s):\n${errors.map((p) => `  ${formatProblem(p)}`).join('\n')}`);
  }
}

/** The catalogue, or a CatalogueLoadError listing every error. */
export function loadCatalogueOrThrow(dirs: CatalogueDirs): Catalogue {
  const result = loadCatalogue(dirs);
  if (!result.catalogue) throw new CatalogueLoadError(result.errors);
  return result.catalogue;
}
