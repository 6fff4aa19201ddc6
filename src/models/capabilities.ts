/**
 * @file What this browser (or worker) can run models on, probed once into a frozen object.
 *
 * WebGPU is used when `navigator.gpu.requestAdapter()` yields an adapter, otherwise ONNX Runtime's
 * wasm backend. Works the same on the main thread and in a worker (both have `navigator`).
 */

/** The devices our transformer embedders run on. */
export type EmbedDevice = 'webgpu' | 'wasm';

/** What the user may ask for: a device, or 'auto' (the probed choice). */
export type DeviceRequest = EmbedDevice | 'auto';

export const DEVICE_REQUESTS: readonly DeviceRequest[] = ['auto', 'webgpu', 'wasm'];

/** The adapter WebGPU offered, as far as the browser tells. */
export interface GpuAdapterSummary {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  /** A software adapter (Chromium: SwiftShader). Works, but far slower than wasm. */
  isFallbackAdapter: boolean;
  /** `shader-f16`: fp16 models can run natively. */
  shaderF16: boolean;
  /** Largest storage buffer the adapter allows, in bytes. */
  maxStorageBufferBindingSize: number;
}

export interface Capabilities {
  /** `navigator.gpu` exists (the API, not necessarily an adapter). */
  webgpuApi: boolean;
  /** The adapter requestAdapter() returned; null when there is none. */
  adapter: GpuAdapterSummary | null;
  /** Why there is no adapter, in words; null when there is one. */
  webgpuUnavailableReason: string | null;
  /** COOP/COEP in force: SharedArrayBuffer and wasm threads are available. */
  crossOriginIsolated: boolean;
  hardwareConcurrency: number;
  /** The device 'auto' resolves to: 'webgpu' when an adapter exists, else 'wasm'. */
  device: EmbedDevice;
}

// Just the WebGPU surface we read; the DOM lib of TypeScript 5.9 has no WebGPU types.
interface GpuAdapterInfoLike {
  vendor?: string;
  architecture?: string;
  device?: string;
  description?: string;
  isFallbackAdapter?: boolean;
}
interface GpuAdapterLike {
  info?: GpuAdapterInfoLike;
  isFallbackAdapter?: boolean;
  features: { has(name: string): boolean };
  limits: { maxStorageBufferBindingSize?: number };
}
interface GpuLike {
  requestAdapter(options?: { powerPreference?: string }): Promise<GpuAdapterLike | null>;
}

let probed: Promise<Readonly<Capabilities>> | null = null;

/** Probe once per thread; later calls return the same frozen object. */
export function probeCapabilities(): Promise<Readonly<Capabilities>> {
  probed ??= probe();
  return probed;
}

/** The device a request resolves to on these capabilities. An explicit device is kept as is. */
export function resolveDevice(request: DeviceRequest, caps: Capabilities): EmbedDevice {
  return request === 'auto' ? caps.device : request;
}

/** Parse a device name from user input (URL parameter, form); unknown names throw with the valid ones. */
export function parseDeviceRequest(value: string | null | undefined): DeviceRequest {
  if (value === null || value === undefined || value === '') return 'auto';
  if ((DEVICE_REQUESTS as readonly string[]).includes(value)) return value as DeviceRequest;
  throw new Error(`Unknown device "${value}". Use one of: ${DEVICE_REQUESTS.join(', ')}.`);
}

async function probe(): Promise<Readonly<Capabilities>> {
  const gpu = (navigator as Navigator & { gpu?: GpuLike }).gpu;
  let adapter: GpuAdapterSummary | null = null;
  let reason: string | null = null;
  if (!gpu) {
    reason = 'This browser has no WebGPU API (navigator.gpu is missing).';
  } else {
    try {
      const a = await gpu.requestAdapter({ powerPreference: 'high-performance' });
      if (a) adapter = summarise(a);
      else reason = 'WebGPU is present but offered no adapter (disabled, blocklisted or no GPU).';
    } catch (error) {
      reason = `WebGPU adapter request failed: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  return Object.freeze({
    webgpuApi: Boolean(gpu),
    adapter: adapter && Object.freeze(adapter),
    webgpuUnavailableReason: reason,
    crossOriginIsolated: globalThis.crossOriginIsolated === true,
    hardwareConcurrency: navigator.hardwareConcurrency || 1,
    device: adapter ? 'webgpu' : 'wasm',
  } satisfies Capabilities);
}

function summarise(a: GpuAdapterLike): GpuAdapterSummary {
  const info = a.info ?? {};
  return {
    vendor: info.vendor ?? '',
    architecture: info.architecture ?? '',
    device: info.device ?? '',
    description: info.description ?? '',
    isFallbackAdapter: Boolean(info.isFallbackAdapter ?? a.isFallbackAdapter),
    shaderF16: a.features.has('shader-f16'),
    maxStorageBufferBindingSize: a.limits.maxStorageBufferBindingSize ?? 0,
  };
}
