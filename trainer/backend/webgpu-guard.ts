import { WebGPUBackend } from "@tensorflow/tfjs-backend-webgpu";
import { type DataId, type TensorInfo, util } from "@tensorflow/tfjs-core";

const MIB = 1024 * 1024;
const mib = (bytes: number) => `${Math.ceil(bytes / MIB)} MiB`;

/** Every dtype tfjs-webgpu stores takes 4 bytes per element on the GPU (bool and int32 included). */
const GPU_BYTES_PER_ELEMENT = 4;

/** What the guard knows about the device beside the backend. */
export interface DeviceWatch {
  /** The device's maxStorageBufferBindingSize, in bytes: no kernel may bind a larger tensor. */
  bindingLimit: number;
  /** The device's maxStorageBuffersPerShaderStage: a kernel binds each input and its output as one. */
  buffersPerStage: number;
  /** The first uncaptured error or loss of the device, once one happened. */
  failure(): string | undefined;
}

type Program = ConstructorParameters<typeof Object>[0] & {
  outputShape: number[];
  constructor: { name: string };
};

/**
 * tfjs-webgpu with the checks it lacks. Dawn reports a failed dispatch (a binding past the device's
 * limit, too many buffers, an out-of-memory buffer) only through the device's uncaptured-error event,
 * after which the backend would go on returning whatever the buffers held; so a kernel that would bind
 * a tensor past `maxStorageBufferBindingSize`, or more buffers than `maxStorageBuffersPerShaderStage`,
 * is refused before dispatch, and every read after a device error throws it. A synchronous read of a GPU tensor (dataSync, arraySync) cannot be done in Node: the
 * backend's own readSync goes through OffscreenCanvas, and Dawn maps buffers only asynchronously, so
 * it throws one clear line instead of a ReferenceError.
 */
export class GuardedWebGpuBackend extends WebGPUBackend {
  constructor(
    device: GPUDevice,
    adapterInfo: GPUAdapterInfo,
    private readonly watch: DeviceWatch,
  ) {
    super(device, adapterInfo);
  }

  override runWebGPUProgram(
    program: Parameters<WebGPUBackend["runWebGPUProgram"]>[0],
    inputs: TensorInfo[],
    outputDtype: TensorInfo["dtype"],
    programDefinedUniform?: Parameters<WebGPUBackend["runWebGPUProgram"]>[3],
    output?: TensorInfo,
  ): TensorInfo {
    this.throwIfFailed();
    const name = (program as unknown as Program).constructor.name;
    if (inputs.length + 1 > this.watch.buffersPerStage)
      throw new Error(
        `webgpu: ${name} would bind ${inputs.length + 1} storage buffers, past this device's ` +
          `maxStorageBuffersPerShaderStage of ${this.watch.buffersPerStage}; sum fewer tensors at once or use another backend`,
      );
    const shapes = [...inputs.map((t) => t.shape), output?.shape ?? program.outputShape];
    for (const shape of shapes) {
      const bytes = util.sizeFromShape(shape) * GPU_BYTES_PER_ELEMENT;
      if (bytes > this.watch.bindingLimit)
        throw new Error(
          `webgpu: ${name} would bind a [${shape.join(", ")}] tensor (${mib(bytes)}), past this device's ` +
            `maxStorageBufferBindingSize of ${mib(this.watch.bindingLimit)}; use smaller passes ` +
            "(fewer rows or tokens per pass) or another backend",
        );
    }
    return super.runWebGPUProgram(program, inputs, outputDtype, programDefinedUniform, output);
  }

  override async read(dataId: DataId): Promise<ReturnType<WebGPUBackend["readSync"]>> {
    this.throwIfFailed();
    const values = await super.read(dataId);
    // Dawn delivers the errors of the work this read waited for before the read resolves.
    this.throwIfFailed();
    return values;
  }

  override readSync(dataId: DataId): ReturnType<WebGPUBackend["readSync"]> {
    this.throwIfFailed();
    // Tensors still held on the CPU (never uploaded, or already read) read synchronously as usual.
    if (this.tensorMap.get(dataId)?.values != null) return super.readSync(dataId);
    throw new Error(
      "webgpu: a synchronous read (dataSync/arraySync) of a tensor on the GPU is not possible in Node " +
        "(Dawn maps buffers only asynchronously); this path needs await data() or another backend",
    );
  }

  private throwIfFailed(): void {
    const failure = this.watch.failure();
    if (failure !== undefined) throw new Error(`webgpu device error: ${failure}`);
  }
}
