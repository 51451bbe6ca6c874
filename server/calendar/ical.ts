/**
 * iCalendar (RFC 5545) text for a list of bookings: what a calendar app
 * subscribes to. Times in UTC (the "Z" form every client reads), lines
 * folded at 75 octets, text escaped, CRLF line ends.
 */

export interface CalendarEvent {
  uid: string;
  startsAt: Date;
  endsAt: Date;
  summary: string;
  description: string;
  location: string;
  cancelled: boolean;
}

function stamp(date: Date): string {
  return date.toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");
}

/**
 * Backslash, semicolon, comma and line breaks are escaped in TEXT values
 * (RFC 5545 3.3.11). Every form of line break — CRLF, a bare CR or LF, NEL,
 * the Unicode line and paragraph separators — becomes the escape `\n`, and other
 * control characters are dropped, so that no parser that splits lines
 * differently finds a line of a member's purpose among the feed's own.
 */
function text(value: string): string {
  return value
    .replace(/\\/g, "\\\\")
    .replace(/;/g, "\\;")
    .replace(/,/g, "\\,")
    .replace(/\r\n|[\r\n\u0085\u2028\u2029\v\f]/g, "\\n")
    .replace(/[\u0000-\u0008\u000e-\u001f\u007f]/g, "");
}

/** A content line folded into pieces of at most 75 octets, never inside a UTF-8 character. */
function fold(line: string): string {
  const pieces: string[] = [];
  let current = "";
  let octets = 0;
  for (const char of line) {
    const size = Buffer.byteLength(char);
    // The continuation's leading space counts against its 75.
    const limit = pieces.length === 0 ? 75 : 74;
    if (octets + size > limit) {
      pieces.push(current);
      current = "";
      octets = 0;
    }
    current += char;
    octets += size;
  }
  pieces.push(current);
  return pieces.join("\r\n ");
}

export function formatCalendar(name: string, events: readonly CalendarEvent[], now: Date): string {
  const lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//gpudesk//GPU bookings//EN", "CALSCALE:GREGORIAN", "METHOD:PUBLISH", `X-WR-CALNAME:${text(name)}`];
  for (const event of events) {
    lines.push(
      "BEGIN:VEVENT",
      `UID:${event.uid}`,
      `DTSTAMP:${stamp(now)}`,
      `DTSTART:${stamp(event.startsAt)}`,
      `DTEND:${stamp(event.endsAt)}`,
      `SUMMARY:${text(event.summary)}`,
      `DESCRIPTION:${text(event.description)}`,
      `LOCATION:${text(event.location)}`,
      `STATUS:${event.cancelled ? "CANCELLED" : "CONFIRMED"}`,
      "TRANSP:OPAQUE",
      "END:VEVENT",
    );
  }
  lines.push("END:VCALENDAR");
  return `${lines.map(fold).join("\r\n")}\r\n`;
}
