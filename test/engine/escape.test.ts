// Escaping for the contexts generated files put values in.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { psQuote, shellQuote } from '../../src/emit/escape.js';

describe('escaping', () => {
  test('PowerShell: typographic single quotes end a string too, so they are doubled like \'', () => {
    assert.equal(psQuote("it's"), "'it''s'");
    for (const q of ['\u2018', '\u2019', '\u201A', '\u201B']) assert.equal(psQuote(`a${q}b`), `'a${q}${q}b'`, q.codePointAt(0)!.toString(16));
    assert.equal(psQuote('\u201Cdouble\u201D stays'), "'\u201Cdouble\u201D stays'");
  });

  test('bash: a single quote closes and reopens the quoted word', () => {
    assert.equal(shellQuote("it's"), `'it'\\''s'`);
    assert.equal(shellQuote('plain-word'), 'plain-word');
  });
});
