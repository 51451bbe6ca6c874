import { describe, expect, it } from "vitest";
import { answerWithDeprecatedNames, withDeprecatedNames } from "@/server/http/deprecated-names";

describe("the REST answer's deprecated names", () => {
  it("puts each renamed field under its old name too, however deep, and a process's runner also as its person", () => {
    const alice = { id: "u1", username: "alice", name: "Alice" };
    const answer = {
      reservations: [{ id: "r1", bookedBy: alice }],
      gpuStates: { "GPU-1": { state: "conflict", bookedBy: alice, processes: [{ pid: 7, runner: null, login: "bob" }] } },
      gpuBookings: { "GPU-1": { bookedBy: alice, bookedByName: "Alice", until: "2026-12-05T12:00:00Z" } },
    };
    expect(withDeprecatedNames(answer)).toEqual({
      reservations: [{ id: "r1", bookedBy: alice, holder: alice }],
      gpuStates: { "GPU-1": { state: "conflict", bookedBy: alice, holder: alice, processes: [{ pid: 7, runner: null, person: null, login: "bob" }] } },
      gpuBookings: { "GPU-1": { bookedBy: alice, holder: alice, bookedByName: "Alice", holderName: "Alice", until: "2026-12-05T12:00:00Z" } },
    });
  });

  it("leaves an answer without those names, and what is not JSON, as it is", async () => {
    const csv = new Response("a,b\n1,2\n", { headers: { "content-type": "text/csv" } });
    expect(await (await answerWithDeprecatedNames(csv)).text()).toBe("a,b\n1,2\n");
    const plain = Response.json({ runnerUp: 1, note: "no names" }, { status: 201, headers: { Location: "/x" } });
    const kept = await answerWithDeprecatedNames(plain);
    expect([kept.status, kept.headers.get("location"), await kept.json()]).toEqual([201, "/x", { runnerUp: 1, note: "no names" }]);
  });
});
