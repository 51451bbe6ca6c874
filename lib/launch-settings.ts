/**
 * What a holder types to run on the GPUs they booked. Pure, so that the API
 * answer and the page show the very same lines.
 *
 * Indices are nvidia-smi's, which count in PCI bus order; CUDA counts
 * fastest-first unless CUDA_DEVICE_ORDER=PCI_BUS_ID, so the export sets it:
 * without it "CUDA_VISIBLE_DEVICES=2" can mean another GPU than nvidia-smi's 2.
 * UUIDs survive reboots and re-enumeration, indices do not.
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
  /** `export GPUDESK_RESERVATION=…`: lets gpudesk tell this job's processes apart from others of the same person. */
  exportReservation: string | null;
  /** `docker run --gpus '"device=2,3"' …`: inside the container the GPUs are 0..n-1 and CUDA_VISIBLE_DEVICES stays unset. */
  docker: string;
  /** A docker compose service with the `device_ids` block. */
  compose: string;
  /** `torchrun --nproc_per_node=N …` with the export in front. */
  torchrun: string;
  /** How frameworks number the booked GPUs inside the job. */
  frameworks: { pytorch: string; tensorflow: string };
}

export function launchSettings(gpus: LaunchGpu[], reservationId?: string): LaunchSettings {
  const sorted = [...gpus].sort((a, b) => a.index - b.index);
  const indices = sorted.map((gpu) => String(gpu.index)).join(",");
  const uuids = sorted.map((gpu) => gpu.uuid).join(",");
  const env = `CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=${indices}`;
  const reservationEnv = reservationId ? ` -e GPUDESK_RESERVATION=${reservationId}` : "";
  const composeEnv = reservationId ? ["    environment:", `      GPUDESK_RESERVATION: "${reservationId}"`] : [];
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
    exportReservation: reservationId ? `export GPUDESK_RESERVATION=${reservationId}` : null,
    docker: `docker run --gpus '"device=${indices}"'${reservationEnv} IMAGE COMMAND`,
    compose,
    torchrun: `${env} torchrun --standalone --nproc_per_node=${sorted.length} train.py`,
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
