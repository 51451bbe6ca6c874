import os from "node:os";
import { createInterface } from "node:readline/promises";
import { type Command, Option } from "commander";
import { formatDurationMinutes } from "@/lib/domain/booking-window";
import type { MultiNodeBookingView, PolicyView, BookingView } from "@/lib/domain/booking-types";
import { callApi } from "@/host/cli-client/api-client";
import { type ClientConfig, loadClientConfig, parseClientEnv } from "@/host/cli-client/client-config";
import { UsageError } from "@/host/cli-client/cli-errors";
import { unitsPhrase } from "@/lib/domain/gpu-availability";
import { bookedLine, exportLines, type FleetView, formatIdleLines, formatBooking, formatBookingList, formatStatus, formatTeamUsage, formatTime, formatWhois, releasedLine } from "@/host/cli-client/format-output";
import type { TeamUsageReport } from "@/lib/domain/team-usage";
import { localGpuHost, pickLocalBooking, sameHost } from "@/host/cli-client/local-booking";
import { runLogin } from "@/host/cli-client/login-command";
import { endFields, parseCount, parseDurationMinutes, parseGpuList, parseMemoryMiB, parseSliceList } from "@/host/cli-client/parse-args";
import { runChild } from "@/host/cli-client/run-child";
import { asksForNodes, formatMultiNodeBooking, type MultiNodeOptions, multiNodeRequest, partOnThisHost, rankEnvironments } from "@/host/cli-client/multi-node-commands";
import { bookNodesOrWait, bookOrWait } from "@/host/cli-client/wait-for-grant";
import { formatSeries, parseWeekdays, parseWeeks, type SeriesAnswer } from "@/host/cli-client/weekly";

/**
 * The people-facing commands of `gpudesk`: they talk to a gpudesk server
 * over its REST API with a personal token, from any machine.
 */

interface BookingOptions {
  wait?: boolean;
  count?: string;
  host?: string;
  gpus?: string;
  minFreeMem?: string;
  for?: string;
  until?: string;
  purpose?: string;
  allowBusy?: boolean;
  team?: string;
  slices?: string;
  slice?: string;
  sliceMem?: string;
  perSlice?: boolean;
}

const PURPOSE_MAX = 200;

async function client(): Promise<ClientConfig> {
  return loadClientConfig(parseClientEnv(process.env));
}

function write(text: string): void {
  process.stdout.write(text);
}

/** When, how long, what for and for which team: the fields of every booking body, one host or across nodes. */
function whenAndWhy(options: BookingOptions, defaultPurpose: string, now: Date) {
  return { ...endFields(options, now), purpose: (options.purpose ?? defaultPurpose).slice(0, PURPOSE_MAX), ...(options.team !== undefined ? { team: options.team } : {}) };
}

/** The POST /api/v1/reservations body for the booking flags. */
export function bookingRequest(options: BookingOptions, defaultPurpose: string, now: Date): Record<string, unknown> {
  const common = whenAndWhy(options, defaultPurpose, now);
  if (options.slices !== undefined) {
    if (!options.host) throw new UsageError("--slices needs --host: the slices of which host?");
    if (options.gpus !== undefined || options.count !== undefined) throw new UsageError("Give --slices alone, without --gpus or -n");
    return { host: options.host, slices: parseSliceList(options.slices), ...common, ...(options.allowBusy ? { allowBusy: true } : {}) };
  }
  if (options.slice !== undefined || options.sliceMem !== undefined) {
    if (options.gpus !== undefined) throw new UsageError("--slice applies to -n, not to --gpus");
    const profile = options.slice === undefined || options.slice === "any" ? {} : { profile: options.slice };
    const memory = options.sliceMem !== undefined ? { minMemoryMiB: parseMemoryMiB(options.sliceMem) } : {};
    return { count: parseCount(options.count ?? "1"), slice: { ...profile, ...memory }, ...(options.host ? { host: options.host } : {}), ...common };
  }
  if (options.gpus !== undefined) {
    if (!options.host) throw new UsageError("--gpus needs --host: the GPUs of which host?");
    if (options.count !== undefined) throw new UsageError("Give -n or --gpus, not both");
    if (options.minFreeMem !== undefined) throw new UsageError("--min-free-mem applies to -n, not to --gpus");
    return { host: options.host, gpus: parseGpuList(options.gpus), ...common, ...(options.allowBusy ? { allowBusy: true } : {}) };
  }
  if (options.allowBusy) throw new UsageError("--allow-busy applies to --gpus: -n always picks free, idle GPUs");
  return {
    count: parseCount(options.count ?? "1"),
    ...(options.host ? { host: options.host } : {}),
    ...(options.minFreeMem !== undefined ? { minFreeMemoryMiB: parseMemoryMiB(options.minFreeMem) } : {}),
    ...common,
  };
}

/**
 * `gpudesk run` without --for or --until books until the command ends: the
 * booking is released when it exits, so its length only bounds a command
 * that never does; the policy's longest booking is that bound.
 */
export function untilCommandEnds<T extends BookingOptions>(options: T, maxDurationMinutes: number): { options: T; bounded: boolean } {
  if (options.for !== undefined || options.until !== undefined) return { options, bounded: false };
  return { options: { ...options, for: `${maxDurationMinutes}m` }, bounded: true };
}

/** The active booking `gpudesk release` means without an id: the only one on this host, or the one the person picks from a list. */
async function pickReleaseTarget(config: ClientConfig): Promise<string> {
  const { reservations: bookings } = await callApi<{ reservations: BookingView[] }>(config, "GET", "/api/v1/reservations?state=current");
  const hostname = os.hostname();
  const picked = pickLocalBooking(bookings, hostname);
  if (picked === null) throw new UsageError(`You have no active reservation on ${hostname}: give its id (gpudesk list shows them)`);
  if (!Array.isArray(picked)) return picked.id;
  const choices = bookings.filter((booking) => picked.includes(booking.id));
  if (!process.stdin.isTTY) throw new UsageError(`You have several active reservations on ${hostname}: give one of ${picked.join(", ")}`);
  const lines = choices.map((booking, i) => `  ${i + 1}) ${booking.id}  ${unitsPhrase(booking.gpus)}  until ${formatTime(booking.endsAt)}  ${booking.purpose}`);
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await prompt.question(`You have ${choices.length} active reservations on ${hostname}:\n${lines.join("\n")}\nRelease which (1-${choices.length})? `);
    const chosen = choices[Number(answer.trim()) - 1];
    if (!/^\d+$/.test(answer.trim()) || !chosen) throw new UsageError(`"${answer.trim()}" is none of 1-${choices.length}: nothing released`);
    return chosen.id;
  } finally {
    prompt.close();
  }
}

function bookingOptions(command: Command): Command {
  return command
    .option("-n, --count <n>", "how many GPUs, picked by the server on one host (default 1)")
    .option("--host <host>", "book on this host")
    .option("--gpus <list>", "these GPU indices of --host, e.g. 0,1")
    .option("--min-free-mem <size>", "with -n: GPUs with at least this much free memory now, e.g. 40G")
    .option("--for <duration>", "how long, e.g. 90m, 4h, 2d (run: until the command ends when neither --for nor --until is given)")
    .option("--until <time>", "until this time: 18:00 (local) or 2026-11-30T18:00:00Z")
    .option("--purpose <text>", "what the GPUs are for, shown to the team")
    .option("--team <team>", "the team the booking is for (default: your accounting team); its limits apply")
    .option("--allow-busy", "with --gpus: book even though someone else's processes run there now (after agreeing with them)")
    .option("--slices <list>", "these MIG slices of --host as GPU:MIG device, e.g. 0:1,0:2")
    .option("--slice <profile>", "with -n: MIG slices instead of GPUs, each at least this profile (e.g. 3g.40gb, or any)")
    .option("--slice-mem <size>", "with -n: MIG slices with at least this much memory, e.g. 20G")
    .option("--wait", "when the GPUs are taken, wait in the queue until they are granted");
}

/** Where this machine stands in the fleet: the gpudesk host it is (its agent reports this hostname), and the simulated hosts. */
export interface HostsHere {
  local: string | null;
  simulated: string[];
}

async function hostsHere(config: ClientConfig): Promise<HostsHere> {
  const fleet = await callApi<FleetView>(config, "GET", "/api/v1/fleet");
  return {
    local: localGpuHost(
      fleet.hosts.map((host) => host.name),
      os.hostname(),
    ),
    simulated: fleet.hosts.filter((host) => host.simulated).map((host) => host.name),
  };
}

/** `reserve` and `run` on a GPU host book there unless --host says otherwise. */
export function withLocalHost<T extends BookingOptions>(options: T, localHost: string | null): T {
  return options.host === undefined && localHost !== null ? { ...options, host: localHost } : options;
}

/**
 * `gpudesk run` starts the command on this machine, so it books only here:
 * a booking of another host would hand this machine's GPUs of the same
 * indices to the command, which may be someone else's. One line, no booking.
 * A simulated host has no GPUs to take from anyone: the demo fleet's hosts
 * may be booked from any machine.
 */
export function checkRunHost(options: BookingOptions, hosts: HostsHere, hostname: string): void {
  const simulated = (name: string) => hosts.simulated.some((candidate) => sameHost(candidate, name));
  if (options.host !== undefined) {
    if ((hosts.local !== null && sameHost(options.host, hosts.local)) || simulated(options.host)) return;
    throw new UsageError(
      `run starts the command here, on ${hosts.local ?? hostname}, not on ${options.host}: run it on ${options.host}, or book with "gpudesk reserve --host ${options.host}"`,
    );
  }
  if (hosts.local !== null || hosts.simulated.length > 0) return;
  throw new UsageError(
    `run starts the command here, on ${hostname}, which is no GPU host of this gpudesk server: book with "gpudesk reserve --host HOST" and run the command on that host`,
  );
}

/** After booking "any host" from a machine that is no GPU host: the server may only have picked a simulated host. */
export function bookedHostRunsHere(bookedHost: string, hosts: HostsHere): boolean {
  return (hosts.local !== null && sameHost(bookedHost, hosts.local)) || hosts.simulated.some((name) => sameHost(name, bookedHost));
}

/** How often a `gpudesk run` in progress asks about its booking's idle standing. */
const IDLE_WATCH_MS = 60_000;

/**
 * While `gpudesk run` runs its command: tells stderr once when the booking's
 * idle release is announced, and when it came (the command goes on: nothing is killed).
 */
function watchIdle(config: ClientConfig, id: string): () => void {
  let told: string | null = null;
  const look = async () => {
    try {
      const booking = await callApi<BookingView>(config, "GET", `/api/v1/reservations/${encodeURIComponent(id)}`);
      const idle = booking.idle;
      const phase = idle?.phase ?? null;
      if (!idle || phase === told || phase === "idle") return;
      told = phase;
      const line = formatIdleLines([booking]).trim();
      if (line) process.stderr.write(`gpudesk: ${line}\n`);
    } catch {
      // The server may be away for a moment; the next look will tell.
    }
  };
  const timer = setInterval(() => void look(), IDLE_WATCH_MS);
  timer.unref();
  return () => clearInterval(timer);
}

async function release(config: ClientConfig, id: string): Promise<BookingView> {
  return callApi<BookingView>(config, "POST", `/api/v1/reservations/${encodeURIComponent(id)}/release`);
}

export function registerClientCommands(program: Command): void {
  program
    .command("login")
    .description("store the server URL and your personal token (in ~/.config/gpudesk, owner-only)")
    .option("--url <url>", "the gpudesk server, e.g. http://gpudesk.lab:3000 (asked when absent)")
    .action(async (options: { url?: string }) => runLogin(parseClientEnv(process.env), options));

  program
    .command("status")
    .description("the fleet: host, GPU, model, utilization, memory, state, booked by, until")
    .option("--json", "print the server's snapshot as JSON")
    .action(async (options: { json?: boolean }) => {
      const config = await client();
      const snapshot = await callApi<FleetView>(config, "GET", "/api/v1/fleet");
      if (options.json) return write(`${JSON.stringify(snapshot, null, 2)}\n`);
      // Your own bookings that idle release speaks of, under the table.
      const { reservations: bookings } = await callApi<{ reservations: BookingView[] }>(config, "GET", "/api/v1/reservations?state=current");
      write(formatStatus(snapshot, Date.now()) + formatIdleLines(bookings));
    });

  program
    .command("whois")
    .description("who holds a GPU or a MIG slice, who runs on it and since when")
    .argument("<host>", "host name")
    .argument("<unit>", 'GPU index ("2") or MIG slice ("0:2", MIG device 2 of GPU 0)')
    .action(async (hostName: string, gpu: string) => {
      if (!/^\d+(:\d+)?$/.test(gpu)) throw new UsageError(`"${gpu}" is not a GPU index ("2") or a MIG slice ("0:2")`);
      const snapshot = await callApi<FleetView>(await client(), "GET", "/api/v1/fleet");
      const text = formatWhois(snapshot, hostName, gpu.replace(/^0+(\d)/, "$1").replace(/:0+(\d)/, ":$1"), Date.now());
      if (!text) throw new UsageError(`No GPU ${gpu} on ${hostName}${gpu.includes(":") ? " (a MIG slice is GPU:DEVICE, as gpudesk status lists it)" : ""}`);
      write(text);
    });

  bookingOptions(program.command("reserve").description("book GPUs and print the reservation and its launch settings"))
    .option("--nodes <n>", "book across this many nodes, as one booking (with --gpus-per-node)")
    .option("--gpus-per-node <n>", "with --nodes: GPUs on each node")
    .option("--model <model>", "with --nodes: GPUs of this model, e.g. H100")
    .option("--part <host:gpus>", "across nodes on hosts you name, once per node (node 0 first): HOST:N for N GPUs there, HOST:0,1 for those GPUs", (value: string, previous: string[] = []) => [...previous, value])
    .option("--replace-part <id>", "move this node of a booking across nodes to --host, or to the spare gpudesk offers")
    .option("--weekly <days>", "repeat weekly on these days at the same time of day, e.g. mon,wed or mon-fri (with --weeks; one host or across nodes)")
    .option("--weeks <n>", "with --weekly: for this many weeks (1 to 12)")
    .option("--json", "print the reservation as JSON")
    .action(async (given: BookingOptions & MultiNodeOptions & { json?: boolean; replacePart?: string; weekly?: string; weeks?: string }) => {
      const config = await client();
      if (given.weeks !== undefined && given.weekly === undefined) throw new UsageError("--weeks goes with --weekly: on which days? e.g. --weekly mon,wed");
      if (given.weekly !== undefined) {
        if (given.wait) throw new UsageError("--weekly books what is free and lists the occurrences it cannot; it does not wait in the queue (leave out --wait)");
        if (given.replacePart !== undefined) throw new UsageError("--weekly makes new bookings; --replace-part moves a node of one");
        const weekdays = parseWeekdays(given.weekly);
        const weeks = parseWeeks(given.weeks);
        const first = asksForNodes(given)
          ? multiNodeRequest(given, whenAndWhy(given, "booked with gpudesk reserve --weekly", new Date()))
          : bookingRequest(given.host === undefined ? withLocalHost(given, (await hostsHere(config)).local) : given, "booked with gpudesk reserve --weekly", new Date());
        const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
        const series = await callApi<SeriesAnswer>(config, "POST", "/api/v1/reservations/recurring", { booking: first, weekdays, weeks, timeZone });
        write(given.json ? `${JSON.stringify(series, null, 2)}\n` : formatSeries(series, weekdays, weeks));
        if (series.created.length === 0) process.exitCode = 1;
        return;
      }
      if (given.replacePart !== undefined) {
        const path = `/api/v1/reservations/${encodeURIComponent(given.replacePart)}/replace-part`;
        const booking = await callApi<MultiNodeBookingView>(config, "POST", path, given.host !== undefined ? { host: given.host } : {});
        write(given.json ? `${JSON.stringify(booking, null, 2)}\n` : formatMultiNodeBooking(booking));
        return;
      }
      if (asksForNodes(given)) {
        const body = multiNodeRequest(given, whenAndWhy(given, "booked with gpudesk reserve", new Date()));
        const booking = await bookNodesOrWait(config, body, Boolean(given.wait));
        write(given.json ? `${JSON.stringify(booking, null, 2)}\n` : formatMultiNodeBooking(booking));
        return;
      }
      const options: BookingOptions & { json?: boolean } = given.host === undefined ? withLocalHost(given, (await hostsHere(config)).local) : given;
      if (given.host === undefined && options.host !== undefined) process.stderr.write(`gpudesk: booking on this machine, ${options.host} (--host books elsewhere)\n`);
      const booking = await bookOrWait(config, bookingRequest(options, "booked with gpudesk reserve", new Date()), Boolean(options.wait));
      write(options.json ? `${JSON.stringify(booking, null, 2)}\n` : formatBooking(booking));
    });

  program
    .command("env")
    .description('print export lines for a reservation: eval "$(gpudesk env)"')
    .argument("[id]", "reservation id (default: your active reservation on this host)")
    .action(async (id: string | undefined) => {
      const config = await client();
      if (id) {
        write(exportLines(await callApi<BookingView>(config, "GET", `/api/v1/reservations/${encodeURIComponent(id)}`)));
        return;
      }
      const { reservations: bookings } = await callApi<{ reservations: BookingView[] }>(config, "GET", "/api/v1/reservations?state=current");
      const hostname = os.hostname();
      const picked = pickLocalBooking(bookings, hostname);
      if (picked === null) throw new UsageError(`You have no active reservation on ${hostname}: give its id, or book with gpudesk reserve`);
      if (Array.isArray(picked)) throw new UsageError(`You have several active reservations on ${hostname}: give one of ${picked.join(", ")}`);
      write(exportLines(picked));
    });

  bookingOptions(
    program
      .command("run")
      .description("book GPUs, run a command on them and release them when it ends")
      .usage("[options] -- <command...>")
      .argument("<command...>", "the command and its arguments, after --")
      .option("--per-slice", "on several MIG slices: start the command once per slice (CUDA shows a process one MIG device)")
      .option("--booking <id>", "run on this machine's part of a booking (across nodes: this node's GPUs, rank and rendezvous); books nothing, releases nothing")
      .option("--host-name <name>", "with --booking: this machine's name in gpudesk (default: its hostname)")
      .option("--per-gpu", "with --booking: start the command once per GPU of this node, each with RANK, LOCAL_RANK and LOCAL_WORLD_SIZE (default: once, for torchrun)"),
  ).action(async (command: string[], given: BookingOptions & { booking?: string; hostName?: string; perGpu?: boolean }) => {
    if (given.booking !== undefined) {
      process.exit(await runOnBookedNode(await client(), given.booking, given.hostName ?? os.hostname(), command, Boolean(given.perGpu)));
    }
    if (given.perGpu) throw new UsageError("--per-gpu goes with --booking ID (a node of a booking across nodes)");
    checkSliceRun(given);
    const config = await client();
    const hosts = await hostsHere(config);
    checkRunHost(given, hosts, os.hostname());
    const policy = given.for === undefined && given.until === undefined ? await callApi<PolicyView>(config, "GET", "/api/v1/policies") : null;
    const { options, bounded } = untilCommandEnds(withLocalHost(given, hosts.local), policy?.maxDurationMinutes ?? 0);
    if (bounded) {
      process.stderr.write(`gpudesk: booking until the command ends (at most ${formatDurationMinutes(policy?.maxDurationMinutes ?? 0)}, the longest booking allowed)\n`);
    }
    const booking = await bookOrWait(config, bookingRequest(options, `gpudesk run: ${command.join(" ")}`, new Date()), Boolean(options.wait));
    if (!bookedHostRunsHere(booking.host.name, hosts)) {
      await release(config, booking.id);
      throw new UsageError(`the server picked ${booking.host.name}, but the command would run here on ${os.hostname()}: released ${booking.id}; give --host`);
    }
    process.stderr.write(bookedLine(booking));
    if (booking.state === "scheduled") process.stderr.write(`gpudesk: the booking starts at ${formatTime(booking.startsAt)}\n`);
    const stopWatching = watchIdle(config, booking.id);
    const code = await runOnBooking(command, booking);
    stopWatching();
    try {
      await release(config, booking.id);
      process.stderr.write(`gpudesk: released ${booking.id}\n`);
    } catch (error) {
      process.stderr.write(`gpudesk: could not release ${booking.id}: ${error instanceof Error ? error.message : String(error)}\n`);
    }
    process.exit(code);
  });

  program
    .command("usage")
    .description("GPU-hours per team and person: booked (what the quotas count) and used without a booking (admins; a team lead for their team)")
    .option("--team <team>", "only this team")
    .option("--since <span>", "how far back, e.g. 24h, 7d, 30d", "7d")
    .option("--json", "print the report as JSON")
    .action(async (options: { team?: string; since: string; json?: boolean }) => {
      const query = new URLSearchParams({ since: options.since, ...(options.team ? { team: options.team } : {}) });
      const report = await callApi<TeamUsageReport>(await client(), "GET", `/api/v1/usage/teams?${query}`);
      write(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatTeamUsage(report));
    });

  program
    .command("list")
    .description("your current and recent reservations")
    .addOption(new Option("--state <state>", "which reservations").choices(["current", "past", "all"]).default("current"))
    .option("--json", "print them as JSON")
    .action(async (options: { state: string; json?: boolean }) => {
      const { reservations: bookings } = await callApi<{ reservations: BookingView[] }>(await client(), "GET", `/api/v1/reservations?state=${options.state}`);
      write(options.json ? `${JSON.stringify(bookings, null, 2)}\n` : formatBookingList(bookings));
    });

  program
    .command("release")
    .description("give a reservation's GPUs back now")
    .argument("[id]", "reservation id (default: your active reservation on this host; asks when there are several)")
    .action(async (given: string | undefined) => {
      const config = await client();
      const id = given ?? (await pickReleaseTarget(config));
      const booking = await release(config, id);
      write(releasedLine(booking));
    });

  program
    .command("keep")
    .description("keep an idle reservation: its idle clock starts again (as often as the policy allows)")
    .argument("<id>", "reservation id")
    .action(async (id: string) => {
      const booking = await callApi<BookingView>(await client(), "POST", `/api/v1/reservations/${encodeURIComponent(id)}/keep`);
      write(`Kept ${booking.id}: its idle clock starts again now.\n`);
    });

  program
    .command("extend")
    .description("make a reservation last longer")
    .argument("<id>", "reservation id")
    .requiredOption("--for <duration>", "how much longer, e.g. 30m, 2h")
    .action(async (id: string, options: { for: string }) => {
      const booking = await callApi<BookingView>(await client(), "PATCH", `/api/v1/reservations/${encodeURIComponent(id)}`, {
        addMinutes: parseDurationMinutes(options.for),
      });
      write(formatBooking(booking));
    });
}

/**
 * `gpudesk run` on MIG slices: CUDA shows a process one MIG device at most,
 * so one command on several slices would use one of them and waste the
 * rest. Refused before anything is booked, unless asked to start the
 * command once per slice.
 */
export function checkSliceRun(options: BookingOptions): void {
  if (options.perSlice) return;
  const count = options.slices !== undefined ? parseSliceList(options.slices).length : options.slice !== undefined || options.sliceMem !== undefined ? parseCount(options.count ?? "1") : 1;
  if (count > 1) {
    throw new UsageError(`CUDA shows a process one MIG device, so one command cannot use ${count} slices: add --per-slice to start it once per slice, or book one slice`);
  }
}

/** The environment of each process the command runs as: one for GPUs or one slice, one per slice with --per-slice. */
export function runEnvironments(booking: Pick<BookingView, "launch">): Record<string, string>[] {
  const claim = { GPUDESK_RESERVATION: booking.launch.reservationValue ?? "" };
  const slices = booking.launch.slices;
  if (slices && slices.length > 0) return slices.map((slice) => ({ CUDA_VISIBLE_DEVICES: slice.uuid, ...claim }));
  // `<id>.<proof>`: what makes the job's processes count as this booking's (lib/domain/booking-claim.ts).
  return [{ CUDA_DEVICE_ORDER: booking.launch.cudaDeviceOrder, CUDA_VISIBLE_DEVICES: booking.launch.cudaVisibleDevices, ...claim }];
}

/**
 * `gpudesk run --booking ID`: the command runs with this machine's part of
 * the booking (found by the host name), as that node of the job. The
 * booking outlives the command: the other nodes may still run.
 */
async function runOnBookedNode(config: ClientConfig, bookingId: string, hostname: string, command: string[], perGpu: boolean): Promise<number> {
  const booking = await callApi<BookingView>(config, "GET", `/api/v1/reservations/${encodeURIComponent(bookingId)}`);
  const here = partOnThisHost(booking, hostname);
  const part = here.id === booking.id ? booking : await callApi<BookingView>(config, "GET", `/api/v1/reservations/${encodeURIComponent(here.id)}`);
  const envs = rankEnvironments(part, perGpu);
  const env = envs[0];
  const node = part.launch.node;
  const ranks = env.RANK === undefined ? "" : `, rank${envs.length === 1 ? ` ${env.RANK}` : `s ${envs[0].RANK}–${envs[envs.length - 1].RANK}`} of ${env.WORLD_SIZE}`;
  process.stderr.write(`gpudesk: ${here.hostName} GPUs ${env.CUDA_VISIBLE_DEVICES}${node ? `, node rank ${node.nodeRank} of ${node.nodeCount}${ranks}, rendezvous ${node.masterAddr}:${node.masterPort}` : ""} (${part.id})\n`);
  const codes = await Promise.all(envs.map((rankEnv) => runChild(command, rankEnv)));
  return codes.find((code) => code !== 0) ?? 0;
}

/** Runs the command once per environment, together; the first non-zero exit code is the answer. */
async function runOnBooking(command: string[], booking: BookingView): Promise<number> {
  const codes = await Promise.all(runEnvironments(booking).map((env) => runChild(command, env)));
  return codes.find((code) => code !== 0) ?? 0;
}
