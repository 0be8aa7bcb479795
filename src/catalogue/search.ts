// Finding catalogue entries by words, and a one-line summary of each, the same for every door that
// lists them (the MCP tools, `stackwright list`): best matches first, so "postgres" finds PostgreSQL
// before the services that merely mention it.

import type { PresetPlugin, ServicePlugin, SkillPackPlugin } from './types.js';

/** What a search reads of an entry. */
export interface Searchable { id: string; name: string; description: string; tags?: readonly string[] }

/** What is searched of each kind (a skill pack's skills count as its tags). */
export const searchable = {
  service: (s: ServicePlugin): Searchable => ({ id: s.id, name: s.manifest.name, description: s.manifest.description, tags: s.manifest.tags }),
  skillPack: (p: SkillPackPlugin): Searchable => ({ id: p.id, name: p.manifest.name, description: p.manifest.description, tags: p.manifest.skills }),
  preset: (p: PresetPlugin): Searchable => ({ id: p.id, name: p.manifest.name, description: p.manifest.description }),
};

const ONE_LINE = 140;

/** The first sentence of a description, cut to one short line. */
export function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const sentence = /^(.+?[.!?])(\s|$)/.exec(flat)?.[1] ?? flat;
  return sentence.length <= ONE_LINE ? sentence : `${sentence.slice(0, ONE_LINE - 1).replace(/\s+\S*$/, '')}…`;
}

/**
 * How well an entry matches search words: every word must appear somewhere (else 0); a word that is the
 * id, or starts it, counts most, then the name, then the tags, then the description.
 */
function searchScore(query: string, entry: Searchable): number {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const id = entry.id.toLowerCase();
  const name = entry.name.toLowerCase();
  const tags = (entry.tags ?? []).map((t) => t.toLowerCase());
  const description = entry.description.toLowerCase();
  let score = 0;
  for (const w of words) {
    const best = id === w ? 32 : id.startsWith(w) ? 16 : id.includes(w) ? 8 : name.includes(w) ? 4 : tags.some((t) => t.includes(w)) ? 2 : description.includes(w) ? 1 : 0;
    if (!best) return 0;
    score += best;
  }
  return score;
}

/** The entries that match the words, best first (ties in catalogue order); all of them without words. */
export function search<T>(entries: T[], query: string | undefined, fields: (e: T) => Searchable): T[] {
  if (!query?.trim()) return entries;
  return entries.map((e, i) => ({ e, i, score: searchScore(query, fields(e)) }))
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .map((x) => x.e);
}
