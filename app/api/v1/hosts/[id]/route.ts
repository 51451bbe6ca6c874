import { NextResponse } from "next/server";
import { requireAdmin } from "@/server/auth/guard";
import { hostPatchSchema } from "@/lib/domain/slurm";
import { apiHandler, readJson } from "@/server/http/api-handler";
import { removeHost, setHostFabricLabel, setHostSlurmNode } from "@/server/hosts/host-registry";
import { runtime } from "@/server/runtime/runtime";

export const dynamic = "force-dynamic";

export const DELETE = apiHandler(async (request, { params }: { params: Promise<{ id: string }> }) => {
  await requireAdmin(request);
  const host = await removeHost((await params).id);
  runtime().disconnectAgents(host.id);
  runtime().fleet.removeHost(host.id);
  return new NextResponse(null, { status: 204 });
});

/**
 * An admin names the host's fabric (rack, switch: booking across nodes keeps a job's nodes on one)
 * and maps it to a Slurm NodeName other than its name.
 */
export const PATCH = apiHandler(async (request, { params }: { params: Promise<{ id: string }> }) => {
  const { user } = await requireAdmin(request);
  const input = hostPatchSchema.parse(await readJson(request));
  const id = (await params).id;
  const label = input.fabricLabel !== undefined ? await setHostFabricLabel(user.id, id, input.fabricLabel) : null;
  const slurm = input.slurmNode !== undefined ? await setHostSlurmNode(user.id, id, input.slurmNode) : null;
  return NextResponse.json({ ...label, ...slurm });
});
