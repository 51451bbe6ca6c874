/**
 * Control characters (newlines, carriage returns, escape sequences…) and
 * Unicode line separators. Log messages carry text from agents and users —
 * host names, usernames, URLs — and one of them holding "\n" must not be
 * able to write a line of its own (a forged entry) or move the terminal's cursor.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** A message fit for one log line: unsafe characters written as escapes (`\n`, `\x1b`, `\u2028`). */
export function escapeLogText(message: string): string {
  return message.replace(UNSAFE, (char) => {
    const named = NAMED[char];
    if (named) return named;
    const code = char.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}

/** One-line logs with a level and a timestamp, on stderr so that `--once --json` keeps stdout clean. */
function write(level: string, message: string): void {
  process.stderr.write(`${new Date().toISOString()} ${level} ${escapeLogText(message)}\n`);
}

export const log = {
  info: (message: string) => write("info ", message),
  warn: (message: string) => write("warn ", message),
  error: (message: string) => write("error", message),
};
