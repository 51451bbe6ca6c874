import { expect, test, type Page } from "@playwright/test";
import { addHost, E2E_ORIGIN, createUser, fakeNvidiaSmi, gpudesk, ownH200Fixture, signIn, startAgent, uniqueHostName } from "./helpers";

/**
 * "Free means free" on the web: a GPU on which someone else's job runs
 * without a booking is in use, not free, in the fleet view, the booking
 * form's host list and its picker; booking it is refused, naming whose work
 * it is, until the person chooses "Book anyway"; the fleet header's free
 * count is the number of GPUs shown free.
 */

interface FleetAnswer {
  hosts: { id: string; name: string; online: boolean }[];
  gpus: { uuid: string; index: number; hostId: string; processes: { pid: number; user: string | null }[] }[];
  gpuStates: Record<string, { state: string; processes: { person: { username: string; name: string } | null; login: string | null }[] }>;
}

/** A GPU of a simulated demo host that runs someone else's work without a booking right now, found through the API (not a constant). */
async function findBusyGpu(page: Page, username: string): Promise<{ host: string; index: number; owners: string[] }> {
  const answer = (await (await page.request.get("/api/v1/fleet")).json()) as FleetAnswer;
  for (const gpu of answer.gpus) {
    const host = answer.hosts.find((entry) => entry.id === gpu.hostId);
    const state = answer.gpuStates[gpu.uuid];
    if (!host?.online || !host.name.startsWith("sim-") || state?.state !== "unbooked_use") continue;
    if (state.processes.length === 0 || state.processes.some((process) => (process.person?.username ?? process.login) === username)) continue;
    // As the pages show people: the display name where the server knows the person, else the login.
    const owners = state.processes.map((process) => (process.person ? process.person.name || process.person.username : (process.login ?? "unknown")));
    return { host: host.name, index: gpu.index, owners };
  }
  throw new Error("no GPU of the demo fleet runs unbooked work now");
}

/** The number of cards badged "Free" and the header's figure, read in one go so that a live update cannot fall between. */
async function freeCounts(page: Page): Promise<{ badges: number; header: number; text: string; total: number }> {
  return page.evaluate(() => {
    const summary = document.querySelector<HTMLElement>('[data-testid="fleet-summary"]');
    return {
      badges: document.querySelectorAll('[data-testid="gpu-state"][data-state="free"]').length,
      header: Number(summary?.dataset.free ?? Number.NaN),
      total: Number(summary?.dataset.total ?? Number.NaN),
      text: summary?.textContent ?? "",
    };
  });
}

test("a GPU someone else uses without a booking is in use everywhere, and booking it takes an explicit 'Book anyway'", async ({ page }) => {
  test.setTimeout(120_000);
  const user = await createUser("avail");
  await signIn(page, user);
  const busy = await findBusyGpu(page, user.username);
  const bookingIds: string[] = [];

  try {
    // The fleet view: the card says in use without a booking, and its action is not the free GPU's green "Book".
    await page.goto("/");
    const card = page.getByRole("article", { name: `GPU ${busy.index} on ${busy.host}` });
    await expect(card.getByTestId("gpu-state")).toHaveAttribute("data-state", "unbooked_use");
    await expect(card.getByTestId("gpu-booker")).toHaveText("In use without a booking");
    const action = card.getByRole("link", { name: new RegExp(`^Book GPU ${busy.index} on ${busy.host}`) });
    await expect(action).toHaveText("Book anyway");
    await expect(action).toHaveAttribute("data-kind", "busy");

    // The header's "N of M units free" is the number of units shown free (counted on the page, not a constant);
    // the demo fleet has a split H100, so its header counts units (a GPU or a MIG slice) and says how many GPUs are split.
    await expect.poll(async () => {
      const counts = await freeCounts(page);
      return counts.badges === counts.header && counts.text.includes(`${counts.header} of ${counts.total} units free`) && /split into \d+ MIG slices/.test(counts.text);
    }).toBe(true);
    const counts = await freeCounts(page);
    expect(counts.total).toBeGreaterThan(counts.header);
    await page.screenshot({ path: "test-results/screens/availability-fleet.png" });

    // The booking form: the host list counts it as in use, the picker's tile says whose work runs there.
    await page.goto(`/reserve`);
    const hostSelect = page.getByLabel("Host");
    const option = hostSelect.locator("option", { hasText: busy.host });
    await expect(option).toHaveText(new RegExp(`^${busy.host} — \\d+ of \\d+ free, \\d+ in use without a booking`));
    await hostSelect.selectOption(busy.host);
    const tile = page.getByRole("button", { name: new RegExp(`^GPU ${busy.index}, in use without a booking`) });
    await expect(tile).toHaveAttribute("data-kind", "busy");
    await expect(tile.getByTestId("picker-note")).toContainText(busy.owners[0]);

    // Picked: the warning shows before submit, naming the owner.
    await tile.click();
    const warning = page.getByTestId("busy-notice");
    await expect(warning).toContainText("Someone else's work runs on this GPU without a booking");
    await expect(warning).toContainText(busy.owners[0]);
    await page.getByText("1 hour", { exact: true }).click();
    await page.getByRole("textbox", { name: "Purpose" }).fill("availability e2e");
    await page.screenshot({ path: "test-results/screens/availability-reserve.png", fullPage: true });

    // Submitted without choosing "book anyway": the server refuses (409 gpu_in_use) and the form names whose work it is.
    const refused = page.waitForResponse((response) => response.url().endsWith("/api/v1/reservations") && response.request().method() === "POST");
    await page.getByRole("button", { name: "Book", exact: true }).click();
    expect((await refused).status()).toBe(409);
    await expect(warning).toContainText(`Not booked: someone else's work runs on this GPU`);
    await expect(warning).toContainText(`GPU ${busy.index} on ${busy.host}`);
    await expect(warning).toContainText(busy.owners[0]);
    await expect(page.getByRole("heading", { name: /^Booked:/ })).toHaveCount(0);

    // "Book anyway" books it (with allowBusy).
    const accepted = page.waitForResponse((response) => response.url().endsWith("/api/v1/reservations") && response.request().method() === "POST");
    await warning.getByRole("button", { name: "Book anyway" }).click();
    const answer = await accepted;
    expect(answer.status()).toBe(201);
    bookingIds.push(((await answer.json()) as { id: string }).id);
    expect(JSON.parse(answer.request().postData() ?? "{}")).toMatchObject({ allowBusy: true, gpus: [busy.index], host: busy.host });
    await expect(page.getByRole("heading", { name: `Booked: GPU ${busy.index} on ${busy.host}` })).toBeVisible();
  } finally {
    for (const id of bookingIds) await page.request.post(`/api/v1/reservations/${id}/release`, { headers: { origin: E2E_ORIGIN } });
  }
});

test("'Any N GPUs' starts on any host, whatever host was picked for specific GPUs", async ({ page }) => {
  await signIn(page, await createUser("anyn"));
  await page.goto("/reserve?host=sim-a100-a&gpus=2");
  const hostSelect = page.getByLabel("Host");
  await expect(hostSelect).toHaveValue("sim-a100-a");
  await page.getByRole("radio", { name: "Any N GPUs" }).click();
  await expect(hostSelect).toHaveValue("");
  await expect(hostSelect.locator("option:checked")).toHaveText("Any host");
  // Back to picking GPUs: a host again, since specific GPUs belong to one.
  await page.getByRole("radio", { name: "Pick GPUs" }).click();
  await expect(hostSelect).not.toHaveValue("");
});

test("the schedule shows a GPU busy without a booking as busy now", async ({ page }) => {
  const user = await createUser("sched");
  await signIn(page, user);
  const busy = await findBusyGpu(page, user.username);
  await page.goto("/schedule?days=1");
  const row = page.getByTestId(`schedule-row-${busy.host}-${busy.index}`);
  const band = row.getByTestId("schedule-busy-now");
  await expect(band).toHaveAttribute("data-state", "unbooked_use");
  await expect(band).toHaveAccessibleName(new RegExp(`In use, not booked now: .*${busy.owners[0]}`));
  await expect(page.getByTestId(`schedule-gpu-${busy.host}-${busy.index}`)).toHaveAttribute("data-state", "unbooked_use");
  await page.screenshot({ path: "test-results/screens/availability-schedule.png", fullPage: true });
});

test("a GPU that holds memory with no process listed is in use, not free: the card says why and the form does not offer it", async ({ page, baseURL }) => {
  test.setTimeout(120_000);
  // As on a GPU node whose jobs run in another PID namespace: 40 GiB held, 87 % busy, nvidia-smi lists no process.
  const hostName = uniqueHostName("e2e-unseen");
  const hostToken = await addHost(hostName);
  const agent = startAgent(["--server", baseURL!, "--nvidia-smi", fakeNvidiaSmi, "--host-name", hostName], {
    GPUDESK_AGENT_TOKEN: hostToken,
    FAKE_NVIDIA_SMI_DIR: ownH200Fixture({ memoryUsedMiB: 40_960, utilizationPct: 87 }),
    FAKE_NVIDIA_SMI_VARY: "0",
  });
  try {
    await signIn(page, await createUser("unseen"));
    await page.goto("/");
    const card = page.getByRole("article", { name: `GPU 0 on ${hostName}` });
    await expect(card.getByTestId("gpu-state")).toHaveAttribute("data-state", "unbooked_use", { timeout: 20_000 });
    await expect(card.getByTestId("gpu-booker")).toHaveText("In use — no process visible (40 GiB held)");
    await expect(card.getByTestId("gpu-unseen")).toHaveText("No process visible: a job in another container or PID namespace holds it");
    await expect(card.getByRole("link", { name: new RegExp(`^Book GPU 0 on ${hostName}`) })).toHaveAttribute("data-kind", "busy");
    await card.scrollIntoViewIfNeeded();
    await card.screenshot({ path: "test-results/screens/availability-unseen-card.png" });

    // The GPU page says it too, where the process table would be.
    await card.getByRole("link", { name: `GPU 0 on ${hostName}, details` }).click();
    await expect(page.getByTestId("gpu-unseen")).toContainText("In use — no process visible (40 GiB held)");
    await expect(page.getByTestId("gpu-state").first()).toHaveAttribute("data-unseen", "true");
    await page.screenshot({ path: "test-results/screens/availability-unseen-gpu-page.png", fullPage: true });

    // The wall display: the tile is unbooked, and says there is no process to name.
    await page.goto(`/display?hosts=${hostName}`);
    const wallTile = page.getByTestId("display-tile");
    await expect(wallTile).toHaveAttribute("data-state", "unbooked_use");
    await expect(wallTile).toContainText("no process visible");
    await wallTile.screenshot({ path: "test-results/screens/availability-unseen-display-tile.png" });

    // The booking form: the host has no free GPU, and the tile says why.
    await page.goto("/reserve");
    const hostSelect = page.getByLabel("Host");
    await expect(hostSelect.locator("option", { hasText: hostName })).toHaveText(`${hostName} — 0 of 1 free, 1 in use without a booking`);
    await hostSelect.selectOption(hostName);
    const tile = page.getByRole("button", { name: /^GPU 0, in use without a booking/ });
    await expect(tile).toHaveAttribute("data-kind", "busy");
    await expect(tile.getByTestId("picker-note")).toHaveText("in use without a booking: no process visible (40 GiB held)");
    await tile.click();
    await expect(page.getByTestId("busy-notice")).toContainText(`GPU 0 on ${hostName}: no process visible (40 GiB held)`);

    // "Any N GPUs" on that host finds none.
    const any = await page.request.post("/api/v1/reservations", {
      headers: { origin: E2E_ORIGIN },
      data: { host: hostName, count: 1, durationMinutes: 30, purpose: "unseen e2e" },
    });
    expect(any.status()).toBe(409);
    expect(((await any.json()) as { error: { message: string } }).error.message).toContain("no process visible (40 GiB held)");
  } finally {
    agent.kill("SIGKILL");
  }
});
