import { NextResponse } from "next/server";
import { replacePartSchema, bookingIdSchema } from "@/lib/domain/booking-schema";
import { requireUser } from "@/server/auth/guard";
import { apiHandler, readJson } from "@/server/http/api-handler";
import { liveGpuSource } from "@/server/runtime/live-source";
import { replacePart } from "@/server/bookings/commands/replace-part";

export const dynamic = "force-dynamic";

/** Moves a node of a booking across nodes to `host` (default: the spare gpudesk offers): the booking with every node's new launch lines. */
export const POST = apiHandler(async (request, { params }: { params: Promise<{ id: string }> }) => {
  const { user } = await requireUser(request);
  const id = bookingIdSchema.parse((await params).id);
  const input = replacePartSchema.parse(await readJson(request));
  return NextResponse.json(await replacePart(user, id, input.host, { fleet: liveGpuSource() }));
});
