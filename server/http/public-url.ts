import { requestOrigin } from "@/server/auth/request-origin";
import type { Env } from "@/server/core/env";

/**
 * The address GPU hosts and people use to reach this server:
 * GPUDESK_PUBLIC_URL when set, else the origin the request was sent to (its
 * Host header, and the scheme the custom server stamped, which honours
 * X-Forwarded-Proto only behind a trusted proxy). It ends up in the installer
 * that runs as root, so a malformed Host is not used.
 */
export function publicServerUrl(headers: Headers, config: Pick<Env, "GPUDESK_PUBLIC_URL" | "PORT">): string {
  if (config.GPUDESK_PUBLIC_URL) return config.GPUDESK_PUBLIC_URL.replace(/\/+$/, "");
  return requestOrigin(headers) ?? `http://localhost:${config.PORT}`;
}
