// Structured JSON logs (pino); every request and job line carries its id.
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'quire' }, timestamp: pino.stdTimeFunctions.isoTime });
}
