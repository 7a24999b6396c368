// `document.date` read as a moment when it is an ISO 8601 date or date and time: the output's metadata date then.

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * The UTC moment of an ISO date (`2024-05-01`: midnight UTC) or date and time (`2024-05-01T10:30:00+02:00`;
 * without an offset, UTC); null for any other text (`May 2024`, `2024-02-30`), which stays metadata text only.
 */
export function isoDocumentDate(text: string | undefined): Date | null {
  const m = text === undefined ? null : ISO.exec(text.trim());
  if (!m) return null;
  const [year, month, day, hour = 0, minute = 0, second = 0] = m.slice(1, 7).map((v) => (v === undefined ? undefined : Number(v))) as number[];
  const utc = Date.UTC(year!, month! - 1, day!, hour, minute, second);
  const date = new Date(utc);
  // Date.UTC rolls 2024-02-30 over into March: such a date is not a date.
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month! - 1 || date.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) return null;
  const zone = m[7];
  if (!zone || zone === 'Z') return date;
  const sign = zone[0] === '-' ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  return new Date(utc - sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000);
}
