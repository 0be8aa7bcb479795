// A node:test reporter that adds, after the run, the time each test file took (the sum of its top-level
// tests), slowest first: CI prints it so that the next change to the suite's length starts from figures.
// Plain JavaScript so that the test runner can load it before tsx is registered.
export default async function* fileTimes(source) {
  const byFile = new Map();
  for await (const event of source) {
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0 && event.data.file) {
      byFile.set(event.data.file, (byFile.get(event.data.file) ?? 0) + (event.data.details?.duration_ms ?? 0));
    }
  }
  const rows = [...byFile].sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((sum, [, ms]) => sum + ms, 0);
  yield `time per test file (sum of its top-level tests), ${rows.length} files, ${(total / 1000).toFixed(0)} s in all:\n`;
  for (const [file, ms] of rows) yield `${(ms / 1000).toFixed(1).padStart(8)} s  ${file.replace(`${process.cwd()}/`, '')}\n`;
}
