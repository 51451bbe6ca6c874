import { describe, expect, it } from "vitest";
import { draftFromHostRules, hostRulesErrors, hostRulesFromDraft } from "@/lib/domain/host-rules-draft";
import { limitsSchema } from "@/lib/domain/team-schema";

describe("host rules drafted in the limits form", () => {
  it("gives the API the same list it would take as JSON, and reads it back", () => {
    const draft = [
      { host: " vision-* ", windows: [{ days: [5, 1, 3], from: "08:00", to: "" }], timeZone: "Europe/Berlin" },
      { host: "*", windows: [], timeZone: "" },
    ];
    const rules = hostRulesFromDraft(draft);
    expect(rules).toEqual([{ host: "vision-*", windows: [{ days: [1, 3, 5], from: "08:00", to: "24:00" }], timeZone: "Europe/Berlin" }, { host: "*" }]);
    expect(limitsSchema.parse({ hosts: rules }).hosts).toEqual(rules);
    expect(draftFromHostRules(rules)).toEqual([
      { host: "vision-*", windows: [{ days: [1, 3, 5], from: "08:00", to: "" }], timeZone: "Europe/Berlin" },
      { host: "*", windows: [], timeZone: "" },
    ]);
  });

  it("keeps 'every host' apart from 'no host at all'", () => {
    expect(hostRulesFromDraft(null)).toBeNull();
    expect(hostRulesFromDraft([])).toEqual([]);
    expect(draftFromHostRules(null)).toBeNull();
  });

  it("names each wrong field by its place, as the server's field errors do", () => {
    const errors = hostRulesErrors([
      { host: "", windows: [], timeZone: "" },
      { host: "a100-*", windows: [{ days: [], from: "18:00", to: "08:00" }], timeZone: "Mars/Olympus" },
    ]);
    expect(errors).toEqual({
      "hosts.0.host": "Name a host",
      "hosts.1.windows.0.days": "Name at least one day",
      "hosts.1.windows.0.to": "The window must end after it starts",
      "hosts.1.timeZone": "Not a time zone, e.g. Europe/Berlin",
    });
    expect(hostRulesErrors([{ host: "a100-*", windows: [], timeZone: "" }])).toEqual({});
  });
});
