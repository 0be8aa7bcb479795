// npm run test:engine -- --all [preset...]: boots every preset (or the ones named) behind Caddy, one at a
// time, runs the same checks as the engine tests, removes the stack, and prints a table: preset, containers,
// seconds from start.sh to healthy, result. Exits 1 when any preset fails.
import { containerProblems, routeProblems } from './checks.js';
import { Stack, shippedCatalogue } from './stack.js';

interface Row { preset: string; containers: number; seconds: number; result: string }

async function bootPreset(preset: string): Promise<Row> {
  const stack = await Stack.generate({ name: `all-${preset}`.slice(0, 40), preset, proxy: 'caddy' });
  try {
    await stack.provideImages();
    stack.writeEnv({ OPENAI_API_KEY: 'sk-stackwright-engine-test' });
    const started = Date.now();
    const start = await stack.script('start.sh', [], { STACK_START_TIMEOUT: '420' });
    const seconds = Math.round((Date.now() - started) / 1000);
    const containers = await stack.containers();
    const problems = start.code === 0 ? [] : [`start.sh exit ${start.code}: ${lastLine(start.stderr)}`];
    problems.push(...containerProblems(containers));
    if (start.code === 0) problems.push(...(await routeProblems(stack)));
    return { preset, containers: containers.length, seconds, result: problems.length ? `FAIL ${problems.join('; ')}` : 'ok' };
  } catch (e) {
    return { preset, containers: 0, seconds: 0, result: `FAIL ${(e as Error).message.split('\n')[0]}` };
  } finally {
    await stack.remove();
  }
}

function lastLine(text: string): string {
  return text.trim().split('\n').filter(Boolean).pop() ?? '';
}

export async function runAllPresets(only: string[]): Promise<number> {
  const presets = [...shippedCatalogue().presets.keys()].filter((p) => only.length === 0 || only.includes(p)).sort();
  const rows: Row[] = [];
  for (const preset of presets) {
    const row = await bootPreset(preset);
    rows.push(row);
    console.log(`${row.preset}: ${row.containers} containers, ${row.seconds} s, ${row.result}`);
  }
  console.log('\n| preset | containers | seconds to healthy | result |\n|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.preset} | ${r.containers} | ${r.seconds} | ${r.result} |`);
  const failed = rows.filter((r) => r.result !== 'ok').length;
  console.log(`\n${rows.length - failed} passed, ${failed} failed`);
  return failed ? 1 : 0;
}
