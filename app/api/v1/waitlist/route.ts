import { NextResponse } from "next/server";
import { multiNodeWaitRequestSchema, waitRequestSchema } from "@/lib/domain/waitlist-schema";
import { isMultiNodeBody } from "@/lib/domain/booking-schema";
import { requireUser } from "@/server/auth/guard";
import { apiHandler, readJson } from "@/server/http/api-handler";
import { joinWaitlist, multiNodeWait } from "@/server/waitlist/join-waitlist";
import { getWaitlistEntry, listMyWaitlist, listWaitlist } from "@/server/waitlist/list-waitlist";

export const dynamic = "force-dynamic";

/** The queue in order of service, with estimated starts; `?mine=1`: the asker's waiting and recently granted requests. People only: a display token is refused (the queue names people and purposes). */
export const GET = apiHandler(async (request) => {
  const { user } = await requireUser(request);
  if (new URL(request.url).searchParams.get("mine") === "1") return NextResponse.json({ waiting: await listMyWaitlist(user) });
  return NextResponse.json({ waiting: await listWaitlist() });
});

/** Waits for "N GPUs", or across nodes for `nodes` × `gpusPerNode` (or `parts`), granted whole: 201 with the request and its place in the queue. */
export const POST = apiHandler(async (request) => {
  const { user } = await requireUser(request);
  const body = await readJson(request);
  const input = isMultiNodeBody(body) ? multiNodeWait(multiNodeWaitRequestSchema.parse(body)) : waitRequestSchema.parse(body);
  const entry = await joinWaitlist(user, input);
  return NextResponse.json(await getWaitlistEntry(user, entry.id), { status: 201, headers: { Location: `/api/v1/waitlist/${entry.id}` } });
});
