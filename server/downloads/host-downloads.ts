import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { GPUDESK_VERSION } from "@/lib/version";
import { ensureHostBundle, HOST_BUNDLE_PATH } from "@/server/downloads/build-host-bundle";
import { log } from "@/server/log";

/** What GPU hosts download from this server: the host bundle and the installer that fetches it. */
export interface HostDownloads {
  version: string;
  bundle: Buffer;
  bundleSha256: string;
  /** server/downloads/install.sh with its placeholders; see renderInstallScript. */
  installTemplate: string;
}

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

/** The installer for hosts of this server: its address, version and the bundle's checksum filled in. */
export function renderInstallScript(downloads: HostDownloads, serverUrl: string): string {
  // The values go between single quotes in the script: an address is a URL (no quote in it), checked again by the script.
  const quoted = (value: string) => value.replaceAll("'", "");
  return downloads.installTemplate
    .replace("__GPUDESK_SERVER_URL__", quoted(serverUrl))
    .replace("__GPUDESK_VERSION__", quoted(downloads.version))
    .replace("__GPUDESK_BUNDLE_SHA256__", downloads.bundleSha256);
}
