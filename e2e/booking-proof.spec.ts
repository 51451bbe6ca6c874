import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "@playwright/test";
import { addHost, createUser, gpudesk, setGpuReading, signIn, startAgent, uniqueHostName } from "./helpers";

/**
 * The booking proof, seen in the browser: a real agent reads two processes'
 * environment through /proc. The booker's job carries the value its launch
 * settings show; someone else's names the same booking by its bare id (which
 * every viewer can read). The GPU page shows the first as the booker's and
 * the second as not the booker, with its false claim.
 */

const root = fileURLToPath(new URL("..", import.meta.url));
const FIXTURE = path.join(root, "host/collector/fixtures/h200-driver-580");
const FIXTURE_UUID = "GPU-ef2803ab-ed44-fce3-aa80-5f09cb377b2d";
const children: ChildProcess[] = [];

test.afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

/** A fake nvidia-smi with one idle H200 of this test's own UUID, listing these pids on it. */
function fakeGpu(uuid: string) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gpudesk-proof-"));
  for (const name of ["query-gpu__load.csv", "query-xml.xml", "list-L.txt", "version.txt"]) {
    writeFileSync(path.join(dir, name), readFileSync(path.join(FIXTURE, name), "utf8").replaceAll(FIXTURE_UUID, uuid));
  }
  const list = (pids: number[]) =>
    writeFileSync(
      path.join(dir, "query-compute-apps__load.csv"),
      ["gpu_uuid, pid, process_name, used_gpu_memory [MiB]", ...pids.map((pid) => `${uuid}, ${pid}, python, 512 MiB`), ""].join("\n"),
    );
  list([]);
  // Idle until the test lists its processes: the recording's 3.5 GiB with no process listed is
  // someone's job nvidia-smi cannot see, and such a GPU cannot be booked (lib/domain/gpu-availability.ts).
  setGpuReading(dir, { memoryUsedMiB: 0, utilizationPct: 0 });
  return { dir, list };
}

function idleProcess(env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { env: { ...process.env, ...env }, stdio: "ignore" });
  children.push(child);
  return child;
}

test("the GPU page tells the booker's proven job from a process that names the booking without its proof", async ({ page, baseURL }) => {
  test.setTimeout(180_000);
  const bookedBy = await createUser("prover");
  await signIn(page, bookedBy);
  const hostName = uniqueHostName("e2e-proof");
  const hostToken = await addHost(hostName);
  const uuid = `GPU-ef2803ab-ed44-fce3-aa80-${Date.now().toString(16).slice(-12).padStart(12, "0")}`;
  const gpu = fakeGpu(uuid);
  children.push(startAgent(["--server", baseURL!, "--nvidia-smi", path.join(root, "scripts/fake-nvidia-smi.mjs"), "--host-name", hostName, "--interval", "500ms"], {
    GPUDESK_AGENT_TOKEN: hostToken,
    FAKE_NVIDIA_SMI_DIR: gpu.dir,
  }));

  // The booker books the GPU once the agent has reported it.
  let booking = { id: "", launch: { reservationValue: "" } };
  await expect
    .poll(async () => {
      const response = await page.request.post("/api/v1/reservations", {
        data: { host: hostName, gpus: [0], durationMinutes: 30, purpose: "proof e2e" },
        headers: { origin: new URL(baseURL!).origin },
      });
      if (response.status() === 201) booking = await response.json();
      return response.status();
    }, { timeout: 30_000 })
    .toBe(201);
  expect(booking.launch.reservationValue).toMatch(new RegExp(`^${booking.id}\\.[A-Za-z0-9_-]{32}$`));

  const job = idleProcess({ GPUDESK_RESERVATION: booking.launch.reservationValue });
  const hiding = idleProcess({ GPUDESK_RESERVATION: booking.id });
  gpu.list([job.pid!, hiding.pid!]);

  await page.goto(`/gpus/${uuid}`);
  const whoRuns = page.getByRole("table", { name: "Who runs here" });
  const hidingRow = whoRuns.getByRole("row").filter({ hasText: String(hiding.pid) });
  await expect(hidingRow).toContainText(`claims reservation ${booking.id.slice(0, 8)}… without its proof`, { timeout: 30_000 });
  await expect(hidingRow).toHaveAttribute("data-intruder", "true");
  await expect(page.getByTestId("gpu-who-runs")).toContainText("Conflict");
  const jobRow = whoRuns.getByRole("row").filter({ hasText: String(job.pid) });
  await expect(jobRow).toContainText(`via reservation ${booking.id.slice(0, 8)}…`);
  await expect(jobRow).not.toContainText("without its proof");
  await expect(jobRow).toContainText(bookedBy.username);
  await expect(jobRow).not.toHaveAttribute("data-intruder", "true");
  await page.screenshot({ path: test.info().outputPath("gpu-page-false-claim.png"), fullPage: true });

  // The booker reads the value again on the bookings page.
  await page.goto("/reservations");
  const card = page.getByRole("article", { name: `GPU 0 on ${hostName}` });
  await expect(card.getByTestId("launch-settings")).toContainText(`export GPUDESK_RESERVATION=${booking.launch.reservationValue}`);
  await card.screenshot({ path: test.info().outputPath("launch-settings-with-proof.png") });

  // Another member sees the booking, its id and the conflict, never the proof.
  const secret = booking.launch.reservationValue.split(".")[1];
  await signIn(page, await createUser("onlooker"));
  const frames: string[] = [];
  // socket.io starts on HTTP long-polling and moves to a websocket: the snapshot may come either way.
  page.on("websocket", (socket) => socket.on("framereceived", ({ payload }) => frames.push(String(payload))));
  page.on("response", (response) => {
    if (response.url().includes("/socket.io/")) response.text().then((text) => frames.push(text), () => undefined);
  });
  for (const where of ["/schedule", `/gpus/${uuid}`, "/"]) {
    await page.goto(where);
    await expect(page.getByRole("main")).toBeVisible();
    expect(await page.content(), where).not.toContain(secret);
  }
  // The onlooker's live feed carried the booking and the process, without the proof.
  await expect.poll(() => frames.some((frame) => frame.includes(booking.id)), { timeout: 15_000 }).toBe(true);
  expect(frames.filter((frame) => frame.includes(secret))).toEqual([]);
});
