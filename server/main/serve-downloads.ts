import { env } from "@/server/core/env";
import { AppError } from "@/server/core/errors";
import { renderInstallScript, type HostDownloads } from "@/server/downloads/install-script";
import { publicServerUrl } from "@/server/http/public-url";
import { runtime } from "@/server/runtime/runtime";

function downloads(): HostDownloads {
  const loaded = runtime().downloads;
  if (!loaded) throw new AppError("not_found", "This server has no host bundle loaded");
  return loaded;
}

/** The SHA-256 of the host bundle this server serves (Admin > Hosts shows it); null where none is loaded. */
export function hostBundleChecksum(): string | null {
  try {
    return runtime().downloads?.bundleSha256 ?? null;
  } catch {
    return null;
  }
}

/**
 * GET /downloads/gpudesk.mjs: the host bundle of this server's version. No
 * sign-in: it holds no secret, and GPU hosts fetch it with curl.
 */
export function hostBundleResponse(): Response {
  const { bundle, version, bundleSha256 } = downloads();
  return new Response(new Uint8Array(bundle), {
    headers: {
      "content-type": "text/javascript; charset=utf-8",
      "content-disposition": 'attachment; filename="gpudesk.mjs"',
      "x-gpudesk-version": version,
      etag: `"${bundleSha256}"`,
      "cache-control": "no-cache",
    },
  });
}

/** GET /install.sh: the installer, with this server's public address and its bundle's checksum in it. */
export function installScriptResponse(request: Request): Response {
  const script = renderInstallScript(downloads(), publicServerUrl(request.headers, env()));
  return new Response(script, {
    headers: { "content-type": "text/x-shellscript; charset=utf-8", "cache-control": "no-store", "x-gpudesk-version": downloads().version },
  });
}
