import { expect, test } from "@playwright/test";
import { admin, createUser, gpudesk, tokenFor } from "./helpers";

/**
 * The double-booking guarantee against the real server over HTTP: many
 * people ask for the same GPUs at the same moment; one gets them.
 */


test("24 simultaneous bookings of the same GPUs: exactly one 201, the rest 409 naming the winner", async ({ request }) => {
  const people = await Promise.all(Array.from({ length: 4 }, () => createUser("racer")));
  const tokens = await Promise.all(people.map((person) => tokenFor(person)));
  const adminToken = (await tokenFor(await admin()));
  const startsAt = new Date(Date.now() + 2 * 3600_000).toISOString();
  const body = { host: "sim-4090-a", gpus: [0, 1], startsAt, durationMinutes: 60, purpose: "race" };

  const responses = await Promise.all(
    Array.from({ length: 24 }, (_, i) =>
      request.post("/api/v1/reservations", { data: body, headers: { authorization: `Bearer ${tokens[i % tokens.length]}` } }),
    ),
  );
  const statuses = responses.map((response) => response.status());
  expect(statuses.filter((status) => status === 201)).toHaveLength(1);
  expect(statuses.filter((status) => status === 409)).toHaveLength(23);

  const winner = await responses[statuses.indexOf(201)].json();
  expect(winner.launch.cudaVisibleDevices).toBe("0,1");
  const loser = await responses[statuses.indexOf(409)].json();
  expect(loser.error).toMatchObject({ code: "conflict", conflicts: [{ reservationId: winner.id }, { reservationId: winner.id }] });
  expect(loser.error.message).toContain(`is booked by ${winner.bookedBy.username}`);

  // The database holds one booking of those GPUs at that time, no overlap.
  const all = await request.get("/api/v1/reservations?all=1&state=current", { headers: { authorization: `Bearer ${adminToken}` } });
  const onThose = (await all.json()).reservations.filter(
    (view: { host: { name: string }; gpus: { index: number }[]; startsAt: string }) =>
      view.host.name === "sim-4090-a" && view.gpus.some((gpu) => gpu.index <= 1) && view.startsAt === startsAt,
  );
  expect(onThose).toHaveLength(1);
  expect(onThose[0].id).toBe(winner.id);

  // Back to back is fine: the next hour is free for another person.
  const next = await request.post("/api/v1/reservations", {
    data: { ...body, startsAt: winner.endsAt },
    headers: { authorization: `Bearer ${tokens[(statuses.indexOf(201) + 1) % tokens.length]}` },
  });
  expect(next.status()).toBe(201);
});
