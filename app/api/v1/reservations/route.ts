import { NextResponse } from "next/server";
import { reservationListQuerySchema, reservationRequestSchema, searchParamsObject } from "@/lib/reservation-schema";
import { requireUser } from "@/server/auth/guard";
import { apiHandler, readJson } from "@/server/http/api-handler";
import { createReservation } from "@/server/reservations/create-reservation";
import { listReservations } from "@/server/reservations/list-reservations";
import { liveGpuSource } from "@/server/main/live-source";

export const dynamic = "force-dynamic";

/** My reservations (`?all=1`: everyone's, for admins), current first. */
export const GET = apiHandler(async (request) => {
  const { user } = await requireUser(request);
  const query = reservationListQuerySchema.parse(searchParamsObject(new URL(request.url).searchParams));
  return NextResponse.json({ reservations: await listReservations(user, query) });
});

/** Books GPUs: 201 with the reservation and its launch settings, 409 with the bookings in the way. */
export const POST = apiHandler(async (request) => {
  const { user } = await requireUser(request);
  const input = reservationRequestSchema.parse(await readJson(request));
  const reservation = await createReservation(user, input, { fleet: liveGpuSource() });
  return NextResponse.json(reservation, { status: 201, headers: { Location: `/api/v1/reservations/${reservation.id}` } });
});
