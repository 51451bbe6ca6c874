import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it, vi } from "vitest";
import { isTestFile, sourceFiles } from "@/scripts/import-graph";
import { EVENT_CHANNELS, eventChannel } from "@/server/core/event-bus";

const root = fileURLToPath(new URL("../..", import.meta.url));

describe("the event bus", () => {
  it("keeps every channel's listeners in one globalThis slot, so a second copy of a module (Next's route bundle) reaches them", () => {
    const heard = vi.fn();
    const stop = eventChannel<{ n: number }>("unitsFreed").on(heard);
    try {
      // A channel opened again, as a route bundle's own copy of the announcing module does.
      eventChannel<{ n: number }>("unitsFreed").emit({ n: 1 });
      expect(heard).toHaveBeenCalledWith({ n: 1 });
      const slots = Object.keys(globalThis).filter((key) => key.startsWith("__gpudesk") && /Listeners|Notices|Events/.test(key));
      expect(slots).toEqual(["__gpudeskEvents"]);
    } finally {
      stop();
    }
    eventChannel<{ n: number }>("unitsFreed").emit({ n: 2 });
    expect(heard).toHaveBeenCalledTimes(1);
  });

  it("tells every listener when one of them throws", () => {
    const second = vi.fn();
    const stops = [
      eventChannel<void>("minutesStored").on(() => {
        throw new Error("boom");
      }),
      eventChannel<void>("minutesStored").on(second),
    ];
    try {
      eventChannel<void>("minutesStored").emit();
      expect(second).toHaveBeenCalledTimes(1);
    } finally {
      for (const stop of stops) stop();
    }
  });

  it("lists every channel the server opens, each opened by one module", () => {
    const opened = new Map<string, string[]>();
    for (const file of sourceFiles(root, ["server"]).filter((file) => !isTestFile(file))) {
      for (const match of readFileSync(`${root}/${file}`, "utf8").matchAll(/eventChannel<[^(]*>\("(\w+)"\)/g)) opened.set(match[1], [...(opened.get(match[1]) ?? []), file]);
    }
    expect([...opened.keys()].sort()).toEqual(Object.keys(EVENT_CHANNELS).sort());
    expect([...opened].filter(([, files]) => files.length !== 1)).toEqual([]);
  });
});
