// Small DOM helpers shared by the page's modules. Text is always set as text, never parsed as HTML.

export const $ = (id) => document.getElementById(id);

/** Creates an element: el('p', { class: 'hint' }, 'text', child). Attributes that are false, null or undefined are left out. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value === undefined || value === null) continue;
    if (name === 'class') node.className = value;
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) if (child !== undefined && child !== null && child !== false) node.append(child);
  return node;
}

/** "4,608 MB (about 4.5 GB)" */
export function megabytes(mb) {
  return `${mb.toLocaleString('en')} MB (about ${(mb / 1024).toFixed(1)} GB)`;
}

/** "1 skill pack", "2 skill packs" */
export function count(n, singular, plural = `${singular}s`) {
  return `${n} ${n === 1 ? singular : plural}`;
}
