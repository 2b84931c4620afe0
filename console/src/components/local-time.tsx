// A moment as the page shows it: the time alone when it is today (in the browser's time zone), the date with it
// when not (the year too when not this year), in the browser's locale, compactly; the full date and time in
// the element's tooltip, and the moment itself (ISO 8601) in its `datetime`, for a screen reader or a copy.

/** What `LocalTime` shows of `iso` seen at `now` (ms): the time, after the date unless it is today. */
export function compactTime(iso: string, now: number): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const today = new Date(now);
  const time = date.toLocaleTimeString();
  if (date.toDateString() === today.toDateString()) return time;
  const day = date.toLocaleDateString(undefined, {
    month: 'short',
    day: 'numeric',
    ...(date.getFullYear() === today.getFullYear() ? {} : { year: 'numeric' }),
  });
  return `${day}, ${time}`;
}

/** `iso` (ISO 8601) as the page shows a moment: `compactTime`, the whole date and time on hover. */
export function LocalTime({ iso, now = Date.now() }: { iso: string; now?: number }) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return <span>{iso}</span>;
  const full = date.toLocaleString(undefined, { dateStyle: 'full', timeStyle: 'long' });
  return (
    <time dateTime={date.toISOString()} title={full}>
      {compactTime(iso, now)}
    </time>
  );
}
