// The Swarm secret plan's test of whether shell text expands a variable (emit/swarm/secrets.ts expands): a
// search that must answer as the regular expression it replaced, \$\$(\{NAME\b|NAME\b), on every case of
// where a name starts and stops, so a variable read by a health check or by the service's own command
// keeps its value in the stack file.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expands } from '../../src/emit/swarm/secrets.js';

const reference = (text: string, name: string) => new RegExp(`\\$\\$(\\{${name}\\b|${name}\\b)`).test(text);

test('expands() answers as \\$\\$(\\{NAME\\b|NAME\\b) on every placement of a name', () => {
  const names = ['A', 'PGPASSWORD', 'DB_PASSWORD', 'DB_PASSWORD_2', '_X'];
  const around = ['', ' ', '-', '}', ':', '"', "'", '/', 'A', 'a', '0', '_', '\n', '$'];
  const middles = (name: string) => [
    `$$${name}`, `$${name}`, `$$$${name}`, `$$$${name}`, `$$\{${name}}`, `$\{${name}}`, `$$\{${name}:-x}`, `$$\{${name}-x}`, `$$\{${name}X}`,
    `$$\{ ${name}}`, `$$${name.slice(0, -1)}`, `$$${name}${name}`, `$$${name.toLowerCase()}`, `${name}`, `$$`, `$$x $$${name}`, `$$\{$$${name}`,
  ];
  let cases = 0;
  for (const name of names) {
    for (const middle of middles(name)) {
      for (const before of around) {
        for (const after of around) {
          const text = `${before}${middle}${after}`;
          assert.equal(expands(text, name), reference(text, name), `${JSON.stringify(text)} and ${name}`);
          cases++;
        }
      }
    }
    assert.equal(expands('pg_isready -U "$${POSTGRES_USER}" && test -n "$$PGPASSWORD"', name), reference('pg_isready -U "$${POSTGRES_USER}" && test -n "$$PGPASSWORD"', name));
  }
  assert.ok(expands('test -n "$$PGPASSWORD"', 'PGPASSWORD'));
  assert.ok(!expands('test -n "$$PGPASSWORD_FILE"', 'PGPASSWORD'));
  assert.ok(cases > 4000, `${cases} cases`);
});
