import { describe, expect, it } from "vitest";
import { buildPayload, testAlert } from "@/server/notifications/webhook-payload";
import { grantPayload } from "@/server/waitlist/grant-notices";
import { idlePayload } from "@/server/idle-release/notify-idle";

describe("Slack messages", () => {
  it("escape & < > in what agents and users wrote, so <!channel> does not ping; gpudesk's own link stays a link", () => {
    const alert = {
      ...testAlert("2026-11-30T12:00:00.000Z"),
      host: { id: "h", name: "node-<!channel>" },
      message: "bob runs <!here> & <@U024BE7LH> on GPU 0",
    };
    const { text } = JSON.parse(buildPayload("slack", "alert.opened", alert, "https://gpudesk.example")) as { text: string };
    expect(text).not.toMatch(/<!channel>|<!here>|<@U024BE7LH>/);
    expect(text).toContain("node-&lt;!channel&gt; GPU 0");
    expect(text).toContain("bob runs &lt;!here&gt; &amp; &lt;@U024BE7LH&gt; on GPU 0");
    expect(text).toContain("<https://gpudesk.example/alerts?alert=test|details>");
  });

  it("escape a waiting request's purpose and host name in the grant message", () => {
    const payload = grantPayload(
      "slack",
      {
        entryId: "e1",
        userId: "u1",
        reservationId: "r1",
        hostName: "node-b",
        gpuIndices: [2, 3],
        units: "GPUs 2, 3",
        startsAt: "2026-11-30T12:00:00Z",
        endsAt: "2026-11-30T14:00:00Z",
        purpose: "<!channel> fine-tune",
        explanation: null,
      },
      "https://gpudesk.example",
    );
    const { text } = JSON.parse(payload) as { text: string };
    expect(text).toContain('"&lt;!channel&gt; fine-tune"');
    expect(text).not.toContain("<!channel>");
    expect(text).toContain("<https://gpudesk.example/reservations|launch settings>");
  });

  it("leave the JSON format as data", () => {
    const alert = { ...testAlert("2026-11-30T12:00:00.000Z"), message: "<!channel> & co" };
    expect(JSON.parse(buildPayload("json", "alert.opened", alert)).alert.message).toBe("<!channel> & co");
  });

  it("name a MIG slice as every surface does in the idle warning's Slack and JSON bodies and the grant message", () => {
    const notice = {
      event: "reservation.idle_warning" as const,
      reservationId: "r2",
      userId: "u1",
      hostName: "migbox",
      gpuIndices: [0],
      units: "GPU 0:2 (1g.10gb)",
      booked: "GPU 0:2 (1g.10gb) on migbox",
      purpose: "notebook",
      idleSince: "2026-11-30T12:00:00.000Z",
      releaseAt: "2026-11-30T14:00:00.000Z",
      keepsLeft: 1,
      reportOnly: false,
      holding: [],
    };
    expect((JSON.parse(idlePayload("slack", notice)) as { text: string }).text).toContain('Your booking "notebook" (GPU 0:2 (1g.10gb) on migbox)');
    expect(JSON.parse(idlePayload("json", notice))).toMatchObject({ reservation: { units: "GPU 0:2 (1g.10gb)" } });
    const grant = grantPayload("slack", { entryId: "e2", userId: "u1", reservationId: "r3", hostName: "migbox", gpuIndices: [0], units: "GPU 0:2 (1g.10gb)", startsAt: "2026-11-30T12:00:00Z", endsAt: "2026-11-30T14:00:00Z", purpose: "p", explanation: null });
    expect((JSON.parse(grant) as { text: string }).text).toContain("GPU 0:2 (1g.10gb) on migbox");
  });
});
