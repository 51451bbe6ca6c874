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
 * (lib/domain/booking-claim.ts): they exist only in the booker's copy.
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
  /** On a part of a booking across nodes: this node's rank, rendezvous and lines. */
  node?: NodeLaunch;
  /** On Slurm nodes: `sbatch --reservation=…` (Slurm picks the GPUs and sets CUDA_VISIBLE_DEVICES). */
  sbatch?: string;
  /** On Slurm nodes: `srun --reservation=… --pty bash` for an interactive shell. */
  srun?: string;
}

/** Where a part sits in its booking across nodes: what its node's launch lines follow from. */
export interface NodeContext {
  /** The booking's id (its node-0 part's), the rendezvous id. */
  bookingId: string;
  nodeRank: number;
  /** Every node in rank order: its host name and how many GPUs it holds. */
  nodes: { host: string; gpus: number }[];
  /** The network interface and InfiniBand devices NCCL should use, where the fabric is known. */
  fabric?: { socketInterface?: string | null; ibDevices?: string[]; socketNote?: string | null } | null;
}

export interface NodeLaunch {
  nodeRank: number;
  nodeCount: number;
  /** Processes over all nodes (one per GPU): torch's WORLD_SIZE. */
  worldSize: number;
  /** The global rank of this node's first process (the GPUs of the nodes before it): RANK = firstRank + LOCAL_RANK. Older servers omit it. */
  firstRank?: number;
  /** The node-0 host: the rendezvous and MASTER_ADDR. */
  masterAddr: string;
  masterPort: number;
  /** What `gpudesk run --booking` sets on this node, in this order. */
  env: Record<string, string>;
  /** `export …` of that environment. */
  exportLine: string;
  /** `torchrun --nnodes=N --nproc_per_node=M --node_rank=i --rdzv_backend=c10d …` */
  torchrun: string;
  /** `mpirun -np W -H host1:M,host2:M --map-by ppr:M:node gpudesk run --booking ID -- …`, started on node 0 once: one rank per GPU, each told its own (perGpuEnvironment). */
  mpirun: string;
  /** This node's container, on the host's network (NCCL talks node to node), with the RDMA devices, IPC_LOCK and unlimited locked memory where the host has an HCA. */
  docker: string;
  /** NCCL_IB_HCA / NCCL_SOCKET_IFNAME from the host's fabric; null where the fabric is not known. */
  nccl: string | null;
}

/**
 * The rendezvous port of a booking: one per booking (from its id), so that
 * two bookings whose first node is the same host do not meet on one port.
 */
export function rendezvousPort(bookingId: string): number {
  let hash = 0;
  for (const char of bookingId) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return 29500 + (hash % 500);
}

/** Node `nodeRank`'s launch: the same rendezvous on every node, its own rank and GPUs. */
export function nodeLaunch(gpus: LaunchGpu[], context: NodeContext, bookingValue: string | null): NodeLaunch {
  const sorted = [...gpus].sort((a, b) => a.index - b.index);
  const indices = sorted.map((gpu) => String(gpu.index)).join(",");
  const nodeCount = context.nodes.length;
  const perNode = sorted.length;
  const worldSize = context.nodes.reduce((sum, node) => sum + node.gpus, 0);
  const masterAddr = context.nodes[0]?.host ?? "";
  const masterPort = rendezvousPort(context.bookingId);
  const ncclEnv: Record<string, string> = {};
  if (context.fabric?.ibDevices && context.fabric.ibDevices.length > 0) ncclEnv.NCCL_IB_HCA = context.fabric.ibDevices.join(",");
  if (context.fabric?.socketInterface) ncclEnv.NCCL_SOCKET_IFNAME = context.fabric.socketInterface;
  const env: Record<string, string> = {
    CUDA_DEVICE_ORDER: "PCI_BUS_ID",
    CUDA_VISIBLE_DEVICES: indices,
    MASTER_ADDR: masterAddr,
    MASTER_PORT: String(masterPort),
    WORLD_SIZE: String(worldSize),
    NODE_RANK: String(context.nodeRank),
    NNODES: String(nodeCount),
    NPROC_PER_NODE: String(perNode),
    ...ncclEnv,
    ...(bookingValue ? { GPUDESK_RESERVATION: bookingValue } : {}),
  };
  const assignments = Object.entries(env).map(([key, value]) => `${key}=${value}`);
  const sameSizes = new Set(context.nodes.map((node) => node.gpus)).size === 1;
  const torchrun =
    `${assignments.join(" ")} torchrun --nnodes=${nodeCount} --nproc_per_node=${perNode} --node_rank=${context.nodeRank}` +
    ` --rdzv_backend=c10d --rdzv_endpoint=${masterAddr}:${masterPort} --rdzv_id=${context.bookingId} train.py`;
  const hostList = context.nodes.map((node) => `${node.host}:${node.gpus}`).join(",");
  const firstRank = context.nodes.slice(0, context.nodeRank).reduce((sum, node) => sum + node.gpus, 0);
  // NCCL over InfiniBand inside a container needs the verbs devices, to pin memory (IPC_LOCK) and no cap on locked memory;
  // without them it falls back to TCP sockets without a word.
  const rdma = context.fabric?.ibDevices && context.fabric.ibDevices.length > 0 ? " --device=/dev/infiniband --cap-add=IPC_LOCK --ulimit memlock=-1" : "";
  return {
    nodeRank: context.nodeRank,
    nodeCount,
    worldSize,
    firstRank,
    masterAddr,
    masterPort,
    env,
    exportLine: `export ${assignments.join(" ")}`,
    torchrun: sameSizes ? torchrun : `${torchrun}  # the nodes hold different numbers of GPUs: torchrun needs the same --nproc_per_node on every node`,
    // Each rank starts through gpudesk run, which sets its own node's GPUs and, from MPI's rank variables, its RANK and
    // LOCAL_RANK: one mpirun line serves every node, M ranks on each (ppr), in the nodes' rank order.
    mpirun: sameSizes
      ? `mpirun -np ${worldSize} -H ${hostList} --map-by ppr:${perNode}:node gpudesk run --booking ${context.bookingId} -- python train.py`
      : `mpirun -np ${worldSize} -H ${hostList} gpudesk run --booking ${context.bookingId} -- python train.py`,
    docker:
      `docker run --gpus '"device=${indices}"' --network host --ipc host${rdma}` +
      Object.entries(env)
        .filter(([key]) => key !== "CUDA_VISIBLE_DEVICES" && key !== "CUDA_DEVICE_ORDER")
        .map(([key, value]) => ` -e ${key}=${value}`)
        .join("") +
      ` IMAGE torchrun --nnodes=${nodeCount} --nproc_per_node=${perNode} --node_rank=${context.nodeRank} --rdzv_backend=c10d --rdzv_endpoint=${masterAddr}:${masterPort} --rdzv_id=${context.bookingId} train.py`,
    nccl:
      Object.keys(ncclEnv).length > 0
        ? `export ${Object.entries(ncclEnv).map(([key, value]) => `${key}=${value}`).join(" ")}${!ncclEnv.NCCL_SOCKET_IFNAME && context.fabric?.socketNote ? `  # NCCL_SOCKET_IFNAME not set: ${context.fabric.socketNote}` : ""}`
        : null,
  };
}

/**
 * One process of a node's GPUs (`gpudesk run --booking ID --per-gpu`, or a
 * rank mpirun started): the node's environment with torch's per-process
 * variables, as torchrun sets them: RANK (global), LOCAL_RANK (which of the
 * node's GPUs, counted in CUDA_VISIBLE_DEVICES' order: `cuda:LOCAL_RANK`),
 * LOCAL_WORLD_SIZE. CUDA_VISIBLE_DEVICES stays the node's GPUs, as under
 * torchrun, so that `torch.cuda.set_device(LOCAL_RANK)` takes the process's
 * own GPU and NCCL sees its neighbours for peer-to-peer.
 */
export function perGpuEnvironment(node: Pick<NodeLaunch, "env" | "nodeRank" | "firstRank">, localRank: number, rank?: number): Record<string, string> {
  const perNode = Number(node.env.NPROC_PER_NODE);
  const firstRank = node.firstRank ?? node.nodeRank * perNode;
  return { ...node.env, RANK: String(rank ?? firstRank + localRank), LOCAL_RANK: String(localRank), LOCAL_WORLD_SIZE: String(perNode) };
}

/**
 * `reservationValue`: the booking's `<id>.<proof>`, given only when the
 * settings are for its booker. `node`: the part's place in a booking across
 * nodes; its torchrun line is then the multi-node one.
 */
export function launchSettings(gpus: LaunchGpu[], bookingValue?: string | null, node?: NodeContext): LaunchSettings {
  if (gpus.some((gpu) => gpu.mig)) return sliceLaunchSettings(gpus, bookingValue ?? null);
  if (node) {
    const launch = nodeLaunch(gpus, node, bookingValue ?? null);
    return { ...launchSettings(gpus, bookingValue), torchrun: launch.torchrun, node: launch };
  }
  const sorted = [...gpus].sort((a, b) => a.index - b.index);
  const indices = sorted.map((gpu) => String(gpu.index)).join(",");
  const uuids = sorted.map((gpu) => gpu.uuid).join(",");
  const env = `CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=${indices}`;
  const value = bookingValue ?? null;
  const bookingEnv = value ? ` -e GPUDESK_RESERVATION=${value}` : "";
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
    docker: `docker run --gpus '"device=${indices}"'${bookingEnv} IMAGE COMMAND`,
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
  const bookingEnv = value ? ` -e GPUDESK_RESERVATION=${value}` : "";
  const slices: SliceLaunch[] = sorted.map((gpu) => ({
    ref: sliceRef(gpu),
    profile: gpu.mig?.profile ?? "",
    uuid: gpu.uuid,
    export: `export CUDA_VISIBLE_DEVICES=${gpu.uuid}`,
    docker: `docker run --gpus '"device=${sliceRef(gpu)}"'${bookingEnv} IMAGE COMMAND`,
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
    // The first slice: what `gpudesk run` gives one process (lib/domain/launch-settings.ts, CUDA's one MIG device per process).
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
