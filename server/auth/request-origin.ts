/**
 * What the custom server (server/index.ts) learned about a request before
 * Next saw it. It overwrites these headers on every request, so a client
 * cannot set them; code behind it reads them instead of X-Forwarded-*.
 */
export const CLIENT_IP_HEADER = "x-gpudesk-client-ip";
export const CLIENT_PROTO_HEADER = "x-gpudesk-proto";

type HeaderBag = Record<string, string | string[] | undefined>;

function lastListItem(value: string | string[] | undefined): string {
  const joined = Array.isArray(value) ? value.join(",") : (value ?? "");
  const items = joined.split(",").map((item) => item.trim()).filter(Boolean);
  return items.at(-1) ?? "";
}

/**
 * The client's address and scheme. Behind a reverse proxy (trustProxy) the
 * proxy appends the address it saw to X-Forwarded-For, so the right-most
 * entry is the only one no client wrote; the left-most is whatever the
 * client sent. Without trustProxy the forwarded headers are ignored.
 */
export function describeClient(
  headers: HeaderBag,
  socket: { remoteAddress?: string; encrypted?: boolean },
  trustProxy: boolean,
): { ip: string; proto: "http" | "https" } {
  const forwardedFor = trustProxy ? lastListItem(headers["x-forwarded-for"]) : "";
  const forwardedProto = trustProxy ? lastListItem(headers["x-forwarded-proto"]).toLowerCase() : "";
  const proto = forwardedProto === "https" || forwardedProto === "http" ? forwardedProto : socket.encrypted ? "https" : "http";
  return { ip: forwardedFor || socket.remoteAddress || "unknown", proto };
}

/** Sets the client headers on an incoming request, replacing anything the client sent under those names. */
export function stampClientHeaders(
  req: { headers: HeaderBag; socket: { remoteAddress?: string; encrypted?: boolean } },
  trustProxy: boolean,
): void {
  const client = describeClient(req.headers, req.socket, trustProxy);
  req.headers[CLIENT_IP_HEADER] = client.ip;
  req.headers[CLIENT_PROTO_HEADER] = client.proto;
}

/** A Host header value that is a plain host[:port] (no path, user info or spaces). */
const HOST_PATTERN = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/i;

/**
 * The origin a browser on this request sees (`http://gpudesk.lab:3000`),
 * from the Host header and the scheme the custom server stamped; null when
 * the Host header is missing or malformed.
 */
export function requestOrigin(headers: Headers): string | null {
  const host = headers.get("host");
  if (!host || !HOST_PATTERN.test(host)) return null;
  const proto = headers.get(CLIENT_PROTO_HEADER) === "https" ? "https" : "http";
  return `${proto}://${host.toLowerCase()}`;
}
