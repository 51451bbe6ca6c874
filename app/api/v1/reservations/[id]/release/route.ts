import { NextResponse } from "next/server";
import { bookingIdSchema } from "@/lib/domain/booking-schema";
import { requireUser } from "@/server/auth/guard";
import { apiHandler } from "@/server/http/api-handler";
import { releaseBooking } from "@/server/bookings/commands/end-booking";

export const dynamic = "force-dynamic";

/** Gives the GPUs back now (a scheduled booking is withdrawn). */
export const POST = apiHandler(async (request, { params }: { params: Promise<{ id: string }> }) => {
  const { user } = await requireUser(request);
  const id = bookingIdSchema.parse((await params).id);
  return NextResponse.json(await releaseBooking(user, id));
});
