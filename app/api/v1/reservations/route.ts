import { NextResponse } from "next/server";
import { isMultiNodeBody, multiNodeRequestSchema, bookingListQuerySchema, bookingRequestSchema, searchParamsObject } from "@/lib/domain/booking-schema";
import { requireUser } from "@/server/auth/guard";
import { apiHandler, readJson } from "@/server/http/api-handler";
import { createMultiNodeBooking } from "@/server/bookings/commands/create-multi-node";
import { createBooking } from "@/server/bookings/commands/create-booking";
import { listBookings } from "@/server/bookings/views/list-bookings";
import { liveGpuSource } from "@/server/runtime/live-source";

export const dynamic = "force-dynamic";

/** My bookings (`?all=1`: everyone's, for admins), current first. */
export const GET = apiHandler(async (request) => {
  const { user } = await requireUser(request);
  const query = bookingListQuerySchema.parse(searchParamsObject(new URL(request.url).searchParams));
  return NextResponse.json({ reservations: await listBookings(user, query) });
});

/**
 * Books GPUs: 201 with the booking and its launch settings, 409 with the
 * bookings in the way. A body with `nodes` or `parts` books across nodes:
 * 201 with the booking and each part's launch settings.
 */
export const POST = apiHandler(async (request) => {
  const { user } = await requireUser(request);
  const body = await readJson(request);
  if (isMultiNodeBody(body)) {
    const booking = await createMultiNodeBooking(user, multiNodeRequestSchema.parse(body), { fleet: liveGpuSource() });
    return NextResponse.json(booking, { status: 201, headers: { Location: `/api/v1/reservations/${booking.id}` } });
  }
  const input = bookingRequestSchema.parse(body);
  const booking = await createBooking(user, input, { fleet: liveGpuSource() });
  return NextResponse.json(booking, { status: 201, headers: { Location: `/api/v1/reservations/${booking.id}` } });
});
