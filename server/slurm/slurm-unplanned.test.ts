import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { slurmHoldOf, slurmHoldSentence, slurmUnplannedSentence, SLURM_OPEN_END } from "@/lib/domain/slurm";
import { buildSlurmCalendar, type SlurmCalendarHost } from "@/server/slurm/slurm-calendar";
import { jobsAnswer, partitionsAnswer, toSlurmJob, toSlurmPartition } from "@/server/slurm/slurm-model";

/**
 * Jobs without a node or a time limit, from answers recorded from the real
 * Slurm 26.05 (scripts/slurm/record-unplanned-fixtures.ts): bob's job 23 runs
 * on GPUs 0-1 of slurm-b in partition `long` with no time limit (Slurm puts
 * its end_time a year ahead), ann's job 24 (held, 4 GPUs) and job 25 (3 GPUs,
 * after bob's) wait with no node planned. The partitions were read with
 * `long` UNLIMITED, then with MaxTime=2:00:00.
 */
const fixture = (name: string): unknown => JSON.parse(readFileSync(path.join(__dirname, "fixtures", name), "utf8"));
const jobs = jobsAnswer.parse(fixture("unplanned-jobs.json")).jobs.map(toSlurmJob);
const partitions = (name: string) => partitionsAnswer.parse(fixture(name)).partitions.map(toSlurmPartition);
const unlimited = partitions("unplanned-partitions.json");
const twoHours = partitions("unplanned-partitions-maxtime.json");
const bob = jobs.find((job) => job.id === 23)!;
/** Just after bob's job started. */
const NOW = (bob.startsAt ?? 0) + 10_000;
const gpusOf = (host: string) => Array.from({ length: 8 }, (_, index) => ({ id: `${host}-row-${index}`, uuid: `GPU-${host}-${index}`, index }));
const hosts: SlurmCalendarHost[] = [
  { id: "h-a", name: "dgx-a", node: "slurm-a", gpus: gpusOf("a") },
  { id: "h-b", name: "dgx-b", node: "slurm-b", gpus: gpusOf("b") },
];

describe("Slurm jobs without a node or a time limit (recorded from Slurm 26.05)", () => {
  it("reads UNLIMITED as no time limit, not Slurm's end a year ahead, and a partition's MaxTime in minutes", () => {
    expect(bob).toMatchObject({ state: "running", partition: "long", noTimeLimit: true, timeLimitMs: null, endsAt: null, gpuIndices: { "slurm-b": [0, 1] } });
    expect(unlimited.find((partition) => partition.name === "long")).toEqual({ name: "long", maxTimeMs: null });
    expect(twoHours.find((partition) => partition.name === "long")).toEqual({ name: "long", maxTimeMs: 2 * 3600_000 });
    expect(twoHours.find((partition) => partition.name === "gpu")).toEqual({ name: "gpu", maxTimeMs: 24 * 3600_000 });
  });

  it("holds a job without a time limit until it ends where its partition has no MaxTime, and says so", () => {
    const [block] = buildSlurmCalendar(jobs, [], hosts, NOW, unlimited).blocks;
    expect(block).toMatchObject({ kind: "job", id: "23", hostName: "dgx-b", endsAt: SLURM_OPEN_END, noTimeLimit: true });
    expect(block!.gpus.map((gpu) => gpu.index)).toEqual([0, 1]);
    expect(slurmHoldSentence(slurmHoldOf(block!), (iso) => iso)).toBe("Held by Slurm job 23 of bob (no time limit)");
  });

  it("holds it until its partition's MaxTime where the partition has one", () => {
    const [block] = buildSlurmCalendar(jobs, [], hosts, NOW, twoHours).blocks;
    expect(block).toMatchObject({ id: "23", endsAt: new Date(bob.startsAt! + 2 * 3600_000).toISOString(), noTimeLimit: true });
    expect(slurmHoldSentence(slurmHoldOf(block!), () => "today 21:00")).toBe("Held by Slurm job 23 of bob (no time limit; its partition's MaxTime ends it by today 21:00)");
  });

  it("draws a pending job with no node known on no GPU, and counts it with the GPUs it asks for", () => {
    const calendar = buildSlurmCalendar(jobs, [], hosts, NOW, unlimited);
    expect(calendar.blocks.map((block) => block.id)).toEqual(["23"]);
    expect(calendar.unplanned).toEqual({ jobs: 2, gpus: 7 });
    expect(slurmUnplannedSentence(calendar.unplanned)).toBe("2 pending Slurm jobs ask for 7 GPUs (no node planned yet)");
    expect(slurmUnplannedSentence({ jobs: 0, gpus: 0 })).toBeNull();
  });
});
