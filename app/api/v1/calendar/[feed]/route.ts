import { z } from "zod";
import { AppError } from "@/server/errors";
import { apiHandler } from "@/server/http/api-handler";
import { renderCalendarFeed } from "@/server/calendar/calendar-feed";

export const dynamic = "force-dynamic";

const feedParam = z.string().max(200).regex(/^[A-Za-z0-9_~.-]+\.ics$/);

/**
 * A calendar app's subscription: `<secret>.ics`. No sign-in (calendar apps
 * cannot), the address is the key (server/calendar/feed-secret.ts).
 */
export const GET = apiHandler(async (_request, context: { params: Promise<{ feed: string }> }) => {
  const parsed = feedParam.safeParse((await context.params).feed);
  if (!parsed.success) throw new AppError("not_found", "No such calendar feed");
  const body = await renderCalendarFeed(parsed.data.slice(0, -".ics".length));
  return new Response(body, {
    headers: { "content-type": "text/calendar; charset=utf-8", "cache-control": "private, max-age=300", "content-disposition": 'inline; filename="gpudesk.ics"' },
  });
});
