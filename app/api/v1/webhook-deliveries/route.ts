import { NextResponse } from "next/server";
import { deliveryQuerySchema } from "@/lib/domain/alerts";
import { searchParamsObject } from "@/lib/domain/booking-schema";
import { requireUser } from "@/server/auth/guard";
import { apiHandler } from "@/server/http/api-handler";
import { listDeliveries } from "@/server/notifications/webhooks";

export const dynamic = "force-dynamic";

/** The delivery log, newest first (`?status=pending|delivered|failed`): all for admins, my webhooks' otherwise. */
export const GET = apiHandler(async (request) => {
  const { user } = await requireUser(request);
  const query = deliveryQuerySchema.parse(searchParamsObject(new URL(request.url).searchParams));
  return NextResponse.json({ deliveries: await listDeliveries(user, query) });
});
