import { NextResponse } from "next/server";
import { reservationIdSchema } from "@/lib/domain/reservation-schema";
import { requireUser } from "@/server/auth/guard";
import { apiHandler } from "@/server/http/api-handler";
import { keepReservation } from "@/server/bookings/commands/keep-booking";

export const dynamic = "force-dynamic";

/** "Keep": starts the booking's idle clock again (at most the policy's idleKeepsPerBooking times; audited). */
export const POST = apiHandler(async (request, { params }: { params: Promise<{ id: string }> }) => {
  const { user } = await requireUser(request);
  const id = reservationIdSchema.parse((await params).id);
  return NextResponse.json(await keepReservation(user, id));
});
