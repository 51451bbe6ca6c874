import { NextResponse } from "next/server";
import { recordIdSchema } from "@/lib/domain/alerts";
import { requireUser } from "@/server/auth/guard";
import { apiHandler } from "@/server/http/api-handler";
import { enqueueTestDelivery } from "@/server/notifications/deliveries";
import { wakeDeliveries } from "@/server/notifications/notifications";
import { webhookForTest } from "@/server/notifications/webhooks";

export const dynamic = "force-dynamic";

/** Queues a test message to the webhook; 202 with the delivery's id (its outcome shows in the log). */
export const POST = apiHandler(async (request, { params }: { params: Promise<{ id: string }> }) => {
  const { user } = await requireUser(request);
  const webhook = await webhookForTest(user, recordIdSchema.parse((await params).id));
  const deliveryId = await enqueueTestDelivery(webhook);
  wakeDeliveries();
  return NextResponse.json({ deliveryId }, { status: 202 });
});
