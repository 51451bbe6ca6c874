// Single sign-on plugged into sign-in, as the server does at start (server/main/sign-in.ts).
import "@/server/testing/plug-sign-in";
import { describe, expect, it } from "vitest";
import { groupNames, mapGroups } from "@/server/sso/groups";

const rules = {
  adminGroups: ["gpu-admins"],
  teamGroups: [
    { group: "vision-lab", team: "vision" },
    { group: "cn=nlp,ou=groups,dc=lab,dc=example", team: "nlp" },
  ],
};

describe("groupNames", () => {
  it("an LDAP DN answers to its first RDN's value, a Keycloak path to its last segment", () => {
    expect(groupNames("cn=GPU-Admins,ou=groups,dc=lab,dc=example")).toEqual(["cn=gpu-admins,ou=groups,dc=lab,dc=example", "gpu-admins"]);
    expect(groupNames("/lab/vision-lab")).toEqual(["/lab/vision-lab", "vision-lab"]);
    expect(groupNames("plain")).toEqual(["plain"]);
    expect(groupNames("cn=a\\,b,dc=x")).toContain("a,b");
    expect(groupNames("  ")).toEqual([]);
  });
});

describe("mapGroups", () => {
  it("a member of an admin group is an admin, anyone else a member", () => {
    expect(mapGroups(["cn=gpu-admins,ou=groups,dc=lab"], rules).role).toBe("admin");
    expect(mapGroups(["/gpu-admins"], rules).role).toBe("admin");
    expect(mapGroups(["students"], rules).role).toBe("member");
    expect(mapGroups([], rules).role).toBe("member");
  });

  it("without admin groups configured the directory decides no role", () => {
    expect(mapGroups(["gpu-admins"], { adminGroups: [], teamGroups: [] }).role).toBeNull();
  });

  it("teams by group, each once; a configured DN matches only that DN", () => {
    expect(mapGroups(["/vision-lab", "vision-lab", "cn=nlp,ou=groups,dc=lab,dc=example"], rules).teams).toEqual(["vision", "nlp"]);
    expect(mapGroups(["cn=nlp,ou=other,dc=lab,dc=example"], rules).teams).toEqual([]);
  });
});
