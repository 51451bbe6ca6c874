/**
 * What a holder types to run on the GPUs they booked. Pure, so that the API
 * answer and the page show the very same lines.
 *
 * Indices are nvidia-smi's, which count in PCI bus order; CUDA counts
 * fastest-first unless CUDA_DEVICE_ORDER=PCI_BUS_ID, so the export sets it:
 * without it "CUDA_VISIBLE_DEVICES=2" can mean another GPU than nvidia-smi's 2.
 * UUIDs survive reboots and re-enumeration, indices do not.
 *
 * The `GPUDESK_RESERVATION` lines carry the booking's proof
 * (lib/reservation-claim.ts): they exist only in the holder's copy.
 */

export interface LaunchGpu {
  index: number;
  uuid: string;
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
   * Null in any copy but the holder's.
   */
  reservationValue: string | null;
  /** `export GPUDESK_RESERVATION=…`; null in any copy but the holder's. */
  exportReservation: string | null;
  /** `docker run --gpus '"device=2,3"' …`: inside the container the GPUs are 0..n-1 and CUDA_VISIBLE_DEVICES stays unset. */
  docker: string;
  /** A docker compose service with the `device_ids` block. */
  compose: string;
  /** `torchrun --nproc_per_node=N …` with the environment in front. */
  torchrun: string;
  /** How frameworks number the booked GPUs inside the job. */
  frameworks: { pytorch: string; tensorflow: string };
}

/** `reservationValue`: the booking's `<id>.<proof>`, given only when the settings are for its holder. */
export function launchSettings(gpus: LaunchGpu[], reservationValue?: string | null): LaunchSettings {
  const sorted = [...gpus].sort((a, b) => a.index - b.index);
  const indices = sorted.map((gpu) => String(gpu.index)).join(",");
  const uuids = sorted.map((gpu) => gpu.uuid).join(",");
  const env = `CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=${indices}`;
  const value = reservationValue ?? null;
  const reservationEnv = value ? ` -e GPUDESK_RESERVATION=${value}` : "";
  const composeEnv = value ? ["    environment:", `      GPUDESK_RESERVATION: "${value}"`] : [];
  const compose = [
    "services:",
    "  job:",
    "    image: IMAGE",
    ...composeEnv,
    "    deploy:",
    "      resources:",
    "        reservations:",
    "          devices:",
    "            - driver: nvidia",
    `              device_ids: [${sorted.map((gpu) => `"${gpu.index}"`).join(", ")}]`,
    "              capabilities: [gpu]",
  ].join("\n");

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
