import { hostSettingInputSchema, type HostEnforcementView, type HostSettingInput } from "@/lib/domain/alerts";
import type { UserPrincipal } from "@/server/access/principal";
import { db } from "@/server/core/db";
import type { HostEnforcement } from "@/server/enforcement/enforcement-plan";
import { AppError } from "@/server/core/errors";
import { can } from "@/server/access/permissions";

type Actor = UserPrincipal["user"];

/** Enforcement is opt-in: a host without a row has it off. */
export const DEFAULT_HOST_SETTING: HostSettingInput = { terminateIntruders: false, graceSeconds: 300, killAfterSeconds: 30 };

/** Every host with its enforcement setting; `allows` tells whether its agent accepts enforcement now. */
export async function listHostEnforcement(allows: (hostId: string) => boolean): Promise<HostEnforcementView[]> {
  const [hosts, settings] = await Promise.all([
    db().host.findMany({ orderBy: { name: "asc" }, select: { id: true, name: true, simulated: true } }),
    db().hostSetting.findMany(),
  ]);
  const byHost = new Map(settings.map((setting) => [setting.hostId, setting]));
  return hosts.map((host) => {
    const setting = byHost.get(host.id) ?? DEFAULT_HOST_SETTING;
    return {
      hostId: host.id,
      hostName: host.name,
      simulated: host.simulated,
      terminateIntruders: setting.terminateIntruders,
      graceSeconds: setting.graceSeconds,
      killAfterSeconds: setting.killAfterSeconds,
      agentAllowsEnforcement: allows(host.id),
    };
  });
}

/** An admin changes a host's enforcement; the change is in the audit log with before and after. */
export async function updateHostSetting(actor: Actor, hostId: string, input: unknown): Promise<HostSettingInput> {
  if (!can.administer(actor)) throw new AppError("forbidden", "Only an admin can change enforcement");
  const data = hostSettingInputSchema.parse(input);
  const host = await db().host.findUnique({ where: { id: hostId }, select: { id: true } });
  if (!host) throw new AppError("not_found", "No such host");
  return db().$transaction(async (tx) => {
    const before = (await tx.hostSetting.findUnique({ where: { hostId } })) ?? { hostId, ...DEFAULT_HOST_SETTING };
    const after = await tx.hostSetting.upsert({ where: { hostId }, create: { hostId, ...data }, update: data });
    await tx.auditLog.create({
      data: {
        actorId: actor.id,
        action: "host_setting.update",
        entityType: "host",
        entityId: hostId,
        before: JSON.stringify(before),
        after: JSON.stringify(after),
      },
    });
    return { terminateIntruders: after.terminateIntruders, graceSeconds: after.graceSeconds, killAfterSeconds: after.killAfterSeconds };
  });
}

/** The hosts with enforcement on, for the server's enforcement loop. */
export async function loadEnforcedHosts(): Promise<Map<string, HostEnforcement>> {
  const rows = await db().hostSetting.findMany({ where: { terminateIntruders: true } });
  return new Map(rows.map((row) => [row.hostId, { graceSeconds: row.graceSeconds, killAfterSeconds: row.killAfterSeconds }]));
}
