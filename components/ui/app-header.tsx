import Link from "next/link";
import type { ConnectionStatus } from "@/lib/live-fleet-state";
import { Badge } from "@/components/ui/badge";
import { ConnectionIndicator } from "@/components/ui/connection-indicator";
import { ThemeToggle } from "@/components/ui/theme-toggle";

interface AppHeaderProps {
  status: ConnectionStatus;
  simulated: boolean;
}

/** Product bar shared by the live pages: what you look at, whether it is real, whether it is live. */
export function AppHeader({ status, simulated }: AppHeaderProps) {
  return (
    <header className="sticky top-0 z-20 border-b border-slate-200 bg-white/85 backdrop-blur dark:border-slate-800 dark:bg-slate-900/85">
      <div className="mx-auto flex h-14 max-w-screen-2xl items-center gap-3 px-4 sm:px-6">
        <Link href="/" className="flex items-center gap-2 rounded font-semibold tracking-tight focus-visible:outline-2 focus-visible:outline-sky-500">
          <LogoMark />
          <span className="text-lg">gpudesk</span>
        </Link>
        {simulated && (
          <Badge tone="warn" title="No nvidia-smi on the server: these GPUs are generated">
            Simulated fleet
          </Badge>
        )}
        <div className="ml-auto flex items-center gap-3 sm:gap-4">
          <ConnectionIndicator status={status} />
          <ThemeToggle />
        </div>
      </div>
    </header>
  );
}

function LogoMark() {
  return (
    <svg aria-hidden viewBox="0 0 24 24" className="size-6 text-busy" fill="none" stroke="currentColor" strokeWidth={1.8}>
      <rect x="3" y="6" width="18" height="12" rx="2" />
      <path d="M7 10h3v4H7zM14 10h3v4h-3zM6 18v2M10 18v2M14 18v2M18 18v2" />
    </svg>
  );
}
