import { NextResponse } from "next/server";
import { reservationCancelSchema, reservationIdSchema } from "@/lib/domain/reservation-schema";
import { requireAdmin } from "@/server/auth/guard";
import { apiHandler, readJson } from "@/server/http/api-handler";
import { cancelReservation } from "@/server/bookings/commands/end-booking";

export const dynamic = "force-dynamic";

/** An admin ends someone's booking: `{ "reason": "…" }`, which the booker sees. */
export const POST = apiHandler(async (request, { params }: { params: Promise<{ id: string }> }) => {
  const { user } = await requireAdmin(request);
  const id = reservationIdSchema.parse((await params).id);
  const { reason } = reservationCancelSchema.parse(await readJson(request));
  return NextResponse.json(await cancelReservation(user, id, reason));
});
