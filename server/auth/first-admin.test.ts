import { describe, expect, it } from "vitest";
import { firstAdminCommand } from "@/server/auth/first-admin";

describe("firstAdminCommand", () => {
  it("names the server's data directory, so that the account lands in the server's database from any directory", () => {
    expect(firstAdminCommand({ dataDir: "/var/lib/gpudesk", DATABASE_URL: "file:/var/lib/gpudesk/gpudesk.db" }, "/opt/gpudesk")).toBe(
      "cd /opt/gpudesk && GPUDESK_DATA_DIR=/var/lib/gpudesk npx gpudesk user add admin --admin",
    );
  });

  it("names a PostgreSQL URL without its password, and quotes what the shell would split", () => {
    expect(firstAdminCommand({ dataDir: "/data", DATABASE_URL: "postgresql://gpudesk:secret@db:5432/gpudesk" }, "/srv/my gpudesk")).toBe(
      "cd '/srv/my gpudesk' && DATABASE_URL='postgresql://gpudesk:***@db:5432/gpudesk' npx gpudesk user add admin --admin",
    );
  });
});
