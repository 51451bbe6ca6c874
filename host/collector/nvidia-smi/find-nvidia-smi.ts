import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";

/**
 * The first `nvidia-smi` on the search path that is an executable file, or
 * null. The PATH is read here rather than from server/core/env.ts because it is
 * the operating system's lookup rule, not gpudesk configuration.
 */
export function findNvidiaSmi(searchPath: string | undefined = process.env.PATH): string | null {
  const names = process.platform === "win32" ? ["nvidia-smi.exe"] : ["nvidia-smi"];
  for (const dir of (searchPath ?? "").split(delimiter)) {
    if (dir === "") continue;
    for (const name of names) {
      const candidate = join(dir, name);
      try {
        if (!statSync(candidate).isFile()) continue;
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // Missing or not executable: keep looking, as a shell would.
      }
    }
  }
  return null;
}
