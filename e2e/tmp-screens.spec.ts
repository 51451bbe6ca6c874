import { expect, test, type Page } from "@playwright/test";
import { admin, createUser, signIn, uniqueHostName } from "./helpers";

const OUT = "/tmp/screens";
const sizes = [
  { name: "desk", width: 1440, height: 900 },
  { name: "phone", width: 390, height: 844 },
];

async function shot(page: Page, name: string, full = true) {
  await page.waitForTimeout(300);
  await page.screenshot({ path: `${OUT}/${name}.png`, fullPage: full });
}

test("screens", async ({ page }) => {
  test.setTimeout(240_000);
  createUser("alice");
  await signIn(page, admin());
  // Some data so that tables are not empty.
  for (const label of ["laptop CLI", "training cron"]) await page.request.post("/api/v1/tokens", { data: { label }, headers: { origin: "http://127.0.0.1:3291" } });
  await page.request.post("/api/v1/displays", { data: { name: "Lab 2 hallway" }, headers: { origin: "http://127.0.0.1:3291" } });
  await page.request.post("/api/v1/hosts", { data: { name: uniqueHostName("gpu-node") }, headers: { origin: "http://127.0.0.1:3291" } });

  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const size of sizes) {
      await page.setViewportSize({ width: size.width, height: size.height });
      const tag = `${size.name}-${scheme}`;
      await page.goto("/");
      await expect(page.getByTestId("connection-status")).toContainText("Live");
      await shot(page, `fleet-${tag}`, false);
      if (size.name === "desk") {
        await page.getByRole("button", { name: "Admin", exact: true }).click();
        await shot(page, `fleet-adminmenu-${tag}`, false);
        await page.keyboard.press("Escape");
        await page.getByRole("button", { name: /Account/ }).click();
        await shot(page, `fleet-usermenu-${tag}`, false);
        await page.keyboard.press("Escape");
      } else {
        await page.getByRole("button", { name: "Menu" }).click();
        await shot(page, `fleet-menu-${tag}`, false);
        await page.keyboard.press("Escape");
      }

      await page.goto("/settings/tokens");
      await shot(page, `tokens-${tag}`);
      await page.getByRole("button", { name: "Create token" }).click();
      await shot(page, `tokens-error-${tag}`);
      await page.getByLabel("Label").fill(`shot ${tag}`);
      await page.getByRole("button", { name: "Create token" }).click();
      await expect(page.getByRole("textbox", { name: "New token" })).toBeVisible();
      await shot(page, `tokens-created-${tag}`);
      await page.getByRole("button", { name: `Revoke shot ${tag}` }).click();
      await shot(page, `tokens-confirm-${tag}`, false);
      await page.getByRole("dialog").getByRole("button", { name: "Revoke token" }).click();

      await page.goto("/admin/users");
      await shot(page, `users-${tag}`);
      const form = page.getByRole("form", { name: "Add a person" });
      await form.getByLabel("Username").fill("alice x");
      await form.getByLabel("Password").fill("short");
      await form.getByRole("button", { name: "Add person" }).click();
      await expect(form.getByText(/Password/).last()).toBeVisible();
      await shot(page, `users-errors-${tag}`);
      if (size.name === "desk") {
        const self = page.getByRole("row").filter({ hasText: "you" });
        await self.getByRole("combobox").selectOption("member");
        await page.getByRole("dialog").getByRole("button", { name: "Make me a member" }).click();
        await expect(page.getByRole("dialog").getByRole("alert")).toBeVisible();
        await shot(page, `users-lastadmin-${tag}`, false);
        await page.getByRole("dialog").getByRole("button", { name: "Cancel" }).click();
      }

      await page.goto("/admin/hosts");
      await page.getByLabel("Host name").fill(uniqueHostName("gpu-node"));
      await page.getByRole("button", { name: "Register host" }).click();
      await expect(page.getByRole("textbox", { name: "Agent token" })).toBeVisible();
      await shot(page, `hosts-created-${tag}`);

      await page.goto("/admin/displays");
      await page.getByLabel("Display name").fill(`Wall ${tag}`);
      await page.getByRole("button", { name: "Add display" }).click();
      await expect(page.getByRole("textbox", { name: "Display token" })).toBeVisible();
      await shot(page, `displays-created-${tag}`);
    }
  }
});
