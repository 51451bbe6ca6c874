import { readFileSync } from "node:fs";
import { Client, InvalidCredentialsError, type Entry } from "ldapts";
import type { Env } from "@/server/core/env";

/** What the directory says of a username and password. */
export type DirectoryCheck =
  /** `subject`: the entry's stable id (entryUUID, Active Directory's objectGUID), else its DN. */
  | { kind: "ok"; dn: string; subject: string; name?: string; unixLogin?: string; groups: string[] }
  /** No such person in the directory: gpudesk's own password may still apply. */
  | { kind: "unknown" }
  | { kind: "wrong_password" }
  /** The directory cannot answer (down, misconfigured, ambiguous): nothing was decided. */
  | { kind: "unavailable"; reason: string };

export type LdapConfig = Pick<
  Env,
  | "GPUDESK_LDAP_URL"
  | "GPUDESK_LDAP_BIND_DN"
  | "GPUDESK_LDAP_BIND_PASSWORD"
  | "GPUDESK_LDAP_BASE_DN"
  | "GPUDESK_LDAP_USER_FILTER"
  | "GPUDESK_LDAP_UNIX_LOGIN_ATTRIBUTE"
  | "GPUDESK_LDAP_NAME_ATTRIBUTE"
  | "GPUDESK_LDAP_GROUP_BASE_DN"
  | "GPUDESK_LDAP_GROUP_FILTER"
  | "GPUDESK_LDAP_CA_FILE"
  | "GPUDESK_LDAP_STARTTLS"
>;

const TIMEOUT_MS = 10_000;

/** A value for an LDAP filter (RFC 4515): the characters that would change the filter, escaped. */
export function escapeFilterValue(value: string): string {
  return value.replace(/[\\*()\0]/g, (char) => `\\${char.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

function fillFilter(template: string, values: Record<string, string>): string {
  return template.replace(/\{(username|dn)\}/g, (_, key: string) => escapeFilterValue(values[key] ?? ""));
}

function firstText(entry: Entry, attribute: string): string | undefined {
  const value = entry[attribute] ?? Object.entries(entry).find(([key]) => key.toLowerCase() === attribute.toLowerCase())?.[1];
  const first = Array.isArray(value) ? value[0] : value;
  if (first === undefined) return undefined;
  return typeof first === "string" ? first : first.toString("utf8");
}

function allText(entry: Entry, attribute: string): string[] {
  const value = Object.entries(entry).find(([key]) => key.toLowerCase() === attribute.toLowerCase())?.[1];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map((item) => (typeof item === "string" ? item : item.toString("utf8")));
}

/** What binds the entry to a gpudesk account: an id that survives a rename where the directory has one. */
function entrySubject(entry: Entry): string {
  const uuid = firstText(entry, "entryUUID");
  if (uuid) return `entryUUID:${uuid.toLowerCase()}`;
  const guid = entry.objectGUID;
  if (Buffer.isBuffer(guid)) return `objectGUID:${guid.toString("hex")}`;
  if (Array.isArray(guid) && Buffer.isBuffer(guid[0])) return `objectGUID:${guid[0].toString("hex")}`;
  return `dn:${entry.dn.toLowerCase()}`;
}

/**
 * A connection to the directory: TLS from the start with ldaps://, or with
 * GPUDESK_LDAP_STARTTLS an ldap:// connection upgraded before anything else
 * is sent, so that no password crosses the network in clear. A directory
 * that cannot upgrade (or whose certificate the CA does not vouch for)
 * fails the check: nothing is sent without TLS.
 */
async function client(config: LdapConfig): Promise<Client> {
  const url = config.GPUDESK_LDAP_URL ?? "";
  const tlsOptions = config.GPUDESK_LDAP_CA_FILE ? { ca: readFileSync(config.GPUDESK_LDAP_CA_FILE) } : undefined;
  // The TLS options go to ldaps:// at connect, or to the upgrade: never both.
  const connection = new Client({ url, timeout: TIMEOUT_MS, connectTimeout: TIMEOUT_MS, tlsOptions: config.GPUDESK_LDAP_STARTTLS ? undefined : tlsOptions });
  if (config.GPUDESK_LDAP_STARTTLS) {
    try {
      await connection.startTLS(tlsOptions ?? {});
    } catch (error) {
      await connection.unbind().catch(() => undefined);
      throw error;
    }
  }
  return connection;
}

/**
 * Checks a username and password against the directory as LDAP clients do:
 * the service account (or an anonymous bind) searches the person's entry,
 * then a bind as that entry with the password decides. An empty password
 * never reaches the directory: LDAP takes a bind with a DN and no password
 * as an anonymous bind, which succeeds.
 */
export async function checkDirectoryPassword(username: string, password: string, config: LdapConfig): Promise<DirectoryCheck> {
  if (!config.GPUDESK_LDAP_URL || !config.GPUDESK_LDAP_BASE_DN) return { kind: "unavailable", reason: "LDAP is not configured" };
  if (password.length === 0 || password.includes("\0")) return { kind: "wrong_password" };
  let service: Client;
  try {
    service = await client(config);
  } catch (error) {
    return { kind: "unavailable", reason: `no TLS connection to the directory: ${error instanceof Error ? error.message : String(error)}` };
  }
  try {
    if (config.GPUDESK_LDAP_BIND_DN) await service.bind(config.GPUDESK_LDAP_BIND_DN, config.GPUDESK_LDAP_BIND_PASSWORD ?? "");
    const nameAttribute = config.GPUDESK_LDAP_NAME_ATTRIBUTE;
    const unixAttribute = config.GPUDESK_LDAP_UNIX_LOGIN_ATTRIBUTE;
    const { searchEntries } = await service.search(config.GPUDESK_LDAP_BASE_DN, {
      scope: "sub",
      filter: fillFilter(config.GPUDESK_LDAP_USER_FILTER, { username }),
      attributes: [nameAttribute, unixAttribute, "memberOf", "entryUUID", "objectGUID"],
      explicitBufferAttributes: ["objectGUID"],
      sizeLimit: 2,
    });
    if (searchEntries.length === 0) return { kind: "unknown" };
    if (searchEntries.length > 1) return { kind: "unavailable", reason: `the user filter matches more than one entry for ${username}` };
    const entry = searchEntries[0];

    const person = await client(config);
    try {
      await person.bind(entry.dn, password);
    } catch (error) {
      if (error instanceof InvalidCredentialsError) return { kind: "wrong_password" };
      throw error;
    } finally {
      await person.unbind().catch(() => undefined);
    }

    let groups = allText(entry, "memberOf");
    if (config.GPUDESK_LDAP_GROUP_BASE_DN) {
      const found = await service.search(config.GPUDESK_LDAP_GROUP_BASE_DN, {
        scope: "sub",
        filter: fillFilter(config.GPUDESK_LDAP_GROUP_FILTER, { username, dn: entry.dn }),
        attributes: ["cn"],
        sizeLimit: 1000,
      });
      groups = [...groups, ...found.searchEntries.map((group) => group.dn)];
    }
    return { kind: "ok", dn: entry.dn, subject: entrySubject(entry), name: firstText(entry, nameAttribute), unixLogin: firstText(entry, unixAttribute), groups };
  } catch (error) {
    return { kind: "unavailable", reason: error instanceof Error ? error.message : String(error) };
  } finally {
    await service.unbind().catch(() => undefined);
  }
}
