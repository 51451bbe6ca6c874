/**
 * Records the slurmrestd answers the calendar's unit tests replay
 * (server/slurm/fixtures/calendar-*.json), from the real Slurm of
 * scripts/slurm/start.sh: a maintenance reservation on slurm-b (whole node,
 * no GPU count), a reservation of 2 GPUs on slurm-a for bob that gpudesk did
 * not make, a booking's reservation with ann's job running under it, bob's
 * job running on 2 GPUs of slurm-a outside any reservation, and ann's job
 * for 8 GPUs of slurm-a waiting for them. Then removes all of it.
 *
 *   GPUDESK_SLURM_CACHE=… GPUDESK_SLURM_PORT_BASE=… npx tsx scripts/slurm/record-calendar-fixtures.ts   (root)
 */
import { recordingSession } from "./recording";

async function main(): Promise<void> {
  const { slurm, get, sh, save } = await recordingSession();
  const clean = async () => {
    await sh("root", "scancel -u ann; scancel -u bob; true");
    await sh("root", "for r in maint course gpudesk-b7; do scontrol delete reservation=$r 2>/dev/null; done; true");
  };
  try {
    await clean();
    await sh("root", "scontrol create reservation ReservationName=maint Nodes=slurm-b StartTime=now+2hours Duration=120 Users=root Flags=MAINT,IGNORE_JOBS");
    await sh("root", "scontrol create reservation ReservationName=course Nodes=slurm-a TRES=gres/gpu=2 StartTime=now+30minutes Duration=60 Users=bob");
    await sh("root", "scontrol create reservation ReservationName=gpudesk-b7 Nodes=slurm-a TRES=gres/gpu=2 StartTime=now Duration=60 Users=ann");
    const annRun = (await sh("ann", "sbatch --parsable --reservation=gpudesk-b7 --gres=gpu:2 -t 30 --wrap 'sleep 600'")).trim();
    const bobRun = (await sh("bob", "sbatch --parsable -w slurm-a --gres=gpu:2 -t 45 --wrap 'sleep 600'")).trim();
    const annWait = (await sh("ann", "sbatch --parsable -w slurm-a --gres=gpu:8 -t 20 --wrap 'sleep 600'")).trim();
    // Until both run and the waiting one has Slurm's expected start.
    for (let tries = 0; ; tries++) {
      const jobs = (await get("jobs")) as { jobs: { job_id: number; job_state: string[]; start_time: { number: number } }[] };
      const state = (id: string) => jobs.jobs.find((job) => String(job.job_id) === id);
      if (state(annRun)?.job_state.includes("RUNNING") && state(bobRun)?.job_state.includes("RUNNING") && (state(annWait)?.start_time.number ?? 0) > 0) break;
      if (tries > 60) throw new Error(`jobs did not settle: ${JSON.stringify(jobs.jobs.map((job) => [job.job_id, job.job_state]))}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    await save("calendar-jobs.json", "jobs");
    await save("calendar-reservations.json", "reservations");
    console.log(`recorded: ann's job ${annRun} under gpudesk-b7, bob's job ${bobRun}, ann's waiting job ${annWait}; reservations maint, course, gpudesk-b7`);
  } finally {
    await clean();
    slurm.release();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
