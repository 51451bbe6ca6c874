import { NextResponse } from "next/server";
import { reservationIdSchema } from "@/lib/domain/reservation-schema";
import { requireUser } from "@/server/auth/guard";
import { apiHandler } from "@/server/http/api-handler";
import { releaseReservation } from "@/server/bookings/commands/end-booking";

export const dynamic = "force-dynamic";

/** Gives the GPUs back now (a scheduled booking is withdrawn). */
export const POST = apiHandler(async (request, { params }: { params: Promise<{ id: string }> }) => {
  const { user } = await requireUser(request);
  const id = reservationIdSchema.parse((await params).id);
  return NextResponse.json(await releaseReservation(user, id));
});
