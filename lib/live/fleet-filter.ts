import * as z from "zod";
import { GPU_STATES, type GpuReconciliation, type GpuState } from "@/lib/domain/attribution";
import type { LiveBooking, LiveGpu } from "@/lib/live/live";
import type { NamedPerson } from "@/lib/format/person-name";

/**
 * The fleet view's filter: which GPUs a person wants to see, kept in the
 * page's URL (`?host=…&state=free&q=…`) so that a link shows the same view.
 * Pure and isomorphic: the page, its tests and the bench use it alike.
 */

export interface FleetFilter {
  /** Host name, exactly. */
  host: string | null;
  /** GPU model (nvidia-smi's name), exactly. */
  model: string | null;
  state: GpuState | null;
  /** Username of the person holding the GPU's booking or running on it. */
  person: string | null;
  /** Free memory of at least this many GiB. */
  minFreeGiB: number | null;
  /** Words that must each appear in the host, GPU, model, a person or a command. */
  text: string;
}

export const EMPTY_FLEET_FILTER: FleetFilter = { host: null, model: null, state: null, person: null, minFreeGiB: null, text: "" };

/** A malformed or hostile URL value is dropped, never an error: the page shows more, not nothing. */
const param = (max: number) => z.string().trim().min(1).max(max).nullable().catch(null);
const filterParams = z.object({
  host: param(253),
  model: param(200),
  state: z.enum(GPU_STATES).nullable().catch(null),
  person: param(100),
  free: z.coerce.number().finite().min(0).max(100_000).nullable().catch(null),
  q: z.string().max(200).catch(""),
});

interface ParamsLike {
  get(name: string): string | null;
}

/** The filter a URL's query string describes. */
export function parseFleetFilter(params: ParamsLike): FleetFilter {
  const read = (name: string) => params.get(name);
  const parsed = filterParams.parse({
    host: read("host"),
    model: read("model"),
    state: read("state"),
    person: read("person"),
    free: read("free") || null,
    q: read("q") ?? "",
  });
  return { host: parsed.host, model: parsed.model, state: parsed.state, person: parsed.person, minFreeGiB: parsed.free, text: parsed.q };
}

/** The query string (without "?") for a filter, keeping any other parameter of `base`; empty values are left out. */
export function fleetFilterQuery(filter: FleetFilter, base = ""): string {
  const params = new URLSearchParams(base);
  const set = (name: string, value: string | null) => (value ? params.set(name, value) : params.delete(name));
  set("host", filter.host);
  set("model", filter.model);
  set("state", filter.state);
  set("person", filter.person);
  set("free", filter.minFreeGiB === null ? null : String(filter.minFreeGiB));
  set("q", filter.text.trim() ? filter.text : null);
  return params.toString();
}

export function isFilterActive(filter: FleetFilter): boolean {
  return Boolean(filter.host || filter.model || filter.state || filter.person || filter.minFreeGiB !== null || filter.text.trim());
}

/** What the filter looks at for one GPU. */
export interface GpuFacts {
  uuid: string;
  hostName: string;
  index: number;
  model: string;
  state: GpuState;
  freeMiB: number | null;
  /** The booking's person and everyone who runs on it (a process nobody is known for, by its login). */
  people: NamedPerson[];
  commands: string[];
  /** Lower-case text the words are looked for in. */
  haystack: string;
}

/** The facts of one GPU from what the page holds of it. */
export function gpuFacts(gpu: LiveGpu, state: GpuState, current: LiveBooking | null, reconciliation: GpuReconciliation | null | undefined): GpuFacts {
  const people: NamedPerson[] = [];
  const add = (person: NamedPerson) => {
    if (!people.some((known) => known.username === person.username)) people.push(person);
  };
  if (current) add(current.bookedBy);
  if (reconciliation) {
    for (const process of reconciliation.processes) {
      if (process.runner) add(process.runner);
      else if (process.login) add({ username: process.login, name: null });
    }
  } else {
    for (const process of gpu.processes) if (process.user) add({ username: process.user, name: null });
  }
  const commands = gpu.processes.map((process) => process.command ?? process.name);
  const freeMiB = gpu.memoryTotalMiB === null || gpu.memoryUsedMiB === null ? null : Math.max(0, gpu.memoryTotalMiB - gpu.memoryUsedMiB);
  const haystack = [gpu.hostName, gpu.uuid, gpu.name, ...people.flatMap((person) => [person.username, person.name ?? ""]), ...commands]
    .join("\n")
    .toLocaleLowerCase();
  return { uuid: gpu.uuid, hostName: gpu.hostName, index: gpu.index, model: gpu.name, state, freeMiB, people, commands, haystack };
}

/** Whether a GPU passes every criterion set; `ignoreState` for the counts per state, which show what each state would give. */
export function matchesFleetFilter(facts: GpuFacts, filter: FleetFilter, ignoreState = false): boolean {
  if (filter.host && facts.hostName !== filter.host) return false;
  if (filter.model && facts.model !== filter.model) return false;
  if (!ignoreState && filter.state && facts.state !== filter.state) return false;
  if (filter.person && !facts.people.some((person) => person.username === filter.person)) return false;
  if (filter.minFreeGiB !== null && (facts.freeMiB === null || facts.freeMiB < filter.minFreeGiB * 1024)) return false;
  return searchTerms(filter.text).every((term) => termMatches(term, facts));
}

type Term = { kind: "gpu"; index: number } | { kind: "slot"; host: string; index: number } | { kind: "word"; text: string };

/**
 * The search's words, with "gpu 3" and "node-a:3" read as one GPU each (the
 * index exactly, not GPU 30 as well); every other word is looked for as text.
 */
function searchTerms(text: string): Term[] {
  const words = text.toLocaleLowerCase().split(/\s+/).filter(Boolean);
  const terms: Term[] = [];
  for (let i = 0; i < words.length; i += 1) {
    const word = words[i];
    const glued = /^gpu#?(\d+)$/.exec(word);
    if (glued) terms.push({ kind: "gpu", index: Number(glued[1]) });
    else if (word === "gpu" && /^\d+$/.test(words[i + 1] ?? "")) terms.push({ kind: "gpu", index: Number(words[(i += 1)]) });
    else if (/^[^:]+:\d+$/.test(word)) terms.push({ kind: "slot", host: word.slice(0, word.lastIndexOf(":")), index: Number(word.slice(word.lastIndexOf(":") + 1)) });
    else terms.push({ kind: "word", text: word });
  }
  return terms;
}

function termMatches(term: Term, facts: GpuFacts): boolean {
  if (term.kind === "gpu") return facts.index === term.index;
  if (term.kind === "slot") return facts.index === term.index && facts.hostName.toLocaleLowerCase() === term.host;
  return facts.haystack.includes(term.text);
}

/** The choices the filter bar offers: every host, model and person the fleet shows now, sorted. */
export function filterChoices(facts: Iterable<GpuFacts>): { hosts: string[]; models: string[]; people: NamedPerson[] } {
  const hosts = new Set<string>();
  const models = new Set<string>();
  const people = new Map<string, NamedPerson>();
  for (const gpu of facts) {
    hosts.add(gpu.hostName);
    models.add(gpu.model);
    // A name the server knows wins over a bare login of the same person.
    for (const person of gpu.people) if (!people.get(person.username)?.name) people.set(person.username, person);
  }
  const byText = (a: string, b: string) => a.localeCompare(b, undefined, { numeric: true });
  return {
    hosts: [...hosts].sort(byText),
    models: [...models].sort(byText),
    people: [...people.values()].sort((a, b) => byText(a.name || a.username, b.name || b.username)),
  };
}
