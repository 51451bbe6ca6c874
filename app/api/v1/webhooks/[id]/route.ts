import { NextResponse } from "next/server";
import { recordIdSchema } from "@/lib/domain/alerts";
import { requireUser } from "@/server/auth/guard";
import { apiHandler, readJson } from "@/server/http/api-handler";
import { deleteWebhook, updateWebhook } from "@/server/notifications/webhooks";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

/** Changes the URL, format, kinds or `enabled`. */
export const PATCH = apiHandler(async (request, { params }: Context) => {
  const { user } = await requireUser(request);
  return NextResponse.json(await updateWebhook(user, recordIdSchema.parse((await params).id), await readJson(request)));
});

export const DELETE = apiHandler(async (request, { params }: Context) => {
  const { user } = await requireUser(request);
  await deleteWebhook(user, recordIdSchema.parse((await params).id));
  return new NextResponse(null, { status: 204 });
});
