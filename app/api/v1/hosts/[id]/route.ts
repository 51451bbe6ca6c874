import { NextResponse } from "next/server";
import { requireAdmin } from "@/server/auth/guard";
import { fabricLabelSchema } from "@/lib/domain/fabric";
import { apiHandler, readJson } from "@/server/http/api-handler";
import { removeHost, setHostFabricLabel } from "@/server/hosts/host-registry";
import { runtime } from "@/server/runtime/runtime";

export const dynamic = "force-dynamic";

export const DELETE = apiHandler(async (request, { params }: { params: Promise<{ id: string }> }) => {
  await requireAdmin(request);
  const host = await removeHost((await params).id);
  runtime().disconnectAgents(host.id);
  runtime().fleet.removeHost(host.id);
  return new NextResponse(null, { status: 204 });
});

/** An admin names the host's fabric (rack, switch): booking across nodes keeps a job's nodes on one. */
export const PATCH = apiHandler(async (request, { params }: { params: Promise<{ id: string }> }) => {
  const { user } = await requireAdmin(request);
  const input = fabricLabelSchema.parse(await readJson(request));
  return NextResponse.json(await setHostFabricLabel(user.id, (await params).id, input.fabricLabel));
});
