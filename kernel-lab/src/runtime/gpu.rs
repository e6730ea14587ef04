//! The GPU: driver context and stream, the embedded PTX modules, kernels by name, typed buffers.
use std::{collections::HashMap, ffi::CString, sync::{Arc, Mutex}};

use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DeviceRepr, ValidAsZeroBits,
    sys::{self, CUdevice_attribute as Attr, CUfunction_attribute as FnAttr},
};

use crate::{
    error::{DriverContext, Error, Result},
    runtime::ptx::Module,
    steps::{self, Family, KernelInfo, Target},
};

/// What the suite reports about the device.
#[derive(Clone, Debug, serde::Serialize)]
pub struct DeviceInfo {
    /// Marketing name, e.g. "NVIDIA H100 80GB HBM3".
    pub name: String,
    /// Compute capability (major, minor).
    pub compute_capability: (i32, i32),
    /// Streaming multiprocessors.
    pub sms: u32,
    /// L2 cache size in bytes.
    pub l2_bytes: usize,
    /// Global memory in bytes.
    pub total_mem_bytes: usize,
    /// Driver API version, e.g. 13000 for CUDA 13.0.
    pub driver_version: i32,
    /// The DRAM's peak rate in bytes a µs: the memory clock × the bus width × 2 (double data rate), as the driver
    /// reports them (H100 SXM: 2,619 MHz × 5,120 bits, 3.35e6); `None` where it reports either as 0.
    pub dram_peak_bytes_per_us: Option<f64>,
}

/// The DRAM's peak rate in bytes a µs from the driver's memory clock (kHz) and bus width (bits): two transfers a
/// clock of `bits / 8` bytes; `None` where either is not positive.
pub fn dram_peak(clock_khz: i32, bus_bits: i32) -> Option<f64> {
    (clock_khz > 0 && bus_bits > 0).then(|| 2.0 * clock_khz as f64 * 1e-3 * bus_bits as f64 / 8.0)
}

/// The library's context: a CUDA device, the stream every launch of the library goes to, and the PTX
/// modules and kernels loaded so far. Made from a device ordinal ([`Gpu::new`]: the device's primary
/// context and its default stream) or from a stream of your own ([`Gpu::with_stream`]: work is enqueued
/// there, and nothing synchronizes behind your back). Cloning is cheap and shares the loaded kernels.
#[derive(Clone)]
pub struct Gpu {
    /// The driver context (primary context of the device).
    pub ctx: Arc<CudaContext>,
    /// The stream every launch, copy and timing event of this library uses.
    pub stream: Arc<CudaStream>,
    /// Device facts.
    pub info: DeviceInfo,
    /// PTX targets withheld by `KERNEL_LAB_WITHHOLD` (a test switch: `sm_90a` makes a Hopper behave as a
    /// GPU without `sm_90a` code, to show what an A100 or L4 runs and skips).
    pub withheld: Vec<Target>,
    /// One slot per (target, module) loaded whole ([`Gpu::module`], [`Gpu::preload`]), each with its own
    /// lock, so that loading one module (a JIT of seconds with a cold driver cache) never waits for another's.
    modules: Arc<Mutex<HashMap<(Target, Module), Arc<Mutex<Option<Arc<CudaModule>>>>>>>,
    /// Registered kernels already loaded by [`Gpu::kernel`] (reading a kernel's parameters from its PTX
    /// entry scans the module's text: once per kernel, not per launch of a helper grid).
    kernels: Arc<Mutex<HashMap<&'static str, Kernel>>>,
}

/// A kernel loaded from its module, with its descriptor.
#[derive(Clone)]
pub struct Kernel {
    /// Registry entry (name, family, launch shape).
    pub info: &'static KernelInfo,
    /// The driver function.
    pub func: CudaFunction,
    /// Its parameters' sizes in bytes, from its PTX entry (`None` if they could not be read).
    pub params: Option<Vec<u32>>,
    /// Whether its PTX entry executes `griddepcontrol.wait` (a PDL-aware kernel, sm_90): it waits for the
    /// previous grid before touching memory, so [`launch!`](crate::launch) launches it with programmatic
    /// stream serialization and it may be dispatched while that grid still runs. (What lets the *next*
    /// grid start early is `griddepcontrol.launch_dependents`; a kernel needs the wait to be launched
    /// early itself.) A kernel loaded from outside the lab's PTX is judged the same way: its `wait`
    /// must come before any access a previous grid may make — the contract of [`launch_pdl`].
    pub pdl: bool,
}

/// Whether kernel `name`'s entry in `ptx` executes `griddepcontrol.wait` (PDL-aware).
fn waits_on_previous_grid(ptx: &str, name: &str) -> bool {
    crate::runtime::ptx::entry_body(ptx, name).is_some_and(|b| b.contains("griddepcontrol.wait"))
}

/// Whether PDL-aware kernels are launched with programmatic dependent launch: yes unless
/// `KERNEL_LAB_PDL=0` (read once).
pub fn pdl_enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("KERNEL_LAB_PDL").map_or(true, |v| v.trim() != "0"))
}

/// Registers and local (spill/stack) memory per thread, and static shared memory, as the driver reports.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct KernelResources {
    /// Registers per thread.
    pub registers: i32,
    /// Local memory per thread in bytes (stack frame and spills; 0 is what we want).
    pub local_bytes: i32,
    /// Static shared memory per block in bytes.
    pub static_smem_bytes: i32,
}

impl Kernel {
    /// The kernel `info.name` loaded as `func`, with what its entry in `ptx` says: its parameters' sizes
    /// and whether it waits on the previous grid (`griddepcontrol.wait`: a PDL launch).
    /// `KERNEL_LAB_PDL=0` launches every kernel plainly (its `griddepcontrol.wait` then returns at once):
    /// the switch for timing PDL against a plain launch of the same code.
    fn from_ptx(info: &'static KernelInfo, func: CudaFunction, ptx: &str) -> Kernel {
        let pdl = pdl_enabled() && waits_on_previous_grid(ptx, info.name);
        Kernel { info, func, params: crate::runtime::ptx::entry_params(ptx, info.name), pdl }
    }

    /// Checks a launch's argument sizes against the kernel's parameters (from its PTX); the error names
    /// the kernel and both lists. Kernels whose parameters could not be read are not checked.
    pub fn check_args(&self, sizes: &[u32]) -> Result<()> {
        match &self.params {
            Some(p) if p.as_slice() != sizes => Err(Error::InvalidInput(format!(
                "`{}` takes {} parameters of {:?} bytes (its PTX), the launch passes {} of {:?} bytes", self.name(), p.len(), p, sizes.len(), sizes))),
            _ => Ok(()),
        }
    }

    /// The kernel's PTX entry name.
    pub fn name(&self) -> &'static str {
        self.info.name
    }

    /// Registers, local bytes and static shared memory from `cuFuncGetAttribute`.
    pub fn resources(&self) -> Result<KernelResources> {
        let get = |a| self.func.get_attribute(a).during(|| format!("cuFuncGetAttribute({a:?}) of `{}`", self.name()));
        Ok(KernelResources {
            registers: get(FnAttr::CU_FUNC_ATTRIBUTE_NUM_REGS)?,
            local_bytes: get(FnAttr::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)?,
            static_smem_bytes: get(FnAttr::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?,
        })
    }

    /// How many blocks of this kernel fit on one SM at its registered block size and shared memory.
    pub fn max_blocks_per_sm(&self) -> Result<u32> {
        self.func
            .occupancy_max_active_blocks_per_multiprocessor(self.info.block_threads, self.info.dyn_smem_bytes as usize, None)
            .map(|b| b as u32)
            .during(|| format!("occupancy query of `{}`", self.name()))
    }
}

impl Kernel {
    /// How many clusters of `cluster` CTAs of this kernel can be resident on the GPU at once
    /// (`cuOccupancyMaxActiveClusters`, at its registered block size and shared memory): the grid a
    /// persistent cluster kernel should not exceed. SMs of a GPC that cannot pair up stay idle, so this
    /// can be less than `SMs / cluster`.
    pub fn max_active_clusters(&self, gpu: &Gpu, cluster: u32) -> Result<u32> {
        let config = sys::CUlaunchConfig {
            gridDimX: cluster, gridDimY: 1, gridDimZ: 1, blockDimX: self.info.block_threads, blockDimY: 1, blockDimZ: 1,
            sharedMemBytes: self.info.dyn_smem_bytes, hStream: gpu.stream.cu_stream(), attrs: std::ptr::null_mut(), numAttrs: 0,
        };
        let mut n: std::ffi::c_int = 0;
        // SAFETY: `n` is written by the call; `config` lives across it and names no attributes (the
        // kernel's cluster shape is its compile-time `.reqnctapercluster`); the function is loaded in
        // this context.
        unsafe { sys::cuOccupancyMaxActiveClusters(&mut n, self.func.cu_function(), &config) }.result()
            .during(|| format!("cluster occupancy query of `{}` (clusters of {cluster})", self.name()))?;
        Ok(n.max(0) as u32)
    }

    /// [`Kernel::max_active_clusters`], refused as `Unsupported` (naming the cluster size and shared
    /// memory) where not one cluster fits: a persistent cluster kernel cannot run there.
    pub fn require_clusters(&self, gpu: &Gpu, cluster: u32) -> Result<u32> {
        let c = self.max_active_clusters(gpu, cluster)?;
        if c == 0 {
            return Err(crate::error::Error::Unsupported { kernel: self.name().into(),
                                                          needs: format!("clusters of {cluster} CTAs with {} B of shared memory each", self.info.dyn_smem_bytes),
                                                          have: "a GPU on which none fit (cuOccupancyMaxActiveClusters = 0)".into() });
        }
        Ok(c)
    }
}

/// A `cuDriverGetVersion` number as CUDA's `major.minor` (12010 → "12.1").
pub fn cuda_version(driver: i32) -> String {
    format!("{}.{}", driver / 1000, driver % 1000 / 10)
}

/// Whether a CUDA driver library can be loaded on this machine (no GPU needed to ask).
pub fn driver_present() -> bool {
    // SAFETY: only tries to dlopen libcuda by its usual names; no CUDA call is made.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

impl Gpu {
    /// Opens device `ordinal`. Fails with [`Error::NoGpu`] (not a panic) when no driver or no device exists.
    pub fn new(ordinal: usize) -> Result<Self> {
        if !driver_present() {
            return Err(Error::NoGpu("the CUDA driver library (libcuda.so) was not found".into()));
        }
        let count = CudaContext::device_count().map_err(|e| Error::NoGpu(format!(
            "the driver reports no usable device ({})", crate::error::driver_msg(&e))))?;
        if ordinal >= count as usize {
            return Err(Error::NoGpu(format!("device {ordinal} requested, the driver sees {count}")));
        }
        let ctx = CudaContext::new(ordinal).during(|| format!("creating a context on device {ordinal}"))?;
        // SAFETY: this context is the library's own and it uses a single stream, so cudarc's per-buffer
        // event tracking (which orders buffers used on several streams) has nothing to order; turning
        // it off keeps extra event records out of timed loops. Called before any buffer is allocated
        // here; a caller who shares the device's primary context and wants tracking passes its own
        // stream to `Gpu::with_stream` instead.
        unsafe { ctx.disable_event_tracking() };
        Self::with_stream(ctx.default_stream())
    }

    /// The library on `stream`, a stream of your own (candle's, or any cudarc program's): every launch,
    /// copy and allocation of the library is enqueued there, on the stream's context, and no call
    /// synchronizes unless its documentation says it returns a host value. cudarc's event tracking is
    /// left as the caller set it (the library's operations take the buffers' guards, so buffers used on
    /// other streams are ordered as cudarc orders them).
    pub fn with_stream(stream: Arc<CudaStream>) -> Result<Self> {
        let ctx = stream.context().clone();
        let attr = |a: Attr| ctx.attribute(a).during(|| format!("cuDeviceGetAttribute({a:?})"));
        let mut driver_version = 0;
        // SAFETY: writes one int through a valid pointer.
        unsafe { sys::cuDriverGetVersion(&mut driver_version) }.result().during(|| "cuDriverGetVersion".into())?;
        let info = DeviceInfo {
            name: ctx.name().during(|| "cuDeviceGetName".into())?,
            compute_capability: ctx.compute_capability().during(|| "compute capability query".into())?,
            sms: attr(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32,
            l2_bytes: attr(Attr::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)? as usize,
            total_mem_bytes: ctx.total_mem().during(|| "cuDeviceTotalMem".into())?,
            driver_version,
            dram_peak_bytes_per_us: dram_peak(attr(Attr::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE).unwrap_or(0), attr(Attr::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH).unwrap_or(0)),
        };
        let withheld = withheld_targets(std::env::var("KERNEL_LAB_WITHHOLD").ok().as_deref())?;
        Ok(Gpu { ctx, stream, info, withheld, modules: Arc::default(), kernels: Arc::default() })
    }

    /// Why this GPU cannot run `kernel` (its module's target is not runnable on this compute
    /// capability, or is withheld), or `None` when it can.
    pub fn cannot_run(&self, kernel: &KernelInfo) -> Option<String> {
        let (t, cc) = (kernel.target, self.info.compute_capability);
        if self.withheld.contains(&t) {
            Some(format!("{} needs the {} module, withheld by KERNEL_LAB_WITHHOLD", kernel.name, t.name()))
        } else if !t.runs_on(cc) {
            Some(format!("{} needs a GPU that runs {} code; {} is compute capability {}.{}", kernel.name, t.name(), self.info.name, cc.0, cc.1))
        } else if self.info.driver_version < t.min_driver() {
            Some(format!("{} is in the {} module, which needs a CUDA {}+ driver (its PTX ISA version); this driver is CUDA {}", kernel.name,
                         t.name(), cuda_version(t.min_driver()), cuda_version(self.info.driver_version)))
        } else {
            None
        }
    }

    /// Whether this GPU runs `target`'s modules: its compute capability, the driver's PTX ISA version, and
    /// not withheld by `KERNEL_LAB_WITHHOLD`.
    pub fn runs(&self, target: Target) -> bool {
        !self.withheld.contains(&target) && target.runs_on(self.info.compute_capability) && self.info.driver_version >= target.min_driver()
    }

    /// PTX module `module` for `target`, loaded whole on first use (every kernel of the family
    /// JIT-compiled at once; [`Gpu::kernel`] loads a kernel alone unless its whole module is loaded). A
    /// load failure returns the driver's JIT log; a load that takes over a second (the driver
    /// JIT-compiling a large module with an empty cache, `~/.nv/ComputeCache`) says so on stderr.
    pub fn module(&self, target: Target, module: Module) -> Result<Arc<CudaModule>> {
        let slot = self.modules.lock().expect("module cache lock poisoned").entry((target, module)).or_default().clone();
        let mut slot = slot.lock().expect("module slot lock poisoned");
        if let Some(m) = slot.as_ref() {
            return Ok(m.clone());
        }
        let ptx = module.ptx(target);
        if ptx.is_empty() {
            return Err(Error::KernelNotFound { kernel: format!("the {} {} module", module.name(), target.name()),
                                               detail: "this build has no PTX for it (kernel-lab built without its `kernels` feature)".into() });
        }
        let t0 = std::time::Instant::now();
        let m = self.ctx.load_module(cudarc::nvrtc::Ptx::from_src(ptx))
            .map_err(|_| Error::PtxLoad { module: target.name(), log: self.jit_error_log(ptx) })?;
        let secs = t0.elapsed().as_secs_f64();
        if secs > 1.0 {
            eprintln!("note: the driver JIT-compiled the {} {} PTX module ({:.1} MB) in {secs:.1} s; it caches the result (~/.nv/ComputeCache), so later runs load it in well under a second",
                      module.name(), target.name(), ptx.len() as f64 / 1e6);
        }
        *slot = Some(m.clone());
        Ok(m)
    }

    /// Starts loading `modules` whole (each for every target this GPU runs), in the order given, one
    /// after another on one background thread, and returns at once. Kernels are otherwise loaded one
    /// module per kernel ([`Gpu::kernel`]); this is for a program that will launch most of a family's
    /// kernels (the suite's `--full`): with a cold driver cache a whole module's JIT takes seconds (up to
    /// ~35 s for the largest on an H200), done beside the program's first GPU work. A kernel whose whole
    /// module is not loaded yet does not wait for it: it is JIT-compiled alone, and the driver runs one
    /// JIT at a time per process, so preloading what a short run does not need delays it. One thread, in
    /// order, because the JITs did not overlap when started on a thread each. Failures are not reported
    /// here: the first kernel of a module that failed to load gets the error.
    pub fn preload(&self, modules: &[Module]) {
        let jobs: Vec<(Target, Module)> = modules.iter().flat_map(|&m| Target::ALL.map(|t| (t, m)))
            .filter(|&(t, m)| !self.withheld.contains(&t) && t.runs_on(self.info.compute_capability) && !m.ptx(t).is_empty())
            .collect();
        let gpu = self.clone();
        std::thread::spawn(move || {
            for (t, m) in jobs {
                let _ = gpu.module(t, m);
            }
        });
    }

    /// Kernel `name`'s function: from its whole module where that is loaded already ([`Gpu::module`],
    /// [`Gpu::preload`]), else from a module of that kernel alone ([`crate::runtime::ptx::entry_module`]),
    /// so that the driver JIT-compiles the kernels a program launches, not every kernel of their family
    /// (with a cold driver cache: a fraction of a second each, against 17–35 s for a large Hopper module).
    fn entry_function(&self, target: Target, m: Module, name: &str) -> Result<CudaFunction> {
        let not_found = |e: cudarc::driver::DriverError| Error::KernelNotFound {
            kernel: name.to_string(),
            detail: format!("not in PTX module {} {} ({})", m.name(), target.name(), crate::error::driver_msg(&e)),
        };
        if let Some(module) = self.loaded_module(target, m) {
            return module.load_function(name).map_err(not_found);
        }
        let text = m.entry_module(target, name).ok_or_else(|| Error::KernelNotFound {
            kernel: name.to_string(),
            detail: format!("no `.entry {name}` in PTX module {} {}", m.name(), target.name()),
        })?;
        let t0 = std::time::Instant::now();
        let module = self.ctx.load_module(cudarc::nvrtc::Ptx::from_src(text.clone()))
            .map_err(|_| Error::PtxLoad { module: target.name(), log: self.jit_error_log(&text) })?;
        let secs = t0.elapsed().as_secs_f64();
        if secs > 1.0 {
            eprintln!("note: the driver JIT-compiled `{name}` ({} {}, {:.2} MB of PTX) in {secs:.1} s; it caches the result (~/.nv/ComputeCache), so later runs load it in milliseconds",
                      m.name(), target.name(), text.len() as f64 / 1e6);
        }
        module.load_function(name).map_err(not_found)
    }

    /// The whole module (`target`, `m`) if it is loaded already (not waiting for one being loaded).
    fn loaded_module(&self, target: Target, m: Module) -> Option<Arc<CudaModule>> {
        let slot = self.modules.lock().ok()?.get(&(target, m))?.clone();
        let loaded = slot.try_lock().ok()?.clone();
        loaded
    }

    /// Re-runs the JIT with an error-log buffer to say *why* a module failed to load.
    fn jit_error_log(&self, ptx: &str) -> String {
        let Ok(src) = CString::new(ptx) else { return "PTX contains a NUL byte".into() };
        let mut log = vec![0u8; 16 * 1024];
        let mut opts = [sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER, sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES];
        let mut vals = [log.as_mut_ptr() as *mut std::ffi::c_void, log.len() as *mut std::ffi::c_void];
        let mut module = std::ptr::null_mut();
        // SAFETY: the context is current (bind_to_thread); `src` is NUL-terminated; the option arrays
        // have 2 entries each and the log buffer outlives the call; a module created here is unloaded.
        unsafe {
            let _ = self.ctx.bind_to_thread();
            let r = sys::cuModuleLoadDataEx(&mut module, src.as_ptr() as *const _, 2, opts.as_mut_ptr(), vals.as_mut_ptr());
            if r == sys::CUresult::CUDA_SUCCESS && !module.is_null() {
                sys::cuModuleUnload(module);
            }
            let _ = r;
        }
        let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
        String::from_utf8_lossy(&log[..end]).into_owned()
    }

    /// Kernel `name` from a PTX module of your own (e.g. built by `ptx-builder` and embedded with
    /// `include_str!`), ready for [`launch!`](crate::launch) with `block_threads` threads per block and
    /// `dyn_smem_bytes` of dynamic shared memory. A module the driver refuses is an error carrying the
    /// JIT log; a missing entry names the kernel and the module.
    pub fn load_kernel(&self, ptx: &'static str, module: &'static str, name: &str, block_threads: u32, dyn_smem_bytes: u32) -> Result<Kernel> {
        let m = self.ctx.load_module(cudarc::nvrtc::Ptx::from_src(ptx))
            .map_err(|_| Error::PtxLoad { module, log: self.jit_error_log(ptx) })?;
        let func = m.load_function(name).map_err(|e| Error::KernelNotFound {
            kernel: name.to_string(),
            detail: format!("not in PTX module {module} ({})", crate::error::driver_msg(&e)),
        })?;
        allow_dyn_smem(&func, name, dyn_smem_bytes)?;
        // One small descriptor per loaded kernel, kept for the program's life (kernels are loaded once).
        let info: &'static KernelInfo = Box::leak(Box::new(KernelInfo {
            name: Box::leak(name.to_string().into_boxed_str()), family: Family::External, step: "-", target: Target::Sm80,
            block_threads, launch_bounds: None, dyn_smem_bytes, about: module, ptx: crate::steps::PtxCheck::NONE,
        }));
        Ok(Kernel::from_ptx(info, func, ptx))
    }

    /// The registered kernel `name`, loaded once (later calls return the loaded kernel): from a module of
    /// that kernel alone, cut from its family's PTX, unless the family's whole module is loaded already.
    /// Errors name the kernel: not registered, not runnable on this GPU, or not found in the PTX.
    pub fn kernel(&self, name: &str) -> Result<Kernel> {
        let info = steps::find(name).ok_or_else(|| Error::KernelNotFound {
            kernel: name.to_string(),
            detail: "no descriptor in kernel_lab::steps (and so not loadable)".into(),
        })?;
        if let Some(k) = self.kernels.lock().expect("kernel cache lock poisoned").get(info.name) {
            return Ok(k.clone());
        }
        let k = self.load_registered(info)?;
        self.kernels.lock().expect("kernel cache lock poisoned").insert(info.name, k.clone());
        Ok(k)
    }

    /// Loads the registered kernel `info` from its module (for [`Gpu::kernel`]).
    fn load_registered(&self, info: &'static KernelInfo) -> Result<Kernel> {
        let name = info.name;
        let cc = self.info.compute_capability;
        if self.cannot_run(info).is_some() {
            let old_driver = self.info.driver_version < info.target.min_driver() && info.target.runs_on(cc) && !self.withheld.contains(&info.target);
            return Err(Error::Unsupported {
                kernel: name.to_string(),
                needs: if old_driver {
                    format!("a CUDA {}+ driver (the {} module's PTX ISA version)", cuda_version(info.target.min_driver()), info.target.name())
                } else {
                    format!("a GPU that runs {} code", info.target.name())
                },
                have: if old_driver {
                    format!("a CUDA {} driver", cuda_version(self.info.driver_version))
                } else if self.withheld.contains(&info.target) {
                    format!("{} with the {} module withheld (KERNEL_LAB_WITHHOLD)", self.info.name, info.target.name())
                } else {
                    format!("{} (compute capability {}.{})", self.info.name, cc.0, cc.1)
                },
            });
        }
        let m = Module::of(info.family).ok_or_else(|| Error::KernelNotFound { kernel: name.to_string(), detail: "not a kernel of the lab's modules".into() })?;
        // An sm_80 kernel whose sm_90a build is PDL-aware (the PDL prologue of `kernels-gpu/src/util/pdl.rs`
        // is compiled into the sm_90a module only) runs from that build where the GPU runs it: the same
        // source, so a decode step's kernels can overlap their launches with the previous kernel's end.
        let target = if info.target == Target::Sm80 && self.runs(Target::Sm90a) && waits_on_previous_grid(m.ptx(Target::Sm90a), name) {
            Target::Sm90a
        } else {
            info.target
        };
        let func = self.entry_function(target, m, name)?;
        allow_dyn_smem(&func, name, info.dyn_smem_bytes)?;
        if info.family == Family::Hgemm && info.target == Target::Sm90a {
            // The Hopper steps live on shared memory (stage rings; h1/h2 count on 3 CTAs per SM): ask for
            // the largest shared-memory carveout, so L1's share never decides how many CTAs fit.
            func.set_attribute(FnAttr::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 100)
                .during(|| format!("setting the shared-memory carveout of `{name}`"))?;
        }
        Ok(Kernel::from_ptx(info, func, m.ptx(target)))
    }

    /// Copies a host slice to a new device buffer.
    pub fn upload<T: DeviceRepr>(&self, host: &[T]) -> Result<CudaSlice<T>> {
        self.stream.clone_htod(host).during(|| format!("copying {} elements to the device", host.len()))
    }

    /// Allocates `len` zeroed elements.
    pub fn zeros<T: DeviceRepr + ValidAsZeroBits>(&self, len: usize) -> Result<CudaSlice<T>> {
        self.stream.alloc_zeros(len).during(|| format!("allocating {len} elements"))
    }

    /// Copies a device buffer back to a new `Vec`.
    pub fn download<T: DeviceRepr + Default + Clone>(&self, dev: &CudaSlice<T>) -> Result<Vec<T>> {
        self.stream.clone_dtoh(dev).during(|| format!("copying {} elements to the host", dev.len()))
    }

    /// Fills every byte of `buf` with `0xFF` (for f32/f16: NaN), so an element a kernel fails to write
    /// is detected afterwards ([`crate::runtime::verify::check_written`]).
    pub fn poison<T>(&self, buf: &mut CudaSlice<T>) -> Result<()> {
        let bytes = buf.num_bytes();
        let (ptr, _sync) = cudarc::driver::DevicePtrMut::device_ptr_mut(buf, &self.stream);
        // SAFETY: `ptr` is a live allocation of `bytes` bytes owned by `buf`, borrowed mutably for the call.
        unsafe { cudarc::driver::result::memset_d8_async(ptr, 0xFF, bytes, self.stream.cu_stream()) }
            .during(|| format!("poisoning a buffer of {bytes} bytes"))
    }

    /// Waits for the stream; an asynchronous kernel fault is reported as a failure of `last_kernel`.
    pub fn sync_after(&self, last_kernel: &str) -> Result<()> {
        self.stream.synchronize().map_err(|source| Error::Launch { kernel: last_kernel.to_string(), source })
    }
}

/// A grid size: `u32` (1-D) or `(x, y)` (2-D).
pub trait Grid {
    /// `(x, y, z)` blocks.
    fn dims(self) -> (u32, u32, u32);
}
impl Grid for u32 {
    fn dims(self) -> (u32, u32, u32) { (self, 1, 1) }
}
impl Grid for (u32, u32) {
    fn dims(self) -> (u32, u32, u32) { (self.0, self.1, 1) }
}
impl Grid for (u32, u32, u32) {
    fn dims(self) -> (u32, u32, u32) { self }
}

/// The targets named in `KERNEL_LAB_WITHHOLD` (comma-separated, e.g. `sm_90a`); an unknown name is an
/// error naming the known ones. `sm_80` cannot be withheld (every family needs it).
pub fn withheld_targets(var: Option<&str>) -> Result<Vec<Target>> {
    let mut out = vec![];
    for name in var.unwrap_or("").split(',').map(str::trim).filter(|n| !n.is_empty()) {
        match Target::ALL.into_iter().find(|t| t.name() == name) {
            Some(Target::Sm80) => return Err(Error::InvalidInput("KERNEL_LAB_WITHHOLD=sm_80: every family needs the sm_80 module; only sm_90a can be withheld".into())),
            Some(t) => out.push(t),
            None => return Err(Error::InvalidInput(format!("KERNEL_LAB_WITHHOLD: unknown target `{name}` (sm_90a can be withheld)"))),
        }
    }
    Ok(out)
}

/// A kernel's `&[T]` / `&mut [T]` parameter as the device sees it: the slice's address and its length
/// in elements, passed by value (PTX: `.param .align 8 .b8 [16]`, how rustc's `ptx-kernel` ABI takes a
/// slice). Typed launchers build it from a device buffer and its length.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceParam {
    /// Device address of element 0.
    pub ptr: u64,
    /// Elements.
    pub len: u64,
}

// SAFETY: two u64, `repr(C)`: plain bytes the driver copies into the parameter buffer, no pointers to
// host memory, no padding.
unsafe impl cudarc::driver::DeviceRepr for SliceParam {}

/// The checks a typed launcher (generated by `ptx-builder` from a `#[kernel]` record) makes before it
/// launches: `kernel` is the kernel `name` it was generated for; the block is 1–1024 threads and within
/// the kernel's launch bound (`max_threads`, 0: none); the grid's dimensions are at least 1 (y and z at
/// most 65535); the dynamic shared memory fits the GPU's per-block limit (raised on the function where
/// above 48 KiB); and `sizes`, the arguments' byte sizes, match the kernel's PTX parameters. Errors name
/// the kernel and what is wrong.
pub fn check_launch(gpu: &Gpu, kernel: &Kernel, name: &str, max_threads: u32, cfg: &cudarc::driver::LaunchConfig, sizes: &[u32]) -> Result<()> {
    let bad = |why: String| Err(Error::InvalidInput(format!("launch of `{name}`: {why}")));
    if kernel.name() != name {
        return bad(format!("given the kernel `{}` (load it with `{name}::load`)", kernel.name()));
    }
    let (bx, by, bz) = cfg.block_dim;
    let threads = bx as u64 * by as u64 * bz as u64;
    if bx == 0 || by == 0 || bz == 0 || threads > 1024 {
        return bad(format!("a block of {bx}×{by}×{bz} threads (1 to 1024 in all)"));
    }
    if max_threads > 0 && threads > max_threads as u64 {
        return bad(format!("a block of {threads} threads, above its launch bound of {max_threads} (#[kernel(threads = {max_threads})])"));
    }
    let (gx, gy, gz) = cfg.grid_dim;
    if gx == 0 || gy == 0 || gz == 0 || gy > 65_535 || gz > 65_535 {
        return bad(format!("a grid of {gx}×{gy}×{gz} blocks (each at least 1; y and z at most 65535)"));
    }
    let limit = gpu.ctx.attribute(cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
        .during(|| "reading the shared memory limit".into())? as u32;
    if cfg.shared_mem_bytes > limit {
        return bad(format!("{} bytes of dynamic shared memory, above this GPU's {limit} per block", cfg.shared_mem_bytes));
    }
    allow_dyn_smem(&kernel.func, name, cfg.shared_mem_bytes)?;
    kernel.check_args(sizes)
}

/// Writes `SKIPPED <what>: <why>` to the process's stderr as one line in one write: not `eprintln!`, which the
/// test harness captures (the line must show in a passing run: CI counts the skipped tests by it), and not
/// `writeln!` on the unbuffered stderr, which writes the pieces one by one — between them the harness's own
/// lines, running tests in parallel, landed inside it, and CI's count of 459 tests read 76–79 skipped by run.
pub fn report_skip(what: &str, why: &dyn std::fmt::Display) {
    use std::io::Write as _;
    let line = format!("SKIPPED {what}: {why}\n");
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

/// GPU 0 for a test or a bench named `what`, or `None` after writing `SKIPPED <what>: <why>` to stderr
/// where there is no driver or no device (`Error::NoGpu`); a driver that is present but unusable panics,
/// naming `what` (a broken GPU machine must not pass as a skipped one).
pub fn gpu_or_skip(what: &str) -> Option<Gpu> {
    match Gpu::new(0) {
        Ok(g) => Some(g),
        Err(e @ Error::NoGpu(_)) => {
            report_skip(what, &e);
            None
        }
        Err(e) => panic!("{what}: a GPU driver is present but unusable: {e}"),
    }
}

/// [`gpu_or_skip`] for a test that needs `kernel`'s module (e.g. the Hopper-only sm_90a kernels): the GPU
/// when it can run `kernel`, else `None` after the same `SKIPPED {what}: why` line on stderr.
pub fn gpu_that_runs_or_skip(what: &str, kernel: &KernelInfo) -> Option<Gpu> {
    let gpu = gpu_or_skip(what)?;
    if let Some(why) = gpu.cannot_run(kernel) {
        report_skip(what, &why);
        return None;
    }
    Some(gpu)
}

/// An example program's `main`: runs `run` on GPU 0 and exits — 0 when it succeeds, 1 with `error: …`
/// on stderr when it fails, 2 with the reason (and `without_gpu`, what still works without one) when
/// there is no usable GPU.
pub fn main_on_gpu(without_gpu: &str, run: impl FnOnce(&Gpu) -> Result<()>) -> ! {
    let code = match Gpu::new(0) {
        Err(e) => {
            eprintln!("error: {e}\n{without_gpu}");
            2
        }
        Ok(gpu) => run(&gpu).map_or_else(|e| {
            eprintln!("error: {e}");
            1
        }, |()| 0),
    };
    std::process::exit(code)
}

/// Raises `func`'s dynamic shared memory limit to `bytes` where it is above the default 48 KiB.
fn allow_dyn_smem(func: &CudaFunction, name: &str, bytes: u32) -> Result<()> {
    if bytes > 48 * 1024 {
        func.set_attribute(FnAttr::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes as i32)
            .during(|| format!("raising the dynamic shared memory limit of `{name}`"))?;
    }
    Ok(())
}

/// Launches a registered kernel on the library's stream with its registered block size and dynamic
/// shared memory; errors name the kernel. Before the launch, the number of arguments and each one's
/// size (device buffers: an 8-byte pointer; scalars: their size) are checked against the kernel's
/// parameters in its PTX, so a wrong count or a `u64` where the kernel takes a `u32` is an error, not
/// a launch. Expands to an `unsafe` launch: the caller's `unsafe` block asserts what the sizes cannot
/// — that the arguments match the kernel's signature and its `# Safety` contract. A kernel whose PTX
/// executes `griddepcontrol.wait` ([`Kernel::pdl`]) is launched by [`launch_pdl`] (programmatic
/// dependent launch): its contract then includes that the wait comes before any memory access a
/// previous grid on the stream may make.
#[macro_export]
macro_rules! launch {
    ($gpu:expr, $kernel:expr, grid = $grid:expr, $($arg:expr),* $(,)?) => {{
        let k: &$crate::runtime::gpu::Kernel = $kernel;
        let cfg = $crate::cudarc::driver::LaunchConfig {
            grid_dim: $crate::runtime::gpu::Grid::dims($grid),
            block_dim: (k.info.block_threads, 1, 1),
            shared_mem_bytes: k.info.dyn_smem_bytes,
        };
        let mut b = $gpu.stream.launch_builder(&k.func);
        // A stack array sized by the argument count: no allocation on the (timed) launch path.
        #[allow(unused_mut)]
        let mut sizes = [0u32; 0 $( + { let _ = stringify!($arg); 1 } )*];
        // Each parameter's bytes too, for a PDL-aware kernel's launch (`launch_pdl`): in a slot, or
        // where they lie for a parameter larger than a slot (a tensor map by value).
        #[allow(unused_mut)]
        let mut slots = [0u64; 0 $( + { let _ = stringify!($arg); 1 } )*];
        #[allow(unused_mut)]
        let mut by_ref = [std::ptr::null::<std::ffi::c_void>(); 0 $( + { let _ = stringify!($arg); 1 } )*];
        #[allow(unused_mut, unused_variables)]
        let mut i = 0;
        $( {
            let a = $arg;
            sizes[i] = $crate::runtime::gpu::ParamBytes::param_bytes(&a);
            if k.pdl {
                slots[i] = $crate::runtime::gpu::ParamBytes::param_slot(&a, &$gpu.stream);
                by_ref[i] = $crate::runtime::gpu::ParamBytes::param_ref(&a);
            }
            i += 1;
            $crate::cudarc::driver::PushKernelArg::arg(&mut b, a);
        } )*
        let _ = i;
        match k.check_args(&sizes) {
            Err(e) => Err(e),
            // A PDL-aware kernel: the same arguments, as 8-byte slots, through cuLaunchKernelEx.
            Ok(()) if k.pdl => $crate::runtime::gpu::launch_pdl(&$gpu.stream, k, cfg, &mut slots, &by_ref),
            Ok(()) => b.launch(cfg).map(|_| ()).map_err(|source| $crate::error::Error::Launch { kernel: k.info.name.to_string(), source }),
        }
    }};
}

/// The most parameters [`launch_pdl`] passes (pointers on the stack: no allocation on the timed path).
pub const PDL_MAX_PARAMS: usize = 32;

/// Launches `k` on `stream` with `CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION` (programmatic
/// dependent launch): the grid may be dispatched while the previous grid on the stream is still
/// running, once all of that grid's CTAs executed `griddepcontrol.launch_dependents`; the kernel waits
/// for it in `griddepcontrol.wait` before touching memory. `slots` holds each parameter's bytes in the
/// low bytes of an 8-byte slot, unless `by_ref` has a non-null pointer at its index: then the
/// parameter's bytes are there (a parameter larger than 8 bytes: a tensor map by value). Their number
/// must be the kernel's (from its PTX), at most [`PDL_MAX_PARAMS`], and each parameter of more than 8
/// bytes must come by reference: checked here, an error otherwise.
///
/// # Safety
/// As a launch through [`launch!`](crate::launch): the arguments match the kernel's signature and its
/// `# Safety` contract, and the kernel executes `griddepcontrol.wait` before any memory access that a
/// previous grid on the stream may make (its inputs and its outputs alike). Each non-null `by_ref[i]`
/// points to as many readable bytes as the kernel's parameter `i` has (its PTX; `launch!` checks the
/// argument's size against it).
pub unsafe fn launch_pdl(stream: &std::sync::Arc<cudarc::driver::CudaStream>, k: &Kernel, cfg: cudarc::driver::LaunchConfig, slots: &mut [u64],
                         by_ref: &[*const std::ffi::c_void]) -> Result<()> {
    let fits = k.params.as_ref().is_some_and(|p| {
        p.len() == slots.len() && p.len() == by_ref.len() && p.len() <= PDL_MAX_PARAMS && p.iter().zip(by_ref).all(|(&b, r)| b <= 8 || !r.is_null())
    });
    if !fits {
        return Err(Error::InvalidInput(format!("`{}`: a PDL launch passes one slot per parameter of at most 8 bytes, larger ones by reference, at most \
                                                 {PDL_MAX_PARAMS} (its PTX: {:?}, slots: {})", k.name(), k.params, slots.len())));
    }
    let mut ptrs = [std::ptr::null_mut::<std::ffi::c_void>(); PDL_MAX_PARAMS];
    for ((p, s), r) in ptrs.iter_mut().zip(slots.iter_mut()).zip(by_ref) {
        *p = if r.is_null() { s as *mut u64 as *mut std::ffi::c_void } else { r.cast_mut() };
    }
    // SAFETY: a zeroed attribute is a valid bit pattern (an id and a union of plain integers); the id
    // and the one field read for it are set next.
    let mut attr: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
    attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attr.value.programmaticStreamSerializationAllowed = 1;
    let config = sys::CUlaunchConfig {
        gridDimX: cfg.grid_dim.0, gridDimY: cfg.grid_dim.1, gridDimZ: cfg.grid_dim.2,
        blockDimX: cfg.block_dim.0, blockDimY: cfg.block_dim.1, blockDimZ: cfg.block_dim.2,
        sharedMemBytes: cfg.shared_mem_bytes, hStream: stream.cu_stream(), attrs: &mut attr, numAttrs: 1,
    };
    stream.context().bind_to_thread().map_err(|source| Error::Launch { kernel: k.info.name.to_string(), source })?;
    // SAFETY: `config`, `attr`, `slots`, `ptrs` and what `by_ref` points to outlive the call (the driver
    // copies the parameters before it returns); the first `slots.len()` pointers are one per parameter
    // (the count checked against the PTX above), each to 8 bytes whose low bytes are the parameter
    // (little-endian, a parameter of at most 8 bytes) or to a larger parameter's own bytes (the
    // caller's contract: as many as the PTX declares); the function is loaded in this context; the
    // caller's contract covers what the kernel does with them.
    unsafe { sys::cuLaunchKernelEx(&config, k.func.cu_function(), ptrs.as_mut_ptr(), std::ptr::null_mut()) }.result()
        .map_err(|source| Error::Launch { kernel: k.info.name.to_string(), source })
}

/// The bytes a [`launch!`](crate::launch) argument takes as a kernel parameter: a device buffer passes
/// its 8-byte address, a scalar its own size.
pub trait ParamBytes {
    /// Size in bytes of the parameter this argument becomes.
    fn param_bytes(&self) -> u32;
    /// The parameter's bytes in the low bytes of a `u64` (little-endian): a device buffer's address, a
    /// scalar's bits; what [`launch_pdl`] passes. For a buffer this takes cudarc's `device_ptr` and
    /// drops its guard at once: harmless because this library's context has cudarc's event tracking
    /// off (`Gpu::new`), so the guard records nothing; with tracking on, a PDL launch would have to
    /// record the buffer's read and write events itself.
    fn param_slot(&self, stream: &std::sync::Arc<cudarc::driver::CudaStream>) -> u64;
    /// Where the parameter's bytes lie, for one larger than a slot (a tensor map by value), which
    /// [`launch_pdl`] passes by reference; null (the default) for a parameter passed in its slot.
    fn param_ref(&self) -> *const std::ffi::c_void {
        std::ptr::null()
    }
}

impl<T> ParamBytes for &CudaSlice<T> {
    fn param_bytes(&self) -> u32 {
        8
    }
    fn param_slot(&self, stream: &std::sync::Arc<cudarc::driver::CudaStream>) -> u64 {
        cudarc::driver::DevicePtr::device_ptr(*self, stream).0
    }
}

impl<T> ParamBytes for &mut CudaSlice<T> {
    fn param_bytes(&self) -> u32 {
        8
    }
    fn param_slot(&self, stream: &std::sync::Arc<cudarc::driver::CudaStream>) -> u64 {
        cudarc::driver::DevicePtr::device_ptr(&**self, stream).0
    }
}

impl<T> ParamBytes for &cudarc::driver::CudaView<'_, T> {
    fn param_bytes(&self) -> u32 {
        8
    }
    fn param_slot(&self, stream: &std::sync::Arc<cudarc::driver::CudaStream>) -> u64 {
        cudarc::driver::DevicePtr::device_ptr(*self, stream).0
    }
}

impl<T> ParamBytes for &mut cudarc::driver::CudaViewMut<'_, T> {
    fn param_bytes(&self) -> u32 {
        8
    }
    fn param_slot(&self, stream: &std::sync::Arc<cudarc::driver::CudaStream>) -> u64 {
        cudarc::driver::DevicePtr::device_ptr(&**self, stream).0
    }
}

macro_rules! scalar_param_bytes {
    ($($t:ty => $bits:expr),*) => { $( impl ParamBytes for &$t {
        fn param_bytes(&self) -> u32 { std::mem::size_of::<$t>() as u32 }
        fn param_slot(&self, _: &std::sync::Arc<cudarc::driver::CudaStream>) -> u64 { let f: fn($t) -> u64 = $bits; f(**self) }
    } )* };
}
scalar_param_bytes!(u8 => |v| v as u64, i8 => |v| v as u8 as u64, u16 => |v| v as u64, i16 => |v| v as u16 as u64, u32 => |v| v as u64,
                    i32 => |v| v as u32 as u64, u64 => |v| v, i64 => |v| v as u64, f32 => |v| v.to_bits() as u64, f64 => |v| v.to_bits(),
                    half::f16 => |v| v.to_bits() as u64, half::bf16 => |v| v.to_bits() as u64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_withhold_switch_takes_sm_90a_only() {
        assert_eq!(withheld_targets(None).unwrap(), vec![]);
        assert_eq!(withheld_targets(Some("")).unwrap(), vec![]);
        assert_eq!(withheld_targets(Some(" sm_90a ")).unwrap(), vec![Target::Sm90a]);
        assert!(withheld_targets(Some("sm_80")).unwrap_err().to_string().contains("only sm_90a can be withheld"));
        assert!(withheld_targets(Some("sm_100")).unwrap_err().to_string().contains("unknown target `sm_100`"));
    }
}
