/** One-line logs with a level and a timestamp, on stderr so that `--once --json` keeps stdout clean. */
function write(level: string, message: string): void {
  process.stderr.write(`${new Date().toISOString()} ${level} ${message}\n`);
}

export const log = {
  info: (message: string) => write("info ", message),
  warn: (message: string) => write("warn ", message),
  error: (message: string) => write("error", message),
};
