// The logger's settings (STACK_LOG_LEVEL, STACK_LOG_FORMAT), apart from the logger so that reading the
// configuration does not load pino.
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface LogSettings {
  level: LogLevel;
  /** auto: pretty when stdout is a terminal, JSON lines otherwise */
  format: LogFormat;
}
