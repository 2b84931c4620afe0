/**
 * The line `toolwire call --progress` prints on stderr for a progress notification: `progress: 3/10` and the
 * message, on one line. A message that states the count itself (the demo's search_files says "3/10 files
 * scanned", others "3 of 10") is printed alone: the counter before it printed the same numbers twice
 * ("progress: 3/10 3/10 files scanned").
 * @module
 */
import { oneLine } from './terminal-text.js';

/** What a progress notification carries (`notifications/progress` params, less the token). */
export interface ProgressReport {
  progress: number;
  total?: number | undefined;
  message?: string | undefined;
}

/** Whether `message` states `progress` of `total` itself: "3/10", "3 / 10" or "3 of 10", as whole numbers. */
function statesCount(message: string, progress: number, total: number): boolean {
  const number = (n: number) => String(n).replace(/[.+-]/g, '\\$&');
  const count = new RegExp(`(?<![\\d.])${number(progress)}\\s*(?:/|of)\\s*${number(total)}(?![\\d.])`);
  return count.test(message);
}

/** `progress: P/T MESSAGE` (a newline after), or `progress: MESSAGE` when the message states P/T itself. */
export function progressLine({ progress, total, message }: ProgressReport): string {
  const said = message ? oneLine(message) : '';
  if (said !== '' && total !== undefined && statesCount(said, progress, total)) return `progress: ${said}\n`;
  const of = total === undefined ? '' : `/${total}`;
  return `progress: ${progress}${of}${said === '' ? '' : ` ${said}`}\n`;
}
