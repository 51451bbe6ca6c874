import { NextResponse } from "next/server";
import { bookingCancelSchema, bookingIdSchema } from "@/lib/domain/booking-schema";
import { requireAdmin } from "@/server/auth/guard";
import { apiHandler, readJson } from "@/server/http/api-handler";
import { cancelBooking } from "@/server/bookings/commands/end-booking";

export const dynamic = "force-dynamic";

/** An admin ends someone's booking: `{ "reason": "…" }`, which the booker sees. */
export const POST = apiHandler(async (request, { params }: { params: Promise<{ id: string }> }) => {
  const { user } = await requireAdmin(request);
  const id = bookingIdSchema.parse((await params).id);
  const { reason } = bookingCancelSchema.parse(await readJson(request));
  return NextResponse.json(await cancelBooking(user, id, reason));
});
