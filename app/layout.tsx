import type { Metadata, Viewport } from "next";
import { HydrationGate } from "@/components/hydration-gate";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "gpudesk", template: "%s · gpudesk" },
  description: "Who is on which GPU, live.",
};

export const viewport: Viewport = {
  width: "device-width",
  initialScale: 1,
};

// Runs before paint so that a dark-mode user never sees a white flash.
const themeScript = `try{var t=localStorage.getItem("gpudesk-theme");if(t==="dark"||(!t&&matchMedia("(prefers-color-scheme: dark)").matches))document.documentElement.classList.add("dark")}catch(e){}`;

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en" suppressHydrationWarning>
      <head>
        <script dangerouslySetInnerHTML={{ __html: themeScript }} />
      </head>
      <body className="min-h-screen bg-slate-50 text-slate-900 antialiased dark:bg-slate-950 dark:text-slate-100">
        <HydrationGate>{children}</HydrationGate>
      </body>
    </html>
  );
}
