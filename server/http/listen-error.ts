import { ConfigError } from "@/server/env";

/**
 * The one line a failed listen deserves: a port another program holds (or
 * one this user may not open) is a setting to change, not a crash, so it
 * says which port and how to choose another instead of a stack trace.
 * Anything else is passed through unchanged.
 */
export function describeListenError(error: unknown, port: number, host: string): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === "EADDRINUSE") {
    return new ConfigError(`port ${port} on ${host} is already in use by another program: stop it, or start gpudesk on another port, e.g. PORT=${port + 1} npm start`);
  }
  if (code === "EACCES") {
    return new ConfigError(`port ${port} on ${host} needs more privileges than this user has: choose a port above 1023, e.g. PORT=3000 npm start`);
  }
  return error;
}
