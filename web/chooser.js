// A long list of checkboxes made short: one collapsed group per category with its count and how many are
// chosen, the chosen ones as removable chips above, and a search box whose matches are listed flat, best
// first (search.js). Used for the services and the skill packs.
import { count, el } from './dom.js';
import { rankedMatches } from './search.js';

/**
 * Builds the chooser into `root`. items: { id, name, description, facts, group, text }; groups: { id, name,
 * description }; `noun`: [singular, plural]; onToggle(id, chosen) is called when the user changes a choice.
 */
export function chooser({ root, name, noun: [one, many], items, groups, onToggle }) {
  const searchId = `${name}-search`;
  const countId = `${name}-search-count`;
  const search = el('input', { id: searchId, type: 'search', autocomplete: 'off', spellcheck: 'false', 'aria-describedby': countId, 'aria-controls': `${name}-matches` });
  const searchCount = el('p', { id: countId, class: 'hint', 'aria-live': 'polite' });
  const chips = el('ul', { class: 'chips', 'aria-label': `Chosen ${many}` });
  const chosenLine = el('div', { class: 'chosen' }, el('span', { class: 'chosen-title', id: `${name}-chosen-title` }, `Chosen ${many}:`), chips);
  const matches = el('div', { id: `${name}-matches`, class: 'matches', hidden: true });
  const groupsBox = el('div', { class: 'groups' });
  root.replaceChildren(
    el('div', { class: 'field' }, el('label', { for: searchId }, `Find a ${one}`), search, searchCount),
    chosenLine, matches, groupsBox);

  const rows = new Map();
  const groupBoxes = new Map();
  for (const group of groups) {
    const members = items.filter((i) => i.group === group.id);
    if (!members.length) continue;
    const countText = el('span', { class: 'group-count' });
    const set = el('fieldset', { class: 'group-set' }, el('legend', { class: 'visually-hidden' }, group.name),
      group.description ? el('p', { class: 'hint' }, group.description) : null);
    const details = el('details', { class: 'group', 'data-group': group.id },
      el('summary', {}, el('span', { class: 'group-name' }, group.name), ' ', countText), set);
    groupBoxes.set(group.id, { details, set, countText, members });
    groupsBox.append(details);
    for (const item of members) {
      const inputId = `${name}-${item.id}`;
      const descId = `${name}-desc-${item.id}`;
      const input = el('input', { type: 'checkbox', name, value: item.id, id: inputId, 'aria-describedby': descId });
      input.addEventListener('change', () => onToggle(item.id, input.checked));
      const row = el('div', { class: 'choice-row', 'data-id': item.id },
        el('label', { class: 'choice', for: inputId }, input, el('span', {}, el('span', { class: 'choice-name' }, item.name), ' ', el('code', {}, item.id))),
        el('p', { class: 'hint', id: descId }, item.facts ? `${item.description} (${item.facts})` : item.description));
      rows.set(item.id, { row, input, item });
      set.append(row);
    }
  }

  let chosen = [];

  const filter = () => {
    const query = search.value.trim();
    // every row back in its group, in catalogue order, then the matches moved out in rank order
    for (const { set, members } of groupBoxes.values()) set.append(...members.map((m) => rows.get(m.id).row));
    const found = rankedMatches(query, items);
    matches.replaceChildren(...found.map((item) => rows.get(item.id).row));
    matches.hidden = !query;
    groupsBox.hidden = Boolean(query);
    searchCount.textContent = !query
      ? `${count(items.length, one, many)} in ${count(groupBoxes.size, 'group')}; open a group or search by name, id or description.`
      : found.length ? `${count(found.length, 'match', 'matches')} for “${query}”, best first.` : `No ${one} matches “${query}”.`;
  };
  search.addEventListener('input', filter);
  // Enter in the search box must not submit the form (that would generate)
  search.addEventListener('keydown', (event) => { if (event.key === 'Enter') event.preventDefault(); });

  /** Shows `ids` as the chosen ones. */
  const show = (ids) => {
    chosen = ids;
    for (const { input } of rows.values()) input.checked = ids.includes(input.value);
    for (const { countText, members } of groupBoxes.values()) {
      const picked = members.filter((m) => ids.includes(m.id)).length;
      countText.textContent = `${members.length}${picked ? `, ${picked} chosen` : ''}`;
    }
    chips.replaceChildren(...ids.map((id) => {
      const item = rows.get(id)?.item;
      return el('li', {}, el('button', { type: 'button', class: 'chip', 'aria-label': `Remove ${item?.name ?? id}`, 'data-remove': id },
        item?.name ?? id, el('span', { 'aria-hidden': 'true' }, ' ×')));
    }));
    if (!ids.length) chips.replaceChildren(el('li', { class: 'hint' }, 'none yet'));
  };
  chips.addEventListener('click', (event) => {
    const button = event.target.closest('[data-remove]');
    if (!button) return;
    const index = [...chips.querySelectorAll('button')].indexOf(button);
    onToggle(button.dataset.remove, false);
    // the focus goes to the chip that took its place, or to the search box when none is left
    const left = chips.querySelectorAll('button');
    (left[Math.min(index, left.length - 1)] ?? search).focus();
  });

  filter();
  show([]);
  return { show, get chosen() { return chosen; }, search };
}
