import type { FleetView } from "@/server/attribution/reconcile-fleet";
import { db } from "@/server/core/db";
import { log } from "@/server/core/log";
import { storedUnit, unitName, type UnitName } from "@/lib/domain/gpu-availability";

const DAY_MS = 86_400_000;

/**
 * What ought to be reporting: the hosts seen before and the GPUs each had
 * lately. A GPU missing from its host's report is lost; a host that stopped
 * reporting is offline. Seeded from the database (so a restart keeps
 * knowing) and kept current from the live fleet. A GPU unseen for
 * `retainMs` is no longer expected (it was taken out on purpose), unless a
 * booking still holds it (a MIG slice booked for next week that the
 * layout change destroyed today).
 */
export class ExpectedInventory {
  private hosts = new Map<string, string>();
  /** Each unit by its name's parts (a slice's MIG device and profile too): a lost slice is named as every surface names it. */
  private readonly gpus = new Map<string, Map<string, { unit: UnitName; seenAt: number }>>();
  /** Units with a booking still to come or running, as last read: not aged out while booked. */
  private booked = new Set<string>();
  /** What expectedGpus() answered, until a GPU joins or leaves. */
  private expected: Map<string, Map<string, UnitName>> | null = null;

  constructor(private readonly retainMs = DAY_MS) {}

  /** Reads the hosts and their recent GPUs from the database; hosts removed there are forgotten. */
  async load(nowMs: number): Promise<void> {
    try {
      // Once the lab was chosen the simulated hosts are gone for good (server/demo/demo-choice.ts): never offline, never expected.
      const demoOver = (await db().policy.findUnique({ where: { id: "default" }, select: { demoChoice: true } }))?.demoChoice === "lab";
      const hosts = await db().host.findMany({
        where: { lastSeenAt: { not: null }, ...(demoOver ? { simulated: false } : {}) },
        select: {
          id: true,
          name: true,
          gpus: {
            // A unit booked for later stays expected however long ago it was seen: its bookers must hear it is gone until the booking ends.
            where: { OR: [{ lastSeenAt: { gt: new Date(nowMs - this.retainMs) } }, { reservations: { some: { reservation: { status: "booked", endsAt: { gt: new Date(nowMs) } } } } }] },
            select: { uuid: true, index: true, migDeviceIndex: true, migProfile: true, lastSeenAt: true, reservations: { where: { reservation: { status: "booked", endsAt: { gt: new Date(nowMs) } } }, select: { reservationId: true }, take: 1 } },
          },
        },
      });
      this.hosts = new Map(hosts.map((host) => [host.id, host.name]));
      this.booked = new Set(hosts.flatMap((host) => host.gpus.filter((gpu) => gpu.reservations.length > 0).map((gpu) => gpu.uuid)));
      this.expected = null;
      for (const hostId of [...this.gpus.keys()]) if (!this.hosts.has(hostId)) this.gpus.delete(hostId);
      for (const host of hosts) {
        const known = this.gpus.get(host.id) ?? new Map<string, { unit: UnitName; seenAt: number }>();
        for (const gpu of host.gpus) {
          const seenAt = gpu.lastSeenAt.getTime();
          if ((known.get(gpu.uuid)?.seenAt ?? 0) < seenAt) known.set(gpu.uuid, { unit: storedUnit(gpu), seenAt });
        }
        this.gpus.set(host.id, known);
      }
    } catch (error) {
      log.error(`could not read the host inventory: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Takes in what the online hosts report now. */
  observe(view: FleetView, nowMs: number): void {
    const unitOf = new Map<string, UnitName>();
    for (const gpu of view.gpus) unitOf.set(gpu.uuid, { index: gpu.index, mig: gpu.mig ? { deviceIndex: gpu.mig.deviceIndex, profile: gpu.mig.profile } : null });
    for (const host of view.hosts) {
      this.hosts.set(host.id, host.name);
      if (!host.online) continue;
      let known = this.gpus.get(host.id);
      if (!known) {
        known = new Map();
        this.gpus.set(host.id, known);
      }
      for (const uuid of host.gpuUuids) {
        const seen = known.get(uuid);
        const unit = unitOf.get(uuid) ?? seen?.unit ?? { index: 0 };
        // Each second the same GPUs: their time moves, nothing else is made.
        if (seen && unitName(seen.unit) === unitName(unit)) seen.seenAt = nowMs;
        else {
          known.set(uuid, { unit, seenAt: nowMs });
          this.expected = null;
        }
      }
      for (const [uuid, gpu] of known) {
        if (nowMs - gpu.seenAt > this.retainMs && !this.booked.has(uuid)) {
          known.delete(uuid);
          this.expected = null;
        }
      }
    }
  }

  knownHosts(): Map<string, string> {
    return this.hosts;
  }

  /** The expected units by host, uuid → its name's parts; the same map while nothing joined or left. */
  expectedGpus(): Map<string, Map<string, UnitName>> {
    if (this.expected) return this.expected;
    const result = new Map<string, Map<string, UnitName>>();
    for (const [hostId, gpus] of this.gpus) result.set(hostId, new Map([...gpus].map(([uuid, gpu]) => [uuid, gpu.unit])));
    this.expected = result;
    return result;
  }
}
