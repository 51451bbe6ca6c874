import { NextResponse } from "next/server";
import { bookingIdSchema } from "@/lib/domain/booking-schema";
import { requireUser } from "@/server/auth/guard";
import { apiHandler } from "@/server/http/api-handler";
import { liveGpuSource } from "@/server/runtime/live-source";
import { offerSpare } from "@/server/bookings/placement/spare-node";

export const dynamic = "force-dynamic";

/** The spare node gpudesk offers for a node of a booking across nodes (`{ spare: null }` when none is free for the rest of it). */
export const GET = apiHandler(async (request, { params }: { params: Promise<{ id: string }> }) => {
  const { user } = await requireUser(request);
  const id = bookingIdSchema.parse((await params).id);
  return NextResponse.json(await offerSpare(user, id, new Date(), { fleet: liveGpuSource() }));
});
