// The layers of src/ read one way: no module may reach itself again through its imports. Every import
// counts (type-only and dynamic ones too: a type import still ties two modules' meanings together), and
// every cycle is reported at once, each as the chain of files that closes it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { importGraph } from './imports.js';

/**
 * Every knot of mutually reachable files (Tarjan's strongly connected components), each shown as the
 * shortest chain from its first file back to itself, plus the knot's other files when there are more.
 */
function importCycles(graph: Map<string, string[]>): string[] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string) => {
    indexOf.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indexOf.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, indexOf.get(next)!));
    }
    if (low.get(node) === indexOf.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      const selfLoop = (graph.get(node) ?? []).includes(node);
      if (component.length > 1 || selfLoop) components.push(component);
    }
  };
  for (const node of [...graph.keys()].sort()) if (!indexOf.has(node)) visit(node);
  // one readable chain per component: the shortest way from its first file back to itself
  return components.map((component) => {
    const inside = new Set(component);
    const start = [...component].sort()[0];
    const previous = new Map<string, string>();
    const queue = [start];
    while (queue.length) {
      const node = queue.shift()!;
      for (const next of graph.get(node) ?? []) {
        if (!inside.has(next)) continue;
        if (next === start) {
          const chain = [node];
          while (chain[0] !== start) chain.unshift(previous.get(chain[0])!);
          const rest = component.filter((f) => !chain.includes(f)).sort();
          return `${[...chain, start].join(' → ')}${rest.length ? ` (the knot also holds ${rest.join(', ')})` : ''}`;
        }
        if (!previous.has(next)) { previous.set(next, node); queue.push(next); }
      }
    }
    return `${start} → ${start}`;
  }).sort();
}

test('src/ has no import cycle', () => {
  const cycles = importCycles(importGraph());
  assert.deepEqual(cycles, [], `import cycles in src/ (a module below must not import back up):\n${cycles.map((c) => `  ${c}`).join('\n')}`);
});

test('the cycle finder finds each cycle, and only cycles', () => {
  const graph = new Map([
    ['a.ts', ['b.ts']], ['b.ts', ['c.ts']], ['c.ts', ['a.ts', 'd.ts']], ['d.ts', []],
    ['e.ts', ['e.ts']], ['f.ts', ['g.ts']], ['g.ts', ['f.ts']], ['h.ts', ['d.ts']],
  ]);
  assert.deepEqual(importCycles(graph), ['a.ts → b.ts → c.ts → a.ts', 'e.ts → e.ts', 'f.ts → g.ts → f.ts']);
  // two circles through one file are one knot: the shortest shown, the other files named
  const knot = new Map([['a.ts', ['b.ts', 'c.ts']], ['b.ts', ['a.ts']], ['c.ts', ['d.ts']], ['d.ts', ['a.ts']]]);
  assert.deepEqual(importCycles(knot), ['a.ts → b.ts → a.ts (the knot also holds c.ts, d.ts)']);
});
