import { NextResponse } from "next/server";
import { requireAdmin } from "@/server/auth/guard";
import { apiHandler, readJson } from "@/server/http/api-handler";
import { createHost, createHostSchema, listHostSummaries } from "@/server/hosts/host-registry";

export const dynamic = "force-dynamic";

export const GET = apiHandler(async (request) => {
  await requireAdmin(request);
  return NextResponse.json({ hosts: await listHostSummaries() });
});

/** Registers a host; the agent token is in this answer and nowhere else, ever. */
export const POST = apiHandler(async (request) => {
  await requireAdmin(request);
  const body = createHostSchema.parse(await readJson(request));
  const { host, token } = await createHost(body.name);
  return NextResponse.json({ host, token }, { status: 201 });
});
