// Listing the catalogue, as every door offers it: the service filters (category, tag, maturity) and
// what is wrong with them. The entries themselves are views.ts.
import { didYouMean } from '../catalogue/problems.js';
import type { Catalogue, Maturity } from '../catalogue/types.js';

export const MATURITIES: readonly Maturity[] = ['stable', 'beta', 'experimental'];

export interface ServiceFilters { category?: string | null; tag?: string | null; maturity?: string | null }

/** What is wrong with service filters (an unknown category, a maturity that does not exist), as sentences. */
export function serviceFilterErrors(catalogue: Catalogue, { category, maturity }: ServiceFilters): string[] {
  const errors: string[] = [];
  if (category != null && !catalogue.categories.has(category)) {
    errors.push(`unknown category "${category}"${didYouMean(category, catalogue.categories.keys())}; categories: ${[...catalogue.categories.keys()].join(', ')}`);
  }
  if (maturity != null && !MATURITIES.includes(maturity as Maturity)) errors.push(`maturity must be one of ${MATURITIES.join(', ')} (got "${maturity}")`);
  return errors;
}

/** The ids of the services every given filter admits (undefined: no filter given, so all of them). */
export function filteredServiceIds(catalogue: Catalogue, { category, tag, maturity }: ServiceFilters): Set<string> | undefined {
  let ids: Set<string> | undefined;
  const narrow = (list: readonly { id: string }[] | undefined) => {
    const next = new Set((list ?? []).map((s) => s.id));
    ids = ids ? new Set([...ids].filter((id) => next.has(id))) : next;
  };
  if (category != null) narrow(catalogue.servicesByCategory.get(category));
  if (tag != null) narrow(catalogue.servicesByTag.get(tag));
  if (maturity != null) narrow(catalogue.servicesByMaturity.get(maturity));
  return ids;
}
