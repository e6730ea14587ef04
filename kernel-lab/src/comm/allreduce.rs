//! The all-reduce entry point: `Σ_ranks buf[r]` into every rank's buffer, on each rank's stream, by
//! the step a cost model picks for the message size (NCCL, one-shot or two-shot), or by the one asked.
use std::time::Duration;

use cudarc::{
    driver::{CudaView, CudaViewMut, DevicePtr, DevicePtrMut, DeviceRepr, DeviceSlice, ValidAsZeroBits},
    nccl::NcclType,
};
use half::{bf16, f16};
use layout::comm::{BLOCK, CTRL_STATUS, MAX_BLOCKS, MAX_NORM_HIDDEN, SIGNAL_BYTES, Status, VEC_BYTES};

use super::{
    group::{Group, Placement},
    nccl::{self, Nccl},
};
use crate::{
    error::{DriverContext, Error, Result},
    launch,
    runtime::gpu::{Kernel, ParamBytes},
};

/// An element type the all-reduce sums (in f32 for the custom steps; NCCL in its own type).
pub trait Reducible: DeviceRepr + ValidAsZeroBits + NcclType + Copy + Default {
    /// The kernels' suffix (`f32`, `f16`, `bf16`).
    const SUFFIX: &'static str;
}
impl Reducible for f32 {
    const SUFFIX: &'static str = "f32";
}
impl Reducible for f16 {
    const SUFFIX: &'static str = "f16";
}
impl Reducible for bf16 {
    const SUFFIX: &'static str = "bf16";
}

/// A 16-bit element type the all-reduce fused with the residual add and RMSNorm takes
/// ([`AllReduce::all_reduce_add_rmsnorm`]): f16 and bf16 only (sealed: its kernels index 2-byte
/// elements, and the host sizes their buffers by `T`).
pub trait NormReducible: Reducible + sealed::Sealed {}
impl NormReducible for f16 {}
impl NormReducible for bf16 {}

mod sealed {
    /// Implemented by the types the fused kernels were written for, nowhere else.
    pub trait Sealed {}
    impl Sealed for half::f16 {}
    impl Sealed for half::bf16 {}
}

/// One rank's buffers for [`AllReduce::all_reduce_add_rmsnorm`]: `rows × hidden` row-major, the
/// weight `hidden`, every one on the rank's GPU and 16-byte aligned.
pub struct ResidualNorm<'a, T> {
    /// This rank's partial sums (a row-parallel projection's output), read.
    pub partial: CudaView<'a, T>,
    /// The residual stream: `residual += Σ_ranks partial` (rounded to `T`), read and written.
    pub residual: CudaViewMut<'a, T>,
    /// The RMSNorm weight.
    pub weight: CudaView<'a, T>,
    /// `weight · round(residual / √(mean residual² + ε))`, written.
    pub out: CudaViewMut<'a, T>,
}

/// A step of the all-reduce ladder.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Algo {
    /// v0: NCCL.
    Nccl,
    /// v1: one barrier, every rank reads every peer's whole input.
    OneShot,
    /// v2: reduce-scatter then all-gather through peer memory.
    TwoShot,
}

impl Algo {
    /// Every step, in ladder order.
    pub const ALL: [Algo; 3] = [Algo::Nccl, Algo::OneShot, Algo::TwoShot];

    /// Its name in tables and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Algo::Nccl => "nccl",
            Algo::OneShot => "oneshot",
            Algo::TwoShot => "twoshot",
        }
    }
}

/// The link model the choice uses: per-call latencies and bandwidths. Predicted time of a message of
/// `S` bytes over `w` ranks (`ring = 2(w − 1)/w · S`):
/// * one-shot: `launch + barrier + (w − 1)·S / link` (one barrier; each rank reads every peer's copy);
/// * two-shot: `launch + 2·barrier + ring / link` (two barriers; a segment from each peer, twice);
/// * NCCL: the better of its two regimes, `min(small_us + ring / small_gbs, large_us + ring / large_gbs)`
///   (its low-latency protocols below a few MB, its bandwidth protocol above; bus bandwidth is defined
///   as `ring / time`).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct LinkModel {
    /// A custom step's launch and fixed work, no barrier (µs).
    pub launch_us: f64,
    /// One barrier of the custom steps (µs).
    pub barrier_us: f64,
    /// Bytes per second one rank reads from its peers (GB/s).
    pub link_gbs: f64,
    /// NCCL's fixed cost in its low-latency regime (µs).
    pub nccl_small_us: f64,
    /// NCCL's bus bandwidth in that regime (GB/s).
    pub nccl_small_gbs: f64,
    /// NCCL's fixed cost in its bandwidth regime (µs).
    pub nccl_large_us: f64,
    /// NCCL's bus bandwidth in that regime (GB/s).
    pub nccl_large_gbs: f64,
}

impl LinkModel {
    /// Measured on two H200s joined by 18 NVLinks (NV18), NCCL 2.28.9 called from this process, bf16,
    /// medians of 3 processes (`results/2026-11-29-h200x2-session52`): one-shot 6.9 µs at 8 KB and
    /// 66.7 µs at 16 MiB (launch + barrier 6.9 µs, 281 GB/s read from the peer); two-shot 10.2 µs at
    /// 8 KB (a barrier 3.3 µs); NCCL 7.1 µs at 8 KB and 32.4 µs at 4 MiB (7.05 µs, 165 GB/s), 245 µs at
    /// 64 MiB and 3207 µs at 1 GiB (47.6 µs, 340 GB/s). Other NVLink-4 Hopper parts (H100 SXM) have the
    /// same links; more ranks share each GPU's 18 links, which the `(w − 1)` and ring factors model.
    pub const NVLINK4: LinkModel = LinkModel {
        launch_us: 3.6, barrier_us: 3.3, link_gbs: 281.0,
        nccl_small_us: 7.05, nccl_small_gbs: 165.0, nccl_large_us: 47.6, nccl_large_gbs: 340.0,
    };

    /// The model's time for `algo` on `bytes` over `world` ranks (µs).
    pub fn predict_us(&self, algo: Algo, bytes: usize, world: usize) -> f64 {
        let (s, w) = (bytes as f64, world as f64);
        let ring = 2.0 * (w - 1.0) / w * s;
        match algo {
            Algo::OneShot => self.launch_us + self.barrier_us + (w - 1.0) * s / (self.link_gbs * 1e3),
            Algo::TwoShot => self.launch_us + 2.0 * self.barrier_us + ring / (self.link_gbs * 1e3),

            Algo::Nccl => (self.nccl_small_us + ring / (self.nccl_small_gbs * 1e3)).min(self.nccl_large_us + ring / (self.nccl_large_gbs * 1e3)),
        }
    }
}

/// How an [`AllReduce`] is set up.
#[derive(Clone, Copy, Debug)]
pub struct AllReduceOptions {
    /// Largest message (bytes) one custom call moves (larger ones go in chunks of this, one call
    /// each): each rank allocates twice this for staging.
    pub capacity_bytes: usize,
    /// How long a custom step's wait for a peer may take before the call fails (and the status says
    /// which rank and peer).
    pub timeout: Duration,
    /// The model the choice uses.
    pub model: LinkModel,
    /// Make NCCL communicators when NCCL can run (otherwise only the custom steps run).
    pub use_nccl: bool,
}

impl Default for AllReduceOptions {
    fn default() -> Self {
        AllReduceOptions { capacity_bytes: 16 << 20, timeout: Duration::from_secs(5), model: LinkModel::NVLINK4, use_nccl: true }
    }
}

/// Every rank's address of one buffer, passed to the kernels by value (64 bytes, as `Peers` there).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct PeerTable(pub [u64; layout::comm::MAX_RANKS]);

// SAFETY: plain integers; the kernel parameter is a 64-byte `.b8` array, which `launch!` checks
// against the PTX (`ParamBytes` below).
unsafe impl DeviceRepr for PeerTable {}

impl ParamBytes for &PeerTable {
    fn param_bytes(&self) -> u32 {
        std::mem::size_of::<PeerTable>() as u32
    }
    /// Not a slot (64 bytes): a PDL launch (the fused norm's, `v3_rmsnorm`) passes `param_ref`.
    fn param_slot(&self, _: &std::sync::Arc<cudarc::driver::CudaStream>) -> u64 {
        0
    }
    fn param_ref(&self) -> *const std::ffi::c_void {
        (*self as *const PeerTable).cast()
    }
}

/// Device memory that peers read: allocated with `cuMemAlloc`, zeroed, freed on drop. (Not a
/// `CudaSlice`: cudarc allocates those from the stream-ordered pool, whose memory peers cannot access
/// without `cuMemPoolSetAccess` — reading it from another GPU was an illegal address.)
struct PeerBuffer {
    ptr: cudarc::driver::sys::CUdeviceptr,
    bytes: usize,
    gpu: crate::Gpu,
}

impl PeerBuffer {
    fn zeroed(gpu: &crate::Gpu, bytes: usize, what: &str) -> Result<PeerBuffer> {
        gpu.ctx.bind_to_thread().during(|| format!("binding the context for {what}"))?;
        // SAFETY: the rank's context is current (bound above); a plain allocation of `bytes`.
        let ptr = unsafe { cudarc::driver::result::malloc_sync(bytes) }.during(|| format!("cuMemAlloc of {bytes} bytes for {what}"))?;
        let buf = PeerBuffer { ptr, bytes, gpu: gpu.clone() };
        // SAFETY: `ptr` holds `bytes` bytes just allocated in this context.
        unsafe { cudarc::driver::result::memset_d8_sync(ptr, 0, bytes) }.during(|| format!("zeroing {what}"))?;
        // The memset may still run on the legacy stream, which the ranks' non-blocking streams do not
        // wait for: the zeros are in place before any call reads them.
        gpu.ctx.synchronize().during(|| format!("waiting for the zeroing of {what}"))?;
        Ok(buf)
    }

    /// The u32 word at index `i`, copied to the host (synchronous).
    fn read_word(&self, i: usize) -> Result<u32> {
        if (i + 1) * 4 > self.bytes {
            return Err(Error::InvalidInput(format!("word {i} of a {}-byte buffer (internal)", self.bytes)));
        }
        let mut out = [0u32; 1];
        self.gpu.ctx.bind_to_thread().during(|| "binding a context".into())?;
        // SAFETY: the buffer holds word `i` (checked); a synchronous copy after the caller synchronized
        // the streams that write it.
        unsafe { cudarc::driver::result::memcpy_dtoh_sync(&mut out, self.ptr + (4 * i) as u64) }.during(|| "reading an all-reduce status word".into())?;
        Ok(out[0])
    }
}

impl Drop for PeerBuffer {
    fn drop(&mut self) {
        // Errors cannot be returned from drop; a failed free leaks the buffer, nothing else.
        if self.gpu.ctx.bind_to_thread().is_ok() {
            // SAFETY: allocated by cuMemAlloc in this context and freed once; every launch that
            // used it was enqueued by the `AllReduce` that owns it, which synchronizes first.
            let _ = self.gpu.stream.synchronize();
            let _ = unsafe { cudarc::driver::result::free_sync(self.ptr) };
        }
    }
}

/// The custom steps' buffers: each rank's staging (two halves) and signals, and their peer tables.
struct Custom {
    _staging: Vec<PeerBuffer>,
    signals: Vec<PeerBuffer>,
    staging_table: PeerTable,
    signal_table: PeerTable,
    half_bytes: usize,
}

/// All-reduce over a [`Group`]: NCCL where it runs, the custom steps where the ranks can read each
/// other's memory, each call choosing by [`LinkModel`] unless told.
pub struct AllReduce {
    group: Group,
    opts: AllReduceOptions,
    nccl: Option<Nccl>,
    no_nccl: Option<String>,
    custom: Option<Custom>,
    no_custom: Option<String>,
    /// Blocks per SM of each custom kernel (occupancy), by kernel name.
    resident: std::sync::Mutex<std::collections::HashMap<&'static str, u32>>,
    /// Set by [`AllReduce::check`] when a custom call failed: the custom steps are refused from then on.
    failed: std::sync::atomic::AtomicBool,
}

impl AllReduce {
    /// Sets up `group`: NCCL communicators (when asked and possible) and the custom steps' buffers
    /// (when the ranks have peer access), checked against each GPU's free memory first.
    pub fn new(group: Group, opts: AllReduceOptions) -> Result<AllReduce> {
        if opts.capacity_bytes % VEC_BYTES != 0 || opts.capacity_bytes == 0 {
            return Err(Error::InvalidInput(format!("capacity_bytes = {} must be a positive multiple of {VEC_BYTES}", opts.capacity_bytes)));
        }
        if opts.timeout.is_zero() {
            return Err(Error::InvalidInput("a zero timeout would fail every wait".into()));
        }
        let (nccl, no_nccl) = if !opts.use_nccl {
            (None, Some("not asked for (use_nccl = false)".to_string()))
        } else {
            match nccl::unavailable_reason(&group) {
                Some(why) => (None, Some(why)),
                // NCCL that cannot start leaves the custom steps (said by `unavailable`), not an error.
                None => match Nccl::new(&group) {
                    Ok(n) => (Some(n), None),
                    Err(e) => (None, Some(format!("NCCL could not start: {e}"))),
                },
            }
        };
        let (custom, no_custom) = match group.no_peer_access() {
            Some(why) => (None, Some(why.to_string())),
            None => (Some(Custom::new(&group, opts.capacity_bytes)?), None),
        };
        Ok(AllReduce { group, opts, nccl, no_nccl, custom, no_custom, resident: Default::default(), failed: Default::default() })
    }

    /// The group.
    pub fn group(&self) -> &Group {
        &self.group
    }

    /// Why `algo` cannot run on this group, or `None` when it can (message size aside).
    pub fn unavailable(&self, algo: Algo) -> Option<&str> {
        match algo {
            Algo::Nccl => self.no_nccl.as_deref(),
            Algo::OneShot | Algo::TwoShot if self.failed.load(std::sync::atomic::Ordering::Relaxed) =>
                Some("a custom call failed on this group (`check()` said how); make a new AllReduce"),
            Algo::OneShot | Algo::TwoShot => self.no_custom.as_deref(),
        }
    }

    /// Why `algo` cannot reduce `n` elements of `T`, or `None`.
    pub fn refuses<T: Reducible>(&self, algo: Algo, n: usize) -> Option<String> {
        if let Some(why) = self.unavailable(algo) {
            return Some(why.to_string());
        }
        let bytes = n * std::mem::size_of::<T>();
        match algo {
            Algo::Nccl => None,
            Algo::OneShot | Algo::TwoShot => {
                // Larger than the staging buffers: reduced in chunks of the capacity, one call each.
                if bytes % VEC_BYTES != 0 {
                    Some(format!("{n} {} elements are {bytes} bytes, not a multiple of {VEC_BYTES} (the custom steps move 16-byte vectors)", T::SUFFIX))
                } else {
                    None
                }
            }
        }
    }

    /// The step the model predicts fastest for `n` elements of `T` among those that can run it.
    pub fn choose<T: Reducible>(&self, n: usize) -> Result<Algo> {
        let bytes = n * std::mem::size_of::<T>();
        let world = self.group.world();
        let mut best: Option<(f64, Algo)> = None;
        for a in Algo::ALL {
            if self.refuses::<T>(a, n).is_none() {
                let t = self.opts.model.predict_us(a, bytes, world);
                if best.is_none_or(|(bt, _)| t < bt) {
                    best = Some((t, a));
                }
            }
        }
        best.map(|(_, a)| a).ok_or_else(|| Error::Unsupported {
            kernel: "all-reduce".into(),
            needs: "NCCL, or GPUs with peer access for the custom steps".into(),
            have: Algo::ALL.iter().map(|&a| format!("{}: {}", a.name(), self.refuses::<T>(a, n).unwrap_or_default())).collect::<Vec<_>>().join("; "),
        })
    }

    /// `Σ_ranks bufs[r]` into every `bufs[r]` (`bufs[r]` on rank `r`'s GPU), enqueued on each rank's
    /// stream by the step [`AllReduce::choose`] picks; returns it. Every rank gets the same bits.
    /// The buffers are `CudaSlice<T>`s or views of them (`CudaViewMut<T>`).
    pub fn all_reduce_in_place<T: Reducible, B: DevicePtrMut<T>>(&self, bufs: &mut [&mut B]) -> Result<Algo> {
        let n = self.check_bufs(bufs)?;
        let algo = self.choose::<T>(n)?;
        self.run(algo, bufs, n)?;
        Ok(algo)
    }

    /// As [`AllReduce::all_reduce_in_place`] with the step given (an error when it cannot run).
    pub fn all_reduce_in_place_with<T: Reducible, B: DevicePtrMut<T>>(&self, algo: Algo, bufs: &mut [&mut B]) -> Result<()> {
        let n = self.check_bufs(bufs)?;
        if let Some(why) = self.refuses::<T>(algo, n) {
            return Err(Error::Unsupported { kernel: format!("all-reduce step {}", algo.name()), needs: "a message it takes".into(), have: why });
        }
        self.run(algo, bufs, n)
    }

    /// Why [`AllReduce::all_reduce_add_rmsnorm`] cannot take `rows × hidden` elements of `T` on this
    /// group, or `None`: it needs the custom steps (peer access), a row of at most
    /// `layout::comm::MAX_NORM_HIDDEN` elements, a multiple of 8, and every rank's rows in one
    /// staging half.
    pub fn refuses_add_rmsnorm<T: NormReducible>(&self, rows: usize, hidden: usize) -> Option<String> {
        if let Some(why) = self.unavailable(Algo::OneShot) {
            return Some(why.to_string());
        }
        if hidden == 0 || !hidden.is_multiple_of(8) || hidden > MAX_NORM_HIDDEN {
            return Some(format!("hidden = {hidden}: the fused norm takes rows of 8 to {MAX_NORM_HIDDEN} elements, a multiple of 8"));
        }
        if rows == 0 {
            return Some("no rows".into());
        }
        let bytes = self.group.world().saturating_mul(rows).saturating_mul(hidden).saturating_mul(std::mem::size_of::<T>());
        let half = self.custom.as_ref().map_or(0, |c| c.half_bytes);
        if bytes > half {
            return Some(format!("{} ranks × {rows} rows × {hidden} {} elements are {bytes} bytes, more than a staging half ({half}, \
                                 `AllReduceOptions::capacity_bytes`): all-reduce then normalize", self.group.world(), T::SUFFIX));
        }
        None
    }

    /// The all-reduce a tensor-parallel layer ends with, fused with what the next sublayer starts with:
    /// `residual[r] += Σ_ranks partial[r]` (summed in f32 in rank order and rounded, the bits of the
    /// one-shot step), then `out[r] = weight[r] · round(residual[r] / √(mean residual[r]² + eps))` row
    /// by row (Hugging Face's `LlamaRMSNorm` rounding). One kernel per rank on its stream
    /// (`kernels-gpu/src/comm/steps/v3_rmsnorm.rs`): each rank pushes its partial rows into its
    /// peers' memory and meets them at one barrier. Every rank gets the same bits. An error, before any
    /// launch, when [`AllReduce::refuses_add_rmsnorm`] says why it cannot run or a buffer does not match.
    pub fn all_reduce_add_rmsnorm<T: NormReducible>(&self, ranks: &mut [ResidualNorm<'_, T>], hidden: usize, eps: f32) -> Result<()> {
        let w = self.group.world();
        if ranks.len() != w {
            return Err(Error::InvalidInput(format!("{} ranks' buffers for a group of {w} ranks (one per rank)", ranks.len())));
        }
        if !(eps.is_finite() && eps >= 0.0) {
            return Err(Error::InvalidInput(format!("eps = {eps}: the norm needs a finite ε ≥ 0")));
        }
        if hidden == 0 {
            return Err(Error::InvalidInput("hidden = 0".into()));
        }
        let n = ranks[0].partial.len();
        if n % hidden != 0 {
            return Err(Error::InvalidInput(format!("rank 0's partial holds {n} elements, not whole rows of {hidden}")));
        }
        let rows = n / hidden;
        if let Some(why) = self.refuses_add_rmsnorm::<T>(rows, hidden) {
            return Err(Error::Unsupported { kernel: "all-reduce + residual add + RMSNorm".into(), needs: "a shape and group it takes".into(), have: why });
        }
        let name = format!("allreduce_v3_rmsnorm_{}", T::SUFFIX);
        let kernels = self.group.ranks().iter().map(|g| g.kernel(&name)).collect::<Result<Vec<Kernel>>>()?;
        let grid = rows.min(self.max_grid(&kernels[0])? as usize) as u32;
        let c = self.custom.as_ref().expect("checked by refuses_add_rmsnorm");
        let timeout_ns = self.opts.timeout.as_nanos().min(u64::MAX as u128) as u64;
        let (world, half, rows32, hidden32) = (w as u32, c.half_bytes as u64, rows as u32, hidden as u32);
        let mut ptrs = Vec::with_capacity(w);
        // The guards live until every launch is enqueued (cudarc's event tracking records on drop).
        let mut guards = Vec::with_capacity(w);
        for (r, (g, b)) in self.group.ranks().iter().zip(ranks.iter_mut()).enumerate() {
            for (what, len, want) in [("partial", b.partial.len(), n), ("residual", b.residual.len(), n), ("out", b.out.len(), n), ("weight", b.weight.len(), hidden)] {
                if len != want {
                    return Err(Error::InvalidInput(format!("rank {r}'s {what} holds {len} elements, not {want} ({rows} rows of {hidden})")));
                }
            }
            for (what, ord) in [("partial", b.partial.stream().context().ordinal()), ("residual", b.residual.stream().context().ordinal()),
                                ("weight", b.weight.stream().context().ordinal()), ("out", b.out.stream().context().ordinal())] {
                if ord != g.ctx.ordinal() {
                    return Err(Error::InvalidInput(format!("rank {r}'s {what} is on device {ord}, rank {r} is device {}", g.ctx.ordinal())));
                }
            }
            let (p, gp) = b.partial.device_ptr(&g.stream);
            let (x, gx) = b.residual.device_ptr_mut(&g.stream);
            let (wt, gw) = b.weight.device_ptr(&g.stream);
            let (y, gy) = b.out.device_ptr_mut(&g.stream);
            for (what, a) in [("partial", p), ("residual", x), ("weight", wt), ("out", y)] {
                if a % VEC_BYTES as u64 != 0 {
                    return Err(Error::InvalidInput(format!("rank {r}'s {what} starts at {a:#x}, not 16-byte aligned (the fused norm moves 16-byte vectors)")));
                }
            }
            ptrs.push([p, x, wt, y]);
            guards.push((gp, gx, gw, gy));
        }
        for (r, g) in self.group.ranks().iter().enumerate() {
            let [p, x, wt, y] = ptrs[r];
            let rank = r as u32;
            // SAFETY: the arguments match the kernel (`v3_rmsnorm.rs`): both tables hold every rank's
            // staging (two halves of `half` bytes) and signal buffers, mapped in every rank's context;
            // `partial`, `residual` and `out` hold `rows · hidden` elements and `weight` `hidden` (checked
            // above), 16-byte aligned (checked), on this rank's device (checked); `out` overlaps neither
            // `residual` nor `partial` (distinct borrows: a `CudaViewMut` excludes any other view of its
            // slice); `hidden % 8 == 0`, `hidden ≤ MAX_NORM_HIDDEN` and `world · rows · hidden · 2 ≤ half`
            // (`refuses_add_rmsnorm`); the grid is the same on every rank, at most MAX_BLOCKS and what the
            // GPU holds resident (`max_grid`); every rank enqueues the same call in the same order (this
            // loop).
            unsafe {
                launch!(g, &kernels[r], grid = grid, &c.staging_table, &c.signal_table, &p, &x, &wt, &y, &rows32, &hidden32, &eps, &half, &rank, &world, &timeout_ns)
            }?;
        }
        drop(guards);
        Ok(())
    }

    /// Checks the buffers: one per rank, on the rank's device, all the same non-zero length.
    fn check_bufs<T, B: DevicePtrMut<T>>(&self, bufs: &[&mut B]) -> Result<usize> {
        let w = self.group.world();
        if bufs.len() != w {
            return Err(Error::InvalidInput(format!("{} buffers for a group of {w} ranks (one per rank)", bufs.len())));
        }
        let n = bufs[0].len();
        for (r, b) in bufs.iter().enumerate() {
            if b.len() != n {
                return Err(Error::InvalidInput(format!("rank {r}'s buffer holds {} elements, rank 0's {n}: every rank reduces the same length", b.len())));
            }
            let (have, want) = (b.stream().context().ordinal(), self.group.rank(r).ctx.ordinal());
            if have != want {
                return Err(Error::InvalidInput(format!("rank {r}'s buffer is on device {have}, rank {r} is device {want}")));
            }
        }
        if n == 0 {
            return Err(Error::InvalidInput("empty buffers: nothing to reduce".into()));
        }
        Ok(n)
    }

    fn run<T: Reducible, B: DevicePtrMut<T>>(&self, algo: Algo, bufs: &mut [&mut B], n: usize) -> Result<()> {
        match algo {
            Algo::Nccl => self.nccl.as_ref().expect("checked by refuses").all_reduce_in_place(bufs),
            Algo::OneShot | Algo::TwoShot => {
                let c = self.custom.as_ref().expect("checked by refuses");
                let step = if algo == Algo::OneShot { "v1_oneshot" } else { "v2_twoshot" };
                let name = format!("allreduce_{step}_{}", T::SUFFIX);
                let kernels = self.group.ranks().iter().map(|g| g.kernel(&name)).collect::<Result<Vec<Kernel>>>()?;
                let max_grid = self.max_grid(&kernels[0])? as u64;
                let timeout_ns = self.opts.timeout.as_nanos().min(u64::MAX as u128) as u64;
                let (world, half) = (self.group.world() as u32, c.half_bytes as u64);
                let ranks: Vec<u32> = (0..world).collect();
                // The guards live until every launch is enqueued: with cudarc's event tracking on, each
                // records its buffer's write when dropped, which must come after the kernels that write it.
                let (ptrs, _guards): (Vec<u64>, Vec<_>) =
                    self.group.ranks().iter().zip(bufs.iter_mut()).map(|(g, b)| { let (p, guard) = b.device_ptr_mut(&g.stream); (p as u64, guard) }).unzip();
                // The kernels move 16-byte vectors: a view that starts off 16 bytes is refused before any
                // rank launches (a misaligned access would end the context, and the peers would time out).
                if let Some(r) = ptrs.iter().position(|p| p % VEC_BYTES as u64 != 0) {
                    return Err(Error::InvalidInput(format!("rank {r}'s buffer starts at {:#x}, not 16-byte aligned (the custom steps move 16-byte vectors; NCCL takes any)", ptrs[r])));
                }
                // Chunks of at most the staging half, one call each (every rank the same sequence).
                let total = (n * std::mem::size_of::<T>() / VEC_BYTES) as u64;
                let per_call = half / VEC_BYTES as u64;
                let mut done = 0u64;
                while done < total {
                    let n_vec = per_call.min(total - done);
                    let per_rank = if algo == Algo::TwoShot { n_vec.div_ceil(world as u64) } else { n_vec };
                    let grid = per_rank.div_ceil(BLOCK as u64).clamp(1, max_grid) as u32;
                    for (r, g) in self.group.ranks().iter().enumerate() {
                        let ptr = ptrs[r] + done * VEC_BYTES as u64;
                        // SAFETY: the arguments match the kernel (`kernels-gpu/src/comm`): both tables hold
                        // every rank's staging (two halves of `half` bytes) and signal buffers (zeroed at
                        // creation, `SIGNAL_BYTES`), mapped in every rank's context (peer access enabled,
                        // or one context); `ptr` is this rank's buffer (on its device, checked) `done`
                        // vectors in, with `n_vec` more after it (`done + n_vec <= total`), in and out
                        // (each element is read before it is written, by the same thread);
                        // `n_vec · 16 <= half`; the grid is the same on every rank, at most MAX_BLOCKS and
                        // what the GPU holds resident (`max_grid`); every rank enqueues the same calls in
                        // the same order (these loops).
                        unsafe {
                            launch!(g, &kernels[r], grid = grid, &c.staging_table, &c.signal_table, &ptr, &ptr, &n_vec, &half, &ranks[r], &world, &timeout_ns)
                        }?;
                    }
                    done += n_vec;
                }
                Ok(())
            }
        }
    }

    /// The most blocks a call may use: every block of every rank sharing a GPU must be resident at
    /// once (a block spinning at a barrier holds its SM until its peers' blocks run), so the GPU's
    /// resident blocks of the kernel, shared among the ranks on it, and at most `MAX_BLOCKS`.
    fn max_grid(&self, k: &Kernel) -> Result<u32> {
        // Asked once per kernel: a call captured into a CUDA graph then makes no driver query.
        let mut cache = self.resident.lock().map_err(|_| Error::InvalidInput("the all-reduce's occupancy cache lock was poisoned".into()))?;
        let per_sm = match cache.get(k.name()) {
            Some(&b) => b,
            None => {
                let b = k.max_blocks_per_sm()?.max(1);
                cache.insert(k.name(), b);
                b
            }
        };
        let g = self.group.rank(0);
        let resident = g.info.sms * per_sm;
        let sharing = match self.group.placement() {
            Placement::SameGpu => self.group.world() as u32,
            Placement::OneGpuPerRank => 1,
        };
        Ok((resident / sharing).clamp(1, MAX_BLOCKS as u32))
    }

    /// Waits for every rank and reads the custom steps' status words: an error naming the rank, the
    /// peer it waited for and where, when a wait timed out (every later custom call on this group then
    /// returns at once without reducing; make a new `AllReduce`).
    pub fn check(&self) -> Result<()> {
        self.group.synchronize()?;
        let Some(c) = &self.custom else { return Ok(()) };
        // A rank that timed out is the news; the peers it stopped only echo it.
        let mut failed_peer = None;
        for (r, (g, s)) in self.group.ranks().iter().zip(&c.signals).enumerate() {
            match Status::decode(s.read_word(CTRL_STATUS)?) {
                Status::Healthy => {}
                Status::TimedOut { peer, phase, block } => return self.failed(Error::Collective(format!(
                    "rank {r} (device {}) waited more than {:?} for rank {peer} at barrier {phase} of block {block}: that rank never launched the matching \
                     all-reduce, or launched a different one; this AllReduce refuses further custom calls", g.ctx.ordinal(), self.opts.timeout))),
                Status::PeerFailed { rank } => {
                    failed_peer.get_or_insert((r, rank));
                }
                Status::Unknown(w) => return self.failed(Error::Collective(format!("rank {r}'s all-reduce status word reads {w:#x}, not a code the kernels write"))),
            };
        }
        match failed_peer {
            Some((r, rank)) => self.failed(Error::Collective(format!("rank {r} was stopped by rank {rank}, which gave up waiting for a peer; this AllReduce refuses further custom calls"))),
            None => Ok(()),
        }
    }

    /// Marks the custom steps failed and returns `e`.
    fn failed(&self, e: Error) -> Result<()> {
        self.failed.store(true, std::sync::atomic::Ordering::Relaxed);
        Err(e)
    }

    /// The options it was made with.
    pub fn options(&self) -> &AllReduceOptions {
        &self.opts
    }

    /// Where the ranks live.
    pub fn placement(&self) -> Placement {
        self.group.placement()
    }
}

impl Drop for AllReduce {
    /// Waits for every rank before the buffers go: a peer's kernel may still read this rank's staging
    /// after this rank's own stream is idle.
    fn drop(&mut self) {
        // Every rank, even after one fails (`Group::synchronize` stops at the first error).
        for g in self.group.ranks() {
            let _ = g.stream.synchronize();
        }
    }
}

impl Custom {
    fn new(group: &Group, capacity: usize) -> Result<Custom> {
        let mut staging_table = PeerTable::default();
        let mut signal_table = PeerTable::default();
        let (mut staging, mut signals) = (vec![], vec![]);
        for (r, g) in group.ranks().iter().enumerate() {
            crate::runtime::budget::check(g, &format!("rank {r}'s all-reduce staging"), (2 * capacity + SIGNAL_BYTES) as u64, 0)?;
            let s = PeerBuffer::zeroed(g, 2 * capacity, &format!("rank {r}'s all-reduce staging"))?;
            let f = PeerBuffer::zeroed(g, SIGNAL_BYTES, &format!("rank {r}'s all-reduce signals"))?;
            staging_table.0[r] = s.ptr;
            signal_table.0[r] = f.ptr;
            staging.push(s);
            signals.push(f);
        }
        // The zeroed signals are in place before any rank's first call (`PeerBuffer::zeroed` waits).
        Ok(Custom { _staging: staging, signals, staging_table, signal_table, half_bytes: capacity })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_prefers_one_shot_small_and_nccl_large_at_two_ranks() {
        let m = LinkModel::NVLINK4;
        let best = |bytes: usize, world: usize| {
            Algo::ALL.into_iter().min_by(|&a, &b| m.predict_us(a, bytes, world).total_cmp(&m.predict_us(b, bytes, world))).unwrap()
        };
        assert_eq!(best(8 << 10, 2), Algo::OneShot);
        assert_eq!(best(512 << 10, 2), Algo::OneShot);
        assert_eq!(best(4 << 20, 2), Algo::OneShot);
        assert_eq!(best(256 << 20, 2), Algo::Nccl);
        // At two ranks both custom steps read the same bytes; one-shot has one barrier less.
        for bytes in [1 << 10, 1 << 20, 64 << 20] {
            assert!(m.predict_us(Algo::OneShot, bytes, 2) < m.predict_us(Algo::TwoShot, bytes, 2));
        }
        // At eight ranks two-shot reads 3.5x less and wins past a few hundred KB.
        assert_eq!(best(4 << 20, 8), Algo::TwoShot);
        assert_eq!(best(8 << 10, 8), Algo::OneShot);
    }

    #[test]
    fn predicted_time_grows_with_the_message() {
        let m = LinkModel::NVLINK4;
        for a in Algo::ALL {
            for w in 2..=8 {
                let mut last = 0.0;
                for s in (10..30).map(|e| 1usize << e) {
                    let t = m.predict_us(a, s, w);
                    assert!(t > last, "{a:?} w {w} s {s}");
                    last = t;
                }
            }
        }
    }

    #[test]
    fn the_peer_table_is_the_kernels_64_byte_parameter() {
        assert_eq!((&PeerTable::default()).param_bytes(), 64);
    }
}
