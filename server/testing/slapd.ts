import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { Client } from "ldapts";

/**
 * A real OpenLDAP server for tests: Debian's slapd (`apt-get install slapd`,
 * .ci/run installs it), started with a configuration of its own in a
 * temporary directory on a port the caller picks, never the system's
 * instance. Holds a lab: people under ou=people (posixAccount, with uid and
 * a password), groups under ou=groups (groupOfNames) and a service account
 * that gpudesk searches with.
 */

export const SLAPD = "/usr/sbin/slapd";
export const LAB_BASE_DN = "dc=lab,dc=example";
export const LAB_PEOPLE_DN = `ou=people,${LAB_BASE_DN}`;
export const LAB_GROUPS_DN = `ou=groups,${LAB_BASE_DN}`;
export const LAB_SERVICE_DN = `cn=gpudesk-svc,${LAB_BASE_DN}`;
export const LAB_SERVICE_PASSWORD = "service-password-for-tests";
const ROOT_DN = `cn=admin,${LAB_BASE_DN}`;
const ROOT_PASSWORD = "root-password-for-tests";

export interface LabPerson {
  uid: string;
  cn: string;
  password: string;
  /** Short names of groups under ou=groups. */
  groups: string[];
  /** The filter in `env` also finds a person by `NAME@lab.example`, so that a sign-in name can differ from the uid (the Unix login). */
  mail?: string;
}

export interface Slapd {
  url: string;
  port: number;
  /** The gpudesk environment that points at this directory. */
  env: Record<string, string>;
  stop: () => Promise<void>;
}

export function slapdInstalled(): boolean {
  return existsSync(SLAPD);
}

/** {SSHA} as slappasswd writes it. */
function ssha(password: string): string {
  const salt = randomBytes(8);
  const digest = createHash("sha1").update(password).update(salt).digest();
  return `{SSHA}${Buffer.concat([digest, salt]).toString("base64")}`;
}

/**
 * A test CA and a certificate for 127.0.0.1 signed by it (openssl), for a
 * slapd that speaks TLS: the CA file is what gpudesk's GPUDESK_LDAP_CA_FILE trusts.
 */
function makeCertificates(dir: string): { ca: string; cert: string; key: string } {
  const file = (name: string) => path.join(dir, name);
  const run = (args: string[]) => {
    const result = spawnSync("openssl", args, { encoding: "utf8", cwd: dir });
    if (result.status !== 0) throw new Error(`openssl ${args[0]} failed: ${result.stderr}`);
  };
  writeFileSync(file("ext.cnf"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
  run(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=gpudesk test CA"]);
  run(["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1"]);
  run(["x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "ext.cnf"]);
  return { ca: file("ca.pem"), cert: file("server.pem"), key: file("server.key") };
}

/** With `tls`: slapd offers StartTLS and refuses every operation on a connection that has not upgraded. */
function config(dir: string, tls?: { ca: string; cert: string; key: string }): string {
  const tlsLines = tls ? `TLSCACertificateFile ${tls.ca}\nTLSCertificateFile ${tls.cert}\nTLSCertificateKeyFile ${tls.key}\nsecurity tls=1\n` : "";
  return `${tlsLines}include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
include /etc/ldap/schema/nis.schema
modulepath /usr/lib/ldap
moduleload back_mdb
pidfile ${dir}/slapd.pid
database mdb
maxsize 10485760
suffix "${LAB_BASE_DN}"
rootdn "${ROOT_DN}"
rootpw ${ssha(ROOT_PASSWORD)}
directory ${dir}/data
access to attrs=userPassword by self write by anonymous auth by * none
access to * by dn.exact="${LAB_SERVICE_DN}" read by self read by * none
`;
}

/** A client as the root DN, over StartTLS when `ca` is given. */
async function rootClient(url: string, ca?: string): Promise<Client> {
  const client = new Client({ url, connectTimeout: 1000, timeout: 2000 });
  if (ca) await client.startTLS({ ca: readFileSync(ca) });
  await client.bind(ROOT_DN, ROOT_PASSWORD);
  return client;
}

async function waitForBind(url: string, child: ChildProcess, output: () => string, ca?: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`slapd exited with ${child.exitCode}:\n${output()}`);
    let client: Client | undefined;
    try {
      client = await rootClient(url, ca);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    } finally {
      await client?.unbind().catch(() => undefined);
    }
  }
  throw new Error(`slapd did not answer on ${url}:\n${output()}`);
}

/** A port nobody listens on now (the kernel's pick); slapd cannot be told to take port 0 itself. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

export interface SlapdOptions {
  /** 0 (the default): a free port. */
  port?: number;
  /** StartTLS with a test CA, required for every operation; `env` then names the CA file and GPUDESK_LDAP_STARTTLS=1. */
  tls?: boolean;
}

/**
 * Starts slapd on 127.0.0.1 with the lab's people and groups; port 0 (the
 * default) takes a free one, again on another when another program took it
 * between the probe and slapd's bind, so that parallel runs never collide.
 */
export async function startSlapd(people: LabPerson[], options: SlapdOptions = {}): Promise<Slapd> {
  if (options.port) return startSlapdOn(options.port, people, options.tls === true);
  for (let attempt = 1; ; attempt++) {
    try {
      return await startSlapdOn(await freePort(), people, options.tls === true);
    } catch (error) {
      if (attempt >= 5) throw error;
    }
  }
}

async function startSlapdOn(port: number, people: LabPerson[], withTls: boolean): Promise<Slapd> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gpudesk-slapd-"));
  mkdirSync(path.join(dir, "data"));
  const tls = withTls ? makeCertificates(dir) : undefined;
  writeFileSync(path.join(dir, "slapd.conf"), config(dir, tls));
  // -u: check the configuration without opening the (not yet created) database.
  const check = spawnSync(SLAPD, ["-T", "test", "-u", "-f", path.join(dir, "slapd.conf")], { encoding: "utf8" });
  if (check.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`slapd rejects the test configuration: ${check.stderr}`);
  }
  const url = `ldap://127.0.0.1:${port}`;
  let output = "";
  // -d 0: stay in the foreground (a child we can stop) without debug output.
  const child = spawn(SLAPD, ["-d", "0", "-f", path.join(dir, "slapd.conf"), "-h", `${url}/`], { stdio: ["ignore", "pipe", "pipe"] });
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForBind(url, child, () => output, tls?.ca);
    await seed(url, people, tls?.ca);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url,
    port,
    stop,
    env: {
      GPUDESK_LDAP_URL: url,
      GPUDESK_LDAP_BIND_DN: LAB_SERVICE_DN,
      GPUDESK_LDAP_BIND_PASSWORD: LAB_SERVICE_PASSWORD,
      GPUDESK_LDAP_BASE_DN: LAB_PEOPLE_DN,
      GPUDESK_LDAP_USER_FILTER: "(|(uid={username})(mail={username}@lab.example))",
      GPUDESK_LDAP_GROUP_BASE_DN: LAB_GROUPS_DN,
      ...(tls ? { GPUDESK_LDAP_CA_FILE: tls.ca, GPUDESK_LDAP_STARTTLS: "1" } : {}),
    },
  };
}

async function seed(url: string, people: LabPerson[], ca?: string): Promise<void> {
  const admin = await rootClient(url, ca);
  try {
    await admin.add(LAB_BASE_DN, { objectClass: ["dcObject", "organization"], dc: "lab", o: "Lab" });
    await admin.add(LAB_SERVICE_DN, { objectClass: ["organizationalRole", "simpleSecurityObject"], cn: "gpudesk-svc", userPassword: ssha(LAB_SERVICE_PASSWORD) });
    await admin.add(LAB_PEOPLE_DN, { objectClass: "organizationalUnit", ou: "people" });
    await admin.add(LAB_GROUPS_DN, { objectClass: "organizationalUnit", ou: "groups" });
    let uidNumber = 20_000;
    for (const person of people) {
      uidNumber += 1;
      await admin.add(`uid=${person.uid},${LAB_PEOPLE_DN}`, {
        objectClass: ["inetOrgPerson", "posixAccount"],
        uid: person.uid,
        cn: person.cn,
        sn: person.cn.split(" ").pop() ?? person.cn,
        uidNumber: String(uidNumber),
        gidNumber: String(uidNumber),
        homeDirectory: `/home/${person.uid}`,
        userPassword: ssha(person.password),
        ...(person.mail ? { mail: person.mail } : {}),
      });
    }
    const groups = [...new Set(people.flatMap((person) => person.groups))];
    for (const group of groups) {
      const members = people.filter((person) => person.groups.includes(group)).map((person) => `uid=${person.uid},${LAB_PEOPLE_DN}`);
      await admin.add(`cn=${group},${LAB_GROUPS_DN}`, { objectClass: "groupOfNames", cn: group, member: members });
    }
  } finally {
    await admin.unbind();
  }
}
