import { NextResponse } from "next/server";
import { requireUser } from "@/server/auth/guard";
import { createPersonalToken, createTokenSchema, listPersonalTokens } from "@/server/auth/tokens";
import { apiHandler, readJson } from "@/server/http/api-handler";

export const dynamic = "force-dynamic";

export const GET = apiHandler(async (request) => {
  const principal = await requireUser(request);
  return NextResponse.json({ tokens: await listPersonalTokens(principal.user.id) });
});

/** Answers the token itself this once; afterwards only its prefix is ever shown. */
export const POST = apiHandler(async (request) => {
  const principal = await requireUser(request);
  const body = createTokenSchema.parse(await readJson(request));
  const { token, summary } = await createPersonalToken(principal.user.id, body.label);
  return NextResponse.json({ token, ...summary }, { status: 201 });
});
