// Built-in modules are loaded one way (src/node-builtins.ts says why): each by its `node:` name, and
// node:fs, node:util and node:http, whose ES-module facades run lazy getters at every start, only through
// src/node-builtins.ts. Type-only imports load nothing and are free.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { importGraph, SRC } from './imports.js';

const THROUGH_BUILTINS_MODULE = new Set(['node:fs', 'node:fs/promises', 'node:util', 'node:http']);
const BUILTINS = new Set(builtinModules.filter((m) => !m.startsWith('_')));

/** Each value import (static or dynamic) of a built-in that breaks the rule, as "file: import 'name'". */
function builtinViolations(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: string[] = [];
  const check = (name: string, typeOnly: boolean) => {
    const bare = name.replace(/^node:/, '');
    if (!name.startsWith('node:') && BUILTINS.has(bare.split('/')[0])) out.push(`${file}: import '${name}' (say 'node:${name}')`);
    else if (!typeOnly && THROUGH_BUILTINS_MODULE.has(name) && file !== 'node-builtins.ts') out.push(`${file}: import '${name}' (take it from src/node-builtins.ts)`);
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly = !!clause && (clause.isTypeOnly || (!clause.name && !!clause.namedBindings && ts.isNamedImports(clause.namedBindings)
        && clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      check(node.moduleSpecifier.text, typeOnly);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      check(node.moduleSpecifier.text, node.isTypeOnly);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      check(node.arguments[0].text, false);
    } else if (ts.isImportTypeNode(node)) {
      // typeof import('node:fs'): a type, loads nothing
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

test('built-ins are loaded one way: node: names, and node:fs, node:util, node:http through src/node-builtins.ts', () => {
  const violations = [...importGraph().keys()].flatMap((file) => builtinViolations(file, fs.readFileSync(path.join(SRC, file), 'utf8')));
  assert.deepEqual(violations, [], `built-ins loaded another way:\n${violations.map((v) => `  ${v}`).join('\n')}`);
});

test('the built-in check finds each way of breaking the rule, and passes the allowed ones', () => {
  const text = [
    "import fs from 'node:fs';",
    "import { promisify } from 'node:util';",
    "import path from 'path';",
    "const http = await import('node:http');",
    "import type { IncomingMessage } from 'node:http';",
    "import { type Dirent } from 'node:fs';",
    "import crypto from 'node:crypto';",
    "let z: typeof import('node:fs') | undefined;",
  ].join('\n');
  assert.deepEqual(builtinViolations('x.ts', text), [
    "x.ts: import 'node:fs' (take it from src/node-builtins.ts)",
    "x.ts: import 'node:util' (take it from src/node-builtins.ts)",
    "x.ts: import 'path' (say 'node:path')",
    "x.ts: import 'node:http' (take it from src/node-builtins.ts)",
  ]);
  assert.deepEqual(builtinViolations('node-builtins.ts', "import fs from 'node:fs';"), []);
});
