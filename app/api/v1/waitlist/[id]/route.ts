import { NextResponse } from "next/server";
import { waitlistIdSchema } from "@/lib/domain/waitlist-schema";
import { requireUser } from "@/server/auth/guard";
import { apiHandler } from "@/server/http/api-handler";
import { getWaitlistEntry, leaveWaitlist } from "@/server/waitlist/list-waitlist";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

/** One of my waiting requests: its place while it waits, its booking once granted. */
export const GET = apiHandler(async (request, { params }: Context) => {
  const { user } = await requireUser(request);
  return NextResponse.json(await getWaitlistEntry(user, waitlistIdSchema.parse((await params).id)));
});

/** Stops waiting. */
export const DELETE = apiHandler(async (request, { params }: Context) => {
  const { user } = await requireUser(request);
  return NextResponse.json(await leaveWaitlist(user, waitlistIdSchema.parse((await params).id)));
});
