// Ranked search over catalogue entries: an exact id or name first, then a prefix of either, then words
// inside the id or name, then matches in the description, tags or category only. So "postgres" lists
// PostgreSQL (a prefix) before MySQL (whose description mentions it).

/**
 * How well `item` ({ id, name, text }) matches the lower-case query: 0 (best) to 3, or undefined for no
 * match. Every word of a query must appear somewhere for a match at all.
 */
export function matchRank(query, item) {
  const id = item.id.toLowerCase();
  const name = item.name.toLowerCase();
  if (id === query || name === query) return 0;
  if (id.startsWith(query) || name.startsWith(query)) return 1;
  if (id.includes(query) || name.includes(query)) return 2;
  const all = `${id} ${name} ${item.text.toLowerCase()}`;
  return query.split(/\s+/).every((word) => all.includes(word)) ? 3 : undefined;
}

/** The items matching the query, best first; the catalogue's order within a rank. */
export function rankedMatches(query, items) {
  const q = query.trim().toLowerCase().replace(/\s+/g, ' ');
  if (!q) return [];
  return items
    .map((item, index) => ({ item, index, rank: matchRank(q, item) }))
    .filter((m) => m.rank !== undefined)
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map((m) => m.item);
}
