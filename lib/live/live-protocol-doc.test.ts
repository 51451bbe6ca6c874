import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { LIVE_FORMAT_VERSION } from "@/lib/live/live-wire";
import { RELAY_FORMAT_VERSION } from "@/server/cluster/relay-wire";

/**
 * docs/live-protocol.md is the wire contract people write clients against,
 * so the versions it names and the ones the code speaks must not drift apart
 * (issue 48, item 11: the page said 3 while the code spoke 4).
 */
const doc = readFileSync(path.join(__dirname, "../../docs/live-protocol.md"), "utf8");
const relayAt = doc.indexOf("\n## The relay between instances");
const framesOf = (text: string) => [...text.matchAll(/\{ v: (\d+),/g)].map((match) => Number(match[1]));

describe("docs/live-protocol.md", () => {
  it("names the format version the code speaks in the handshake table", () => {
    const named = /`LIVE_FORMAT_VERSION`, now \*\*(\d+)\*\*/.exec(doc);
    expect(named, "the handshake table names LIVE_FORMAT_VERSION's value").not.toBeNull();
    expect(Number(named![1])).toBe(LIVE_FORMAT_VERSION);
  });

  it("shows that version in every example frame of the browser feed", () => {
    expect(relayAt).toBeGreaterThan(0);
    const frames = framesOf(doc.slice(0, relayAt));
    expect(frames).toHaveLength(4);
    expect(frames.filter((version) => version !== LIVE_FORMAT_VERSION)).toEqual([]);
  });

  it("shows the relay's own format version in the relay's message", () => {
    expect(framesOf(doc.slice(relayAt))).toEqual([RELAY_FORMAT_VERSION]);
  });
});
