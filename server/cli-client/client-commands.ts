import os from "node:os";
import { type Command, Option } from "commander";
import type { ReservationView } from "@/lib/reservation-types";
import { callApi } from "@/server/cli-client/api-client";
import { type ClientConfig, loadClientConfig, parseClientEnv } from "@/server/cli-client/client-config";
import { UsageError } from "@/server/cli-client/cli-errors";
import { exportLines, type FleetView, formatReservation, formatReservationList, formatStatus, formatTeamUsage, formatWhois } from "@/server/cli-client/format-output";
import type { TeamUsageReport } from "@/lib/team-usage";
import { localGpuHost, pickLocalReservation, sameHost } from "@/server/cli-client/local-reservation";
import { runLogin } from "@/server/cli-client/login-command";
import { endFields, parseCount, parseDurationMinutes, parseGpuList, parseMemoryMiB } from "@/server/cli-client/parse-args";
import { runChild } from "@/server/cli-client/run-child";
import { bookOrWait } from "@/server/cli-client/wait-for-grant";

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
}

const PURPOSE_MAX = 200;

async function client(): Promise<ClientConfig> {
  return loadClientConfig(parseClientEnv(process.env));
}

function write(text: string): void {
  process.stdout.write(text);
}

/** The POST /api/v1/reservations body for the booking flags. */
export function bookingRequest(options: BookingOptions, defaultPurpose: string, now: Date): Record<string, unknown> {
  const purpose = (options.purpose ?? defaultPurpose).slice(0, PURPOSE_MAX);
  const ends = endFields(options, now);
  const team = options.team !== undefined ? { team: options.team } : {};
  if (options.gpus !== undefined) {
    if (!options.host) throw new UsageError("--gpus needs --host: the GPUs of which host?");
    if (options.count !== undefined) throw new UsageError("Give -n or --gpus, not both");
    if (options.minFreeMem !== undefined) throw new UsageError("--min-free-mem applies to -n, not to --gpus");
    return { host: options.host, gpus: parseGpuList(options.gpus), ...ends, purpose, ...team, ...(options.allowBusy ? { allowBusy: true } : {}) };
  }
  if (options.allowBusy) throw new UsageError("--allow-busy applies to --gpus: -n always picks free, idle GPUs");
  return {
    count: parseCount(options.count ?? "1"),
    ...(options.host ? { host: options.host } : {}),
    ...(options.minFreeMem !== undefined ? { minFreeMemoryMiB: parseMemoryMiB(options.minFreeMem) } : {}),
    ...ends,
    purpose,
    ...team,
  };
}

function bookingOptions(command: Command): Command {
  return command
    .option("-n, --count <n>", "how many GPUs, picked by the server on one host (default 1)")
    .option("--host <host>", "book on this host")
    .option("--gpus <list>", "these GPU indices of --host, e.g. 0,1")
    .option("--min-free-mem <size>", "with -n: GPUs with at least this much free memory now, e.g. 40G")
    .option("--for <duration>", "how long, e.g. 90m, 4h, 2d")
    .option("--until <time>", "until this time: 18:00 (local) or 2026-11-30T18:00:00Z")
    .option("--purpose <text>", "what the GPUs are for, shown to the team")
    .option("--team <team>", "the team the booking is for (default: your accounting team); its limits apply")
    .option("--allow-busy", "with --gpus: book even though someone else's processes run there now (after agreeing with them)")
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

async function release(config: ClientConfig, id: string): Promise<ReservationView> {
  return callApi<ReservationView>(config, "POST", `/api/v1/reservations/${encodeURIComponent(id)}/release`);
}

export function registerClientCommands(program: Command): void {
  program
    .command("login")
    .description("store the server URL and your personal token (in ~/.config/gpudesk, owner-only)")
    .option("--url <url>", "the gpudesk server, e.g. http://gpudesk.lab:3000 (asked when absent)")
    .action(async (options: { url?: string }) => runLogin(parseClientEnv(process.env), options));

  program
    .command("status")
    .description("the fleet: host, GPU, model, utilization, memory, state, holder, until")
    .option("--json", "print the server's snapshot as JSON")
    .action(async (options: { json?: boolean }) => {
      const snapshot = await callApi<FleetView>(await client(), "GET", "/api/v1/fleet");
      write(options.json ? `${JSON.stringify(snapshot, null, 2)}\n` : formatStatus(snapshot, Date.now()));
    });

  program
    .command("whois")
    .description("who holds a GPU, who runs on it and since when")
    .argument("<host>", "host name")
    .argument("<gpu>", "GPU index")
    .action(async (hostName: string, gpu: string) => {
      if (!/^\d+$/.test(gpu)) throw new UsageError(`"${gpu}" is not a GPU index`);
      const snapshot = await callApi<FleetView>(await client(), "GET", "/api/v1/fleet");
      const text = formatWhois(snapshot, hostName, Number(gpu), Date.now());
      if (!text) throw new UsageError(`No GPU ${gpu} on ${hostName}`);
      write(text);
    });

  bookingOptions(program.command("reserve").description("book GPUs and print the reservation and its launch settings"))
    .option("--json", "print the reservation as JSON")
    .action(async (given: BookingOptions & { json?: boolean }) => {
      const config = await client();
      const options: BookingOptions & { json?: boolean } = given.host === undefined ? withLocalHost(given, (await hostsHere(config)).local) : given;
      if (given.host === undefined && options.host !== undefined) process.stderr.write(`gpudesk: booking on this machine, ${options.host} (--host books elsewhere)\n`);
      const reservation = await bookOrWait(config, bookingRequest(options, "booked with gpudesk reserve", new Date()), Boolean(options.wait));
      write(options.json ? `${JSON.stringify(reservation, null, 2)}\n` : formatReservation(reservation));
    });

  program
    .command("env")
    .description('print export lines for a reservation: eval "$(gpudesk env)"')
    .argument("[id]", "reservation id (default: your active reservation on this host)")
    .action(async (id: string | undefined) => {
      const config = await client();
      if (id) {
        write(exportLines(await callApi<ReservationView>(config, "GET", `/api/v1/reservations/${encodeURIComponent(id)}`)));
        return;
      }
      const { reservations } = await callApi<{ reservations: ReservationView[] }>(config, "GET", "/api/v1/reservations?state=current");
      const hostname = os.hostname();
      const picked = pickLocalReservation(reservations, hostname);
      if (picked === null) throw new UsageError(`You have no active reservation on ${hostname}: give its id, or book with gpudesk reserve`);
      if (Array.isArray(picked)) throw new UsageError(`You have several active reservations on ${hostname}: give one of ${picked.join(", ")}`);
      write(exportLines(picked));
    });

  bookingOptions(
    program
      .command("run")
      .description("book GPUs, run a command on them and release them when it ends")
      .usage("[options] -- <command...>")
      .argument("<command...>", "the command and its arguments, after --"),
  ).action(async (command: string[], given: BookingOptions) => {
    const config = await client();
    const hosts = await hostsHere(config);
    checkRunHost(given, hosts, os.hostname());
    const options = withLocalHost(given, hosts.local);
    const reservation = await bookOrWait(config, bookingRequest(options, `gpudesk run: ${command.join(" ")}`, new Date()), Boolean(options.wait));
    if (!bookedHostRunsHere(reservation.host.name, hosts)) {
      await release(config, reservation.id);
      throw new UsageError(`the server picked ${reservation.host.name}, but the command would run here on ${os.hostname()}: released ${reservation.id}; give --host`);
    }
    process.stderr.write(
      `gpudesk: ${reservation.host.name} GPU ${reservation.launch.cudaVisibleDevices} booked until ${reservation.endsAt} (${reservation.id})\n`,
    );
    if (reservation.state === "scheduled") process.stderr.write(`gpudesk: the booking starts at ${reservation.startsAt}\n`);
    const code = await runChild(command, {
      CUDA_DEVICE_ORDER: reservation.launch.cudaDeviceOrder,
      CUDA_VISIBLE_DEVICES: reservation.launch.cudaVisibleDevices,
      // `<id>.<proof>`: what makes the job's processes count as this booking's (lib/reservation-claim.ts).
      GPUDESK_RESERVATION: reservation.launch.reservationValue ?? "",
    });
    try {
      await release(config, reservation.id);
      process.stderr.write(`gpudesk: released ${reservation.id}\n`);
    } catch (error) {
      process.stderr.write(`gpudesk: could not release ${reservation.id}: ${error instanceof Error ? error.message : String(error)}\n`);
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
      const { reservations } = await callApi<{ reservations: ReservationView[] }>(await client(), "GET", `/api/v1/reservations?state=${options.state}`);
      write(options.json ? `${JSON.stringify(reservations, null, 2)}\n` : formatReservationList(reservations));
    });

  program
    .command("release")
    .description("give a reservation's GPUs back now")
    .argument("<id>", "reservation id")
    .action(async (id: string) => {
      const reservation = await release(await client(), id);
      write(`Released ${reservation.id} (${reservation.host.name} GPU ${reservation.launch.cudaVisibleDevices})\n`);
    });

  program
    .command("extend")
    .description("make a reservation last longer")
    .argument("<id>", "reservation id")
    .requiredOption("--for <duration>", "how much longer, e.g. 30m, 2h")
    .action(async (id: string, options: { for: string }) => {
      const reservation = await callApi<ReservationView>(await client(), "PATCH", `/api/v1/reservations/${encodeURIComponent(id)}`, {
        addMinutes: parseDurationMinutes(options.for),
      });
      write(formatReservation(reservation));
    });
}
