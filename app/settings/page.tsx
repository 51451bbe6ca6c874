import { redirect } from "next/navigation";

/** `/settings` typed by hand lands on the first settings page rather than a 404. */
export default function SettingsIndex(): never {
  redirect("/settings/account");
}
