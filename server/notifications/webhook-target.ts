import { lookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import net from "node:net";

/**
 * Where a webhook may connect. A personal webhook is set by any member, so
 * without this the server would call, for them, whatever only it can reach:
 * itself, the cloud metadata service, the lab's private network.
 */
const NOT_PUBLIC = new net.BlockList();
for (const [address, prefix] of [
  ["0.0.0.0", 8], // "this network", unspecified
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15], // benchmarking
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const) {
  NOT_PUBLIC.addSubnet(address, prefix, "ipv4");
}
for (const [address, prefix] of [
  ["::", 128], // unspecified
  ["::1", 128],
  ["64:ff9b::", 96], // NAT64: IPv4 inside, which may be private
  ["64:ff9b:1::", 48],
  ["2001::", 32], // Teredo
  ["2002::", 16], // 6to4
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
] as const) {
  NOT_PUBLIC.addSubnet(address, prefix, "ipv6");
}

function familyOf(address: string): "ipv4" | "ipv6" | null {
  const version = net.isIP(address);
  return version === 4 ? "ipv4" : version === 6 ? "ipv6" : null;
}

/** Whether an address is on the public internet (IPv4-mapped IPv6 counts as its IPv4). */
export function isPublicAddress(address: string): boolean {
  const family = familyOf(address);
  return family !== null && !NOT_PUBLIC.check(address, family);
}

/** The private addresses an admin lets personal webhooks reach (GPUDESK_WEBHOOK_PRIVATE_TARGETS). */
export function privateTargetAllowList(cidrs: readonly { address: string; prefix: number }[]): (address: string) => boolean {
  const allowed = new net.BlockList();
  for (const { address, prefix } of cidrs) allowed.addSubnet(address, prefix, familyOf(address) ?? "ipv4");
  return (address) => {
    const family = familyOf(address);
    return family !== null && allowed.check(address, family);
  };
}

/** A target the rules refuse; the message (said of the URL: "points to …") is gpudesk's own and safe to show to the webhook's owner. */
export class WebhookTargetRefused extends Error {}

export interface ResolvedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;
const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

/**
 * Resolves a webhook URL and checks every address it names: each must be
 * public, or allowed (`allowPrivate`). Returns the address to connect to, so
 * that the connection goes where the check looked (a DNS answer that changes
 * between check and connect cannot redirect it).
 */
export async function resolveTarget(
  rawUrl: string,
  allowPrivate: (address: string) => boolean,
  resolve: Resolver = systemResolver,
): Promise<ResolvedTarget> {
  const url = new URL(rawUrl);
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new WebhookTargetRefused("is not an http or https URL");
  const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const addresses = net.isIP(hostname) ? [{ address: hostname, family: net.isIP(hostname) }] : await resolve(hostname);
  if (addresses.length === 0) throw new WebhookTargetRefused("names a host without an address");
  for (const { address } of addresses) {
    if (!isPublicAddress(address) && !allowPrivate(address)) {
      throw new WebhookTargetRefused("points to a loopback, private, link-local or unspecified address, which personal webhooks may not reach");
    }
  }
  const [first] = addresses;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}

/**
 * POSTs a body to a resolved target, connecting to its checked address while
 * keeping the URL's host name for the Host header and TLS. Redirects are not
 * followed (one could lead anywhere): a 3xx is an answer like any other.
 */
export function postToTarget(target: ResolvedTarget, body: string, timeoutMs: number): Promise<number> {
  const client = target.url.protocol === "https:" ? https : http;
  return new Promise((resolvePost, reject) => {
    const request = client.request(
      target.url,
      {
        method: "POST",
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), "user-agent": "gpudesk-webhook/1" },
        signal: AbortSignal.timeout(timeoutMs),
        lookup: ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
          if (options?.all) callback(null, [{ address: target.address, family: target.family }]);
          else callback(null, target.address, target.family);
        }) as unknown as net.LookupFunction,
      },
      (response) => {
        response.resume();
        response.on("error", () => undefined);
        resolvePost(response.statusCode ?? 0);
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}
