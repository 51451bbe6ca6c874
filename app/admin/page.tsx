import { redirect } from "next/navigation";

/** `/admin` typed by hand lands on the first admin page rather than a 404 (each page checks the role itself). */
export default function AdminIndex(): never {
  redirect("/admin/users");
}
