import { describe, expect, it } from "vitest";
import { nameInitials, personInitials, personName, personNames, personWithUsername } from "@/lib/format/person-name";

const bobMember = { username: "bob", name: "Bob Member" };
const bobSmith = { username: "bsmith", name: "Bob Member" };
const alice = { username: "alice", name: "Alice Liddell" };

describe("personName", () => {
  it("shows the display name when nobody else could be confused with the person", () => {
    expect(personName(bobMember)).toBe("Bob Member");
    expect(personName(bobMember, [bobMember, alice])).toBe("Bob Member");
  });

  it("adds the username when someone else shown has the same display name (any case or spacing)", () => {
    expect(personName(bobMember, [bobMember, bobSmith])).toBe("Bob Member (bob)");
    expect(personName(bobSmith, [bobMember, { username: "bsmith", name: "bob member " }])).toBe("Bob Member (bsmith)");
  });

  it("adds the username when another person's username reads like the display name", () => {
    const named = { username: "carol2", name: "carol" };
    expect(personName(named, [named, { username: "carol", name: "Carol King" }])).toBe("carol (carol2)");
  });

  it("falls back to the username for a person without a display name, without repeating it", () => {
    expect(personName({ username: "dave", name: "" })).toBe("dave");
    expect(personName({ username: "dave", name: null })).toBe("dave");
    expect(personName({ username: "dave", name: "dave" }, [{ username: "dave2", name: "dave" }])).toBe("dave");
  });

  it("names a whole list at once", () => {
    const names = personNames([bobMember, bobSmith, alice]);
    expect([...names.values()]).toEqual(["Bob Member (bob)", "Bob Member (bsmith)", "Alice Liddell"]);
  });
});

describe("personWithUsername", () => {
  it("always names the account, once", () => {
    expect(personWithUsername(bobMember)).toBe("Bob Member (bob)");
    expect(personWithUsername({ username: "dave", name: "Dave" })).toBe("Dave");
    expect(personWithUsername({ username: "dave", name: null })).toBe("dave");
  });
});

describe("personInitials", () => {
  it("shortens a name to its initials and a username to its first letters", () => {
    expect(personInitials(alice)).toBe("AL");
    expect(personInitials({ username: "dave", name: null })).toBe("DA");
    expect(personInitials({ username: "x", name: "Jean-Paul de la Fontaine" })).toBe("JF");
    expect(nameInitials("Ada Lovelace")).toBe("AL");
    expect(nameInitials("  ")).toBe("");
  });

  it("says the first name where two people of the page share initials", () => {
    const alan = { username: "alan", name: "Alan Lee" };
    expect(personInitials(alice, [alice, alan])).toBe("Alice");
    expect(personInitials(alan, [alice, alan])).toBe("Alan");
    expect(personInitials(alice, [alice, bobMember])).toBe("AL");
  });
});
