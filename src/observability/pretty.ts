// Human-readable log lines for a terminal: "12:03:04.512 INFO  message  key=value ...". The logger still
// builds its JSON record; this only re-reads it, so what a terminal shows and what a collector stores
// are the same fields. Colour only where the terminal is one and NO_COLOR is unset.
const HIDDEN = new Set(['time', 'level', 'msg', 'pid', 'hostname']);
const COLOURS: Record<string, string> = { fatal: '35', error: '31', warn: '33', info: '32', debug: '36', trace: '90' };

export function formatRecord(record: Record<string, unknown>, colour: boolean): string {
  const time = typeof record.time === 'string' ? record.time.slice(11, 23) : '';
  const level = String(record.level ?? '').toUpperCase().padEnd(5);
  const tint = (code: string | undefined, text: string) => (colour && code ? `\x1b[${code}m${text}\x1b[0m` : text);
  const fields = Object.entries(record)
    .filter(([name, value]) => !HIDDEN.has(name) && value !== undefined)
    .map(([name, value]) => `${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  const err = record.err as { stack?: string } | undefined;
  const text = `${time} ${tint(COLOURS[String(record.level)], level)} ${String(record.msg ?? '')}${fields.length ? `  ${tint('90', fields.filter((f) => !f.startsWith('err=')).join(' '))}` : ''}`;
  return err?.stack ? `${text}\n${err.stack}` : text;
}

/** A destination for pino that writes each record as a human line to `out`. */
export function prettyStream(out: NodeJS.WritableStream & { isTTY?: boolean }): { write(line: string): void } {
  const colour = out.isTTY === true && !process.env.NO_COLOR;
  return {
    write(line: string) {
      let record: Record<string, unknown>;
      try {
        record = JSON.parse(line) as Record<string, unknown>;
      } catch {
        out.write(line);
        return;
      }
      out.write(`${formatRecord(record, colour)}\n`);
    },
  };
}
