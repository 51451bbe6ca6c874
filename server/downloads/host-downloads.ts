import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { GPUDESK_VERSION } from "@/lib/version";
import { ensureHostBundle, HOST_BUNDLE_PATH } from "@/server/downloads/build-host-bundle";
import type { HostDownloads } from "@/server/downloads/install-script";
import { log } from "@/server/core/log";

/**
 * Builds the host bundle if it is missing or stale and reads it and the
 * installer into memory: served as they were when this server started, so
 * that the installer's checksum always matches the bundle it downloads.
 */
export async function loadHostDownloads(root: string): Promise<HostDownloads> {
  const built = await ensureHostBundle(root);
  if (built) log.info(`host bundle built: ${HOST_BUNDLE_PATH}, ${Math.round(built.bytes / 1024)} KiB in ${built.ms} ms`);
  const bundle = readFileSync(path.join(root, HOST_BUNDLE_PATH));
  return {
    version: GPUDESK_VERSION,
    bundle,
    bundleSha256: createHash("sha256").update(bundle).digest("hex"),
    installTemplate: readFileSync(path.join(root, "server", "downloads", "install.sh"), "utf8"),
  };
}
