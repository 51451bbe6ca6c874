/**
 * Records the slurmrestd answers behind the calendar's jobs without a node
 * or a time limit (server/slurm/fixtures/unplanned-*.json), from the real
 * Slurm of scripts/slurm/start.sh: a partition `long` over slurm-b with no
 * time limit (MaxTime=UNLIMITED, no DefaultTime), bob's job running there on
 * 2 GPUs without a time limit, ann's held job for 4 GPUs and ann's job for 3
 * GPUs waiting on bob's (Slurm plans neither: no node known). Then the
 * partitions again after `long` got MaxTime=2:00:00 (the job keeps its
 * unlimited time). Then removes all of it.
 *
 *   GPUDESK_SLURM_CACHE=… GPUDESK_SLURM_PORT_BASE=… npx tsx scripts/slurm/record-unplanned-fixtures.ts   (root)
 */
import { recordingSession } from "./recording";

async function main(): Promise<void> {
  const { slurm, get, sh, save } = await recordingSession();
  const clean = async () => {
    await sh("root", "scancel -u ann; scancel -u bob; true");
    await sh("root", "scontrol delete PartitionName=long 2>/dev/null; true");
  };
  try {
    await clean();
    await sh("root", "scontrol create PartitionName=long Nodes=slurm-b MaxTime=UNLIMITED State=UP");
    const bobRun = (await sh("bob", "sbatch --parsable -p long -t UNLIMITED --gres=gpu:2 --wrap 'sleep 600'")).trim();
    const annHeld = (await sh("ann", "sbatch --parsable --hold --gres=gpu:4 -t 60 --wrap 'sleep 600'")).trim();
    const annAfter = (await sh("ann", `sbatch --parsable -d afterok:${bobRun} --gres=gpu:3 -t 90 --wrap 'sleep 600'`)).trim();
    for (let tries = 0; ; tries++) {
      const jobs = (await get("jobs")) as { jobs: { job_id: number; job_state: string[] }[] };
      if (jobs.jobs.find((job) => String(job.job_id) === bobRun)?.job_state.includes("RUNNING")) break;
      if (tries > 60) throw new Error(`bob's job did not start: ${JSON.stringify(jobs.jobs.map((job) => [job.job_id, job.job_state]))}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    await save("unplanned-jobs.json", "jobs");
    await save("unplanned-partitions.json", "partitions");
    await sh("root", "scontrol update PartitionName=long MaxTime=2:00:00");
    await save("unplanned-partitions-maxtime.json", "partitions");
    console.log(`recorded: bob's job ${bobRun} without a time limit on slurm-b, ann's held job ${annHeld}, ann's job ${annAfter} after bob's; partitions with long UNLIMITED, then 2:00:00`);
  } finally {
    await clean();
    slurm.release();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
