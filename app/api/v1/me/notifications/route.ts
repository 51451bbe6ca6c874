import { NextResponse } from "next/server";
import { requireUser } from "@/server/auth/guard";
import { apiHandler, readJson } from "@/server/http/api-handler";
import { getNotificationSettings, updateNotificationSettings } from "@/server/notifications/notification-preferences";

export const dynamic = "force-dynamic";

/** My mail address and, per event, whether it reaches me on the page and by mail. */
export const GET = apiHandler(async (request) => {
  const { user } = await requireUser(request);
  return NextResponse.json(await getNotificationSettings(user.id));
});

export const PATCH = apiHandler(async (request) => {
  const { user } = await requireUser(request);
  return NextResponse.json(await updateNotificationSettings(user.id, await readJson(request)));
});
