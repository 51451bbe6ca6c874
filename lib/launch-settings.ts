/**
 * What a booker types to run on the GPUs they booked. Pure, so that the API
 * answer and the page show the very same lines.
 *
 * Indices are nvidia-smi's, which count in PCI bus order; CUDA counts
 * fastest-first unless CUDA_DEVICE_ORDER=PCI_BUS_ID, so the export sets it:
 * without it "CUDA_VISIBLE_DEVICES=2" can mean another GPU than nvidia-smi's 2.
 * UUIDs survive reboots and re-enumeration, indices do not.
 *
 * The `GPUDESK_RESERVATION` lines carry the booking's proof
 * (lib/reservation-claim.ts): they exist only in the booker's copy.
 */

export interface LaunchGpu {
  index: number;
  /** The GPU's UUID, or a slice's MIG UUID. */
  uuid: string;
  /** A MIG slice: its device index within GPU `index` and its profile. */
  mig?: { deviceIndex: number; profile: string } | null;
}

/** One booked MIG slice's own lines: CUDA shows a process one MIG device at most, so each slice is its own launch. */
export interface SliceLaunch {
  /** "0:1": GPU 0, MIG device 1, as NVIDIA's container toolkit names it. */
  ref: string;
  profile: string;
  uuid: string;
  /** `export CUDA_VISIBLE_DEVICES=MIG-…` */
  export: string;
  /** `docker run --gpus '"device=0:1"' …` */
  docker: string;
}

export interface LaunchSettings {
  cudaDeviceOrder: "PCI_BUS_ID";
  /** "2,3": nvidia-smi indices in ascending order. */
  cudaVisibleDevices: string;
  /** "GPU-…,GPU-…", in the same order. */
  cudaVisibleDevicesUuids: string;
  /** `export CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=2,3` */
  exportIndices: string;
  exportUuids: string;
  /**
   * The value for `GPUDESK_RESERVATION`, `<id>.<proof>`: it proves that the
   * job's processes run on this booking, whoever's login they run under.
   * Null in any copy but the booker's.
   */
  reservationValue: string | null;
  /** `export GPUDESK_RESERVATION=…`; null in any copy but the booker's. */
  exportReservation: string | null;
  /** `docker run --gpus '"device=2,3"' …`: inside the container the GPUs are 0..n-1 and CUDA_VISIBLE_DEVICES stays unset. */
  docker: string;
  /** A docker compose service with the `device_ids` block. */
  compose: string;
  /** `torchrun --nproc_per_node=N …` with the environment in front. */
  torchrun: string;
  /** How frameworks number the booked GPUs inside the job. */
  frameworks: { pytorch: string; tensorflow: string };
  /** The booked MIG slices, one entry each; absent on a booking of whole GPUs. */
  slices?: SliceLaunch[];
}

/** `reservationValue`: the booking's `<id>.<proof>`, given only when the settings are for its booker. */
export function launchSettings(gpus: LaunchGpu[], reservationValue?: string | null): LaunchSettings {
  if (gpus.some((gpu) => gpu.mig)) return sliceLaunchSettings(gpus, reservationValue ?? null);
  const sorted = [...gpus].sort((a, b) => a.index - b.index);
  const indices = sorted.map((gpu) => String(gpu.index)).join(",");
  const uuids = sorted.map((gpu) => gpu.uuid).join(",");
  const env = `CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=${indices}`;
  const value = reservationValue ?? null;
  const reservationEnv = value ? ` -e GPUDESK_RESERVATION=${value}` : "";
  const composeEnv = value ? ["    environment:", `      GPUDESK_RESERVATION: "${value}"`] : [];
  const compose = ["services:", ...composeService("job", composeEnv, sorted.map((gpu) => String(gpu.index)))].join("\n");

  return {
    cudaDeviceOrder: "PCI_BUS_ID",
    cudaVisibleDevices: indices,
    cudaVisibleDevicesUuids: uuids,
    exportIndices: `export ${env}`,
    exportUuids: `export CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=${uuids}`,
    reservationValue: value,
    exportReservation: value ? `export GPUDESK_RESERVATION=${value}` : null,
    docker: `docker run --gpus '"device=${indices}"'${reservationEnv} IMAGE COMMAND`,
    compose,
    torchrun: `${env}${value ? ` GPUDESK_RESERVATION=${value}` : ""} torchrun --standalone --nproc_per_node=${sorted.length} train.py`,
    frameworks: frameworkNotes(sorted),
  };
}

function frameworkNotes(sorted: LaunchGpu[]): { pytorch: string; tensorflow: string } {
  const pairs = sorted.map((gpu, position) => ({ position, index: gpu.index }));
  const torch = pairs.map(({ position, index }) => `cuda:${position} is GPU ${index}`).join(", ");
  const tf = pairs.map(({ position }) => `/gpu:${position}`).join(", ");
  return {
    pytorch: `Inside the job the booked GPUs are numbered from 0 in this order: ${torch}.`,
    tensorflow: `TensorFlow sees ${sorted.length === 1 ? "it as" : "them as"} ${tf}.`,
  };
}

const sliceRef = (gpu: LaunchGpu) => `${gpu.index}:${gpu.mig?.deviceIndex ?? 0}`;

/**
 * A booking of MIG slices. CUDA enumerates at most one MIG device per
 * process (CUDA_VISIBLE_DEVICES may name several, the process still sees
 * only the first), and MIG devices have no index CUDA understands: a slice
 * is named by its MIG UUID. So every line names one slice, and a booking of
 * several slices gives one line per slice (each one process, or one
 * container: the container toolkit's `device=GPU:MIG`); a single process
 * over several slices (torchrun, NCCL) is not possible.
 */
function sliceLaunchSettings(gpus: LaunchGpu[], value: string | null): LaunchSettings {
  const sorted = [...gpus].sort((a, b) => a.index - b.index || (a.mig?.deviceIndex ?? 0) - (b.mig?.deviceIndex ?? 0));
  const reservationEnv = value ? ` -e GPUDESK_RESERVATION=${value}` : "";
  const slices: SliceLaunch[] = sorted.map((gpu) => ({
    ref: sliceRef(gpu),
    profile: gpu.mig?.profile ?? "",
    uuid: gpu.uuid,
    export: `export CUDA_VISIBLE_DEVICES=${gpu.uuid}`,
    docker: `docker run --gpus '"device=${sliceRef(gpu)}"'${reservationEnv} IMAGE COMMAND`,
  }));
  const several = slices.length > 1;
  const perSlice = (line: (slice: SliceLaunch) => string) => slices.map((slice) => (several ? `${line(slice)}  # ${slice.ref} ${slice.profile}` : line(slice))).join("\n");
  const composeEnv = value ? ["    environment:", `      GPUDESK_RESERVATION: "${value}"`] : [];
  const compose = [
    "services:",
    ...slices.flatMap((slice) => composeService(`job${several ? `-${slice.ref.replace(":", "-")}` : ""}`, composeEnv, [slice.ref])),
  ].join("\n");
  return {
    cudaDeviceOrder: "PCI_BUS_ID",
    // The first slice: what `gpudesk run` gives one process (lib/launch-settings.ts, CUDA's one MIG device per process).
    cudaVisibleDevices: slices[0]?.uuid ?? "",
    cudaVisibleDevicesUuids: slices.map((slice) => slice.uuid).join(","),
    exportIndices: perSlice((slice) => slice.export),
    exportUuids: perSlice((slice) => slice.export),
    reservationValue: value,
    exportReservation: value ? `export GPUDESK_RESERVATION=${value}` : null,
    docker: perSlice((slice) => slice.docker),
    compose,
    torchrun: several
      ? "# CUDA shows a process one MIG device: no torchrun across slices; start one process per slice (gpudesk run --per-slice)"
      : `CUDA_VISIBLE_DEVICES=${slices[0]?.uuid ?? ""}${value ? ` GPUDESK_RESERVATION=${value}` : ""} torchrun --standalone --nproc_per_node=1 train.py`,
    frameworks: {
      pytorch: several
        ? `Each slice is its own process, and inside it the slice is cuda:0 (${slices.map((slice) => `${slice.ref} ${slice.profile}`).join(", ")}).`
        : `Inside the job the slice (${slices[0]?.ref} ${slices[0]?.profile}) is cuda:0.`,
      tensorflow: "TensorFlow sees it as /gpu:0.",
    },
    slices,
  };
}

/** One compose service holding these devices (GPU indices, or "GPU:MIG device" refs), as NVIDIA's container toolkit names them. */
function composeService(name: string, environment: string[], deviceIds: string[]): string[] {
  return [
    `  ${name}:`,
    "    image: IMAGE",
    ...environment,
    "    deploy:",
    "      resources:",
    "        reservations:",
    "          devices:",
    "            - driver: nvidia",
    `              device_ids: [${deviceIds.map((id) => `"${id}"`).join(", ")}]`,
    "              capabilities: [gpu]",
  ];
}
