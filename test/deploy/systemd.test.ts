// The systemd unit as systemd itself rates it: `systemd-analyze security --offline` on contrib/'s unit.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { REPO_ROOT } from '../../src/config.js';

const UNIT = path.join(REPO_ROOT, 'contrib/stackwright.service');

describe('contrib/stackwright.service', () => {
  test('rates an exposure of 2.0 or lower in systemd-analyze security, without MemoryDenyWriteExecute', () => {
    // Debian's systemd package brings systemd-analyze (scripts/install-test-tools.sh; CI has it)
    const report = execFileSync('systemd-analyze', ['security', '--offline=true', '--no-pager', UNIT], { encoding: 'utf8' });
    const overall = /Overall exposure level for stackwright\.service: (\d+\.\d+) /.exec(report);
    assert.ok(overall, report);
    assert.ok(Number(overall[1]) <= 2.0, `exposure ${overall[1]}:\n${report.split('\n').filter((l) => l.includes('✗')).join('\n')}`);
    const unit = fs.readFileSync(UNIT, 'utf8');
    assert.doesNotMatch(unit, /^MemoryDenyWriteExecute=yes/m, 'V8 needs writable executable memory');
    assert.match(unit, /^ExecStart=.*dist\/main\.js$/m);
  });
});
