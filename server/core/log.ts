/** The server logs as the host-side code does (lib/log.ts): one line per entry, control characters escaped. */
export { escapeLogText, log } from "@/lib/log";
