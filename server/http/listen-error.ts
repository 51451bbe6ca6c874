import { createServer } from "node:net";
import { ConfigError } from "@/server/core/env";

/** How many ports after a taken one are tried before the message stops suggesting one. */
const PORTS_TRIED = 20;

/** Whether `port` on `host` can be opened now (listened on and closed at once). */
export function portIsFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
}

/** The first port after `port` that can be opened now, or null when none of the next few can. */
async function nextFreePort(port: number, host: string, isFree: typeof portIsFree): Promise<number | null> {
  for (let candidate = port + 1; candidate <= Math.min(port + PORTS_TRIED, 65_535); candidate += 1) {
    if (await isFree(candidate, host)) return candidate;
  }
  return null;
}

/**
 * The one line a failed listen deserves: a port another program holds (or
 * one this user may not open) is a setting to change, not a crash, so it
 * says which port and how to choose another instead of a stack trace. The
 * port it suggests was free when checked. Anything else is passed through unchanged.
 */
export async function describeListenError(error: unknown, port: number, host: string, isFree = portIsFree): Promise<unknown> {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === "EADDRINUSE") {
    const free = await nextFreePort(port, host, isFree);
    const choose = free === null ? `the next ${PORTS_TRIED} ports are taken too, so choose a free one: PORT=<port> npm start` : `e.g. PORT=${free} npm start (free just now)`;
    return new ConfigError(`port ${port} on ${host} is already in use by another program: stop it, or start gpudesk on another port, ${choose}`);
  }
  if (code === "EACCES") {
    return new ConfigError(`port ${port} on ${host} needs more privileges than this user has: choose a port above 1023, e.g. PORT=3000 npm start`);
  }
  return error;
}
