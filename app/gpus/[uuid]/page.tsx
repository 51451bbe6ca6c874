import type { Metadata } from "next";
import { GpuDetail } from "@/components/gpu/gpu-detail";
import { PageShell } from "@/app/_components/page-shell";

interface GpuPageProps {
  params: Promise<{ uuid: string }>;
}

/** A malformed escape in a hand-typed URL must end in "no such GPU", not a crash. */
function decodeUuid(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

export async function generateMetadata({ params }: GpuPageProps): Promise<Metadata> {
  const { uuid } = await params;
  // nvidia-smi UUIDs already start with "GPU-".
  return { title: decodeUuid(uuid) };
}

/**
 * The server only knows the UUID; whether such a GPU exists is a live fact,
 * answered by the socket's snapshot in the client leaf.
 */
export default async function GpuPage({ params }: GpuPageProps) {
  const { uuid } = await params;
  const decoded = decodeUuid(uuid);
  return (
    <PageShell returnTo={`/gpus/${uuid}`} bare>
      {/* A new key resets the history when navigating from one GPU to another. */}
      <GpuDetail key={decoded} uuid={decoded} />
    </PageShell>
  );
}
