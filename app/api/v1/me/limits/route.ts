import { NextResponse } from "next/server";
import { z } from "zod";
import { text } from "@/lib/domain/plain-text";
import { requireUser } from "@/server/auth/guard";
import { apiHandler } from "@/server/http/api-handler";
import { getRoom } from "@/server/bookings/rules/room";

export const dynamic = "force-dynamic";

const query = z.object({ team: text().trim().min(1).max(64).optional() });

/** The limits that apply to the asker (for `?team=`, else their accounting team) and the room left now. */
export const GET = apiHandler(async (request) => {
  const { user } = await requireUser(request);
  const { team } = query.parse(Object.fromEntries(new URL(request.url).searchParams));
  return NextResponse.json(await getRoom(user, team));
});
