import { NextResponse } from "next/server";
import { bookingIdSchema } from "@/lib/domain/booking-schema";
import { requireUser } from "@/server/auth/guard";
import { apiHandler } from "@/server/http/api-handler";
import { keepBooking } from "@/server/bookings/commands/keep-booking";

export const dynamic = "force-dynamic";

/** "Keep": starts the booking's idle clock again (at most the policy's idleKeepsPerBooking times; audited). */
export const POST = apiHandler(async (request, { params }: { params: Promise<{ id: string }> }) => {
  const { user } = await requireUser(request);
  const id = bookingIdSchema.parse((await params).id);
  return NextResponse.json(await keepBooking(user, id));
});
