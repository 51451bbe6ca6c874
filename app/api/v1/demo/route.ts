import { NextResponse } from "next/server";
import { demoChoiceSchema } from "@/lib/domain/demo-choice";
import { requireAdmin, requireUser } from "@/server/auth/guard";
import { env } from "@/server/core/env";
import { chooseDemoOrLab, getDemoStatus } from "@/server/demo/demo-choice";
import { apiHandler, readJson } from "@/server/http/api-handler";

export const dynamic = "force-dynamic";

/** Demo or lab: where this server stands, and whether the page asks this viewer. */
export const GET = apiHandler(async (request) => {
  const { user } = await requireUser(request);
  return NextResponse.json(await getDemoStatus(user, env().GPUDESK_DEMO === "ask"));
});

/** The first admin's answer: `{ "choice": "lab" }` ends the demo for good (as `gpudesk demo off`). */
export const POST = apiHandler(async (request) => {
  const { user } = await requireAdmin(request);
  const { choice } = demoChoiceSchema.parse(await readJson(request));
  return NextResponse.json(await chooseDemoOrLab(user, choice));
});
