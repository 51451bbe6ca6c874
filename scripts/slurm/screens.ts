/**
 * A person's screens with Slurm underneath, for a person to look at: a
 * gpudesk server of its own (the production build, 16 simulated GPUs on two
 * hosts mapped to the test cluster's nodes slurm-a and slurm-b) against the
 * real Slurm of scripts/slurm/start.sh, with Slurm's own work in place: bob's
 * job on 4 GPUs of slurm-a, his job for all 8 waiting behind it, a
 * maintenance reservation of slurm-b from in 3 hours. Ann books 2 GPUs of
 * slurm-b and runs a job under the reservation; her booking on slurm-a is
 * refused. Then a maintenance reservation of slurm-a from now, bob's held job
 * (no node planned) and ann waiting for all of slurm-a. Saves PNGs to the
 * folder given (default test-results/screens/slurm): fleet, schedule, week,
 * the refused booking, the booking's sbatch lines, the fleet under the
 * maintenance reservation, the queue naming Slurm, Admin → Hosts.
 *
 *   GPUDESK_SLURM_CACHE=… GPUDESK_SLURM_PORT_BASE=… npx tsx scripts/slurm/screens.ts [folder] [port]   (root; after npm run build)
 */
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "@playwright/test";
import { startDisplayServer } from "../../e2e/display-server";
import { useTestSlurm } from "@/server/testing/slurm-cluster";

const root = fileURLToPath(new URL("../..", import.meta.url));
const out = path.resolve(process.argv[2] ?? "test-results/screens/slurm");
const port = Number(process.argv[3] ?? 3441);

async function main(): Promise<void> {
  mkdirSync(out, { recursive: true });
  const slurm = await useTestSlurm();
  const server = await startDisplayServer({
    port,
    gpus: 16,
    env: { GPUDESK_SLURM_URL: slurm.url, GPUDESK_SLURM_JWT_KEY: slurm.jwtKeyFile, GPUDESK_SLURM_USER: slurm.user },
  });
  const origin = server.url;
  const api = async <T>(method: string, url: string, auth: { token?: string; cookie?: string }, body?: unknown): Promise<{ status: number; json: T }> => {
    const headers: Record<string, string> = { "content-type": "application/json", origin };
    if (auth.token) headers.authorization = `Bearer ${auth.token}`;
    if (auth.cookie) headers.cookie = auth.cookie;
    const response = await fetch(`${origin}${url}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    return { status: response.status, json: (text ? JSON.parse(text) : null) as T };
  };
  const signIn = async (username: string, password: string) => {
    const response = await fetch(`${origin}/api/auth/sign-in/username`, { method: "POST", headers: { "content-type": "application/json", origin }, body: JSON.stringify({ username, password }) });
    if (!response.ok) throw new Error(`sign-in of ${username}: ${response.status}`);
    return response.headers.getSetCookie().map((line) => line.split(";")[0]).join("; ");
  };
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
  try {
    await slurm.as("root", "scancel -u ann; scancel -u bob; scontrol delete reservation=maint 2>/dev/null; scontrol delete reservation=maint-now 2>/dev/null; true");
    const adminPassword = "pw-slurm-admin-long-enough";
    const cliEnv: NodeJS.ProcessEnv = { ...process.env, GPUDESK_DATA_DIR: server.dataDir };
    delete cliEnv.DATABASE_URL;
    const added = spawnSync(process.execPath, [path.join(root, "bin", "gpudesk.js"), "user", "add", "slurmadmin", "--password-stdin", "--admin"], { cwd: root, env: cliEnv, input: adminPassword, encoding: "utf8" });
    if (added.status !== 0) throw new Error(`gpudesk user add: ${added.stderr}`);
    const adminCookie = await signIn("slurmadmin", adminPassword);
    const annPassword = "pw-ann-long-enough-1";
    const created = await api("POST", "/api/v1/users", { cookie: adminCookie }, { username: "ann", password: annPassword, name: "Ann Lee", role: "member", unixLogin: "ann", takeOverDemo: false });
    if (created.status >= 300) throw new Error(`ann: ${JSON.stringify(created.json)}`);
    // The two simulated hosts with the most free GPUs (the demo's work runs on the others) become Slurm's nodes.
    const fleet = (await api<{ gpus: { uuid: string; hostId: string; hostName: string; index: number; mig?: unknown }[]; gpuStates: Record<string, { state: string }> }>("GET", "/api/v1/fleet", { cookie: adminCookie })).json;
    const freeOn = (hostId: string) => fleet.gpus.filter((gpu) => gpu.hostId === hostId && !gpu.mig && fleet.gpuStates[gpu.uuid]?.state === "free").map((gpu) => gpu.index);
    const byHost = [...new Map(fleet.gpus.map((gpu) => [gpu.hostId, { id: gpu.hostId, name: gpu.hostName }])).values()].sort((a, b) => freeOn(b.id).length - freeOn(a.id).length);
    const [hostB, hostA] = byHost;
    for (const [host, node] of [[hostA!, "slurm-a"], [hostB!, "slurm-b"]] as const) {
      const mapped = await api("PATCH", `/api/v1/hosts/${host.id}`, { cookie: adminCookie }, { slurmNode: node });
      if (mapped.status >= 300) throw new Error(`map ${host.name}: ${JSON.stringify(mapped.json)}`);
    }
      const freeB = freeOn(hostB!.id);
    console.log(`free now on ${hostB!.name}: ${freeB.join(",")}`);
    console.log(`hosts: ${hostA!.name} = slurm-a, ${hostB!.name} = slurm-b`);

    // Slurm's own work.
    await slurm.as("bob", "sbatch -w slurm-a --gres=gpu:4 -t 120 -J train-bob --wrap 'sleep 7200'");
    await slurm.as("bob", "sbatch -w slurm-a --gres=gpu:8 -t 60 -J sweep-bob --wrap 'sleep 3600'");
    await slurm.as("root", "scontrol create reservation ReservationName=maint Nodes=slurm-b StartTime=now+3hours Duration=120 Users=root Flags=MAINT,IGNORE_JOBS");

    const annCookie = await signIn("ann", annPassword);
    // Two GPUs, free ones first (the demo's work may run on the others: "book anyway").
    const annGpus = [...freeB, ...[7, 6, 5, 4].filter((index) => !freeB.includes(index))].slice(0, 2);
    const booked = await api<{ id: string }>("POST", "/api/v1/reservations", { cookie: annCookie }, { host: hostB!.name, gpus: annGpus, durationMinutes: 120, purpose: "fine-tune under Slurm", allowBusy: true });
    if (booked.status !== 201) throw new Error(`ann's booking: ${booked.status} ${JSON.stringify(booked.json)}`);
    await slurm.as("ann", `sbatch --reservation=gpudesk-${booked.json.id} --gres=gpu:2 -t 60 -J finetune --wrap 'sleep 3600'`);
    // The calendar is laid once per pass (30 s): wait for the next one to see the jobs above.
    await new Promise((resolve) => setTimeout(resolve, 40_000));

    const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
    await context.addCookies(annCookie.split("; ").map((pair) => ({ name: pair.slice(0, pair.indexOf("=")), value: pair.slice(pair.indexOf("=") + 1), url: origin })));
    const page = await context.newPage();
    const shot = async (file: string, url: string, ready: () => Promise<unknown>) => {
      await page.goto(`${origin}${url}`);
      await ready();
      await page.waitForTimeout(1500);
      await page.screenshot({ path: path.join(out, file), fullPage: true });
      console.log(`saved ${path.join(out, file)}`);
    };
    await shot("fleet.png", "/", () => page.locator('[data-testid="gpu-state"][data-slurm="job"]').first().waitFor({ timeout: 60_000 }));
    await shot("schedule.png", "/schedule?days=1", () => page.getByTestId("slurm-block").first().waitFor({ timeout: 60_000 }));
    await shot("week.png", `/schedule?view=week&host=${encodeURIComponent(hostA!.name)}`, () => page.getByTestId("slurm-block").first().waitFor({ timeout: 60_000 }));

    // A refused booking: GPUs of slurm-a that bob's jobs hold or wait for.
    // GPU 7, which bob's running job does not hold: free of Slurm on the calendar until his waiting job's start, but Slurm has no room.
    await page.goto(`${origin}/reserve?host=${encodeURIComponent(hostA!.name)}&gpus=7&minutes=60&purpose=${encodeURIComponent("eval on slurm-a")}`);
    await page.getByRole("button", { name: "Book", exact: true }).waitFor();
    await page.waitForTimeout(1500);
    // The demo's own work runs there: the person agrees with its owner first.
    const anyway = page.getByLabel("Book anyway: I have agreed it with them");
    if (await anyway.isVisible()) await anyway.check();
    await page.getByRole("button", { name: "Book", exact: true }).click();
    await page
      .getByText(/Slurm's jobs hold these GPUs|Slurm refused|Slurm has no room/)
      .first()
      .waitFor({ timeout: 30_000 })
      .catch(async (error: unknown) => {
        await page.screenshot({ path: path.join(out, "refused-not-seen.png"), fullPage: true });
        throw error;
      });
    await page.screenshot({ path: path.join(out, "refused.png"), fullPage: true });
    console.log(`saved ${path.join(out, "refused.png")}`);

    await shot("booking-sbatch.png", "/reservations", async () => {
      const launch = page.getByText("Launch settings").first();
      await launch.waitFor({ timeout: 30_000 });
      // Open unless the page opened it already.
      if (!(await page.getByTestId("slurm-state").first().isVisible())) await launch.click();
      await page.getByTestId("slurm-state").first().waitFor({ timeout: 30_000 });
    });

    // Issue 49's leftovers: a maintenance reservation holding slurm-a's GPUs now, a held job Slurm has not planned,
    // ann waiting for all of slurm-a (the queue names Slurm), and Admin → Hosts with the cluster's state.
    await slurm.as("root", "scontrol create reservation ReservationName=maint-now Nodes=slurm-a StartTime=now Duration=180 Users=root Flags=MAINT,IGNORE_JOBS");
    await slurm.as("bob", "sbatch --hold --gres=gpu:2 -t 30 -J later-bob --wrap 'sleep 600'");
    await new Promise((resolve) => setTimeout(resolve, 40_000));
    const queued = await api("POST", "/api/v1/waitlist", { cookie: annCookie }, { count: 8, host: hostA!.name, durationMinutes: 60, purpose: "all of slurm-a" });
    if (queued.status >= 300) throw new Error(`ann's request: ${queued.status} ${JSON.stringify(queued.json)}`);
    await shot("fleet-maint.png", "/", () => page.locator('[data-testid="gpu-state"][data-slurm="reservation"]').first().waitFor({ timeout: 60_000 }));
    await shot("queue.png", "/queue", () => page.locator('[data-kind="held"]:visible').filter({ hasText: /waits for Slurm/i }).first().waitFor({ timeout: 60_000 }));
    const adminContext = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
    await adminContext.addCookies(adminCookie.split("; ").map((pair) => ({ name: pair.slice(0, pair.indexOf("=")), value: pair.slice(pair.indexOf("=") + 1), url: origin })));
    const adminPage = await adminContext.newPage();
    await adminPage.goto(`${origin}/admin/hosts`);
    await adminPage.getByTestId("slurm-unplanned").waitFor({ timeout: 60_000 });
    await adminPage.waitForTimeout(1500);
    await adminPage.screenshot({ path: path.join(out, "admin-hosts.png"), fullPage: true });
    console.log(`saved ${path.join(out, "admin-hosts.png")}`);
  } finally {
    await browser.close();
    await server.dispose();
    // What the server made in Slurm goes with it.
    await slurm
      .as("root", "scancel -u ann; scancel -u bob; for r in maint maint-now $(scontrol show res -o | grep -o 'ReservationName=gpudesk-[^ ]*' | cut -d= -f2); do scontrol delete reservation=$r; done; true")
      .catch(() => "");
    slurm.release();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
