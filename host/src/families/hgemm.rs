//! The block-level HGEMM family: `C (M×N) = A (M×K) · B (K×N)`, f16 in and out, f32 (or, for `v9h`,
//! f16) accumulation, row-major; the launch of a step from its descriptor (`steps::hgemm`: pointers or
//! TMA tensor maps, tiles or a persistent grid), the cuBLAS baseline (`cublasGemmEx`, f16 A/B/C, 32F or
//! 16F compute, on the column-major view `Cᵀ = Bᵀ·Aᵀ`), an f64 reference, and the family's two tables in
//! the GEMM loop ([`Hgemm`], [`HgemmF16Acc`]).
use cudarc::{
    cublas::{CudaBlas, sys as blas_sys},
    driver::{CudaSlice, DevicePtr, DevicePtrMut},
};
use half::f16;

use layout::hopper::{TmaSwizzle, TmaTile2d};

use crate::{
    error::{Error, Result},
    families::gemm::{self, GemmFamily, Shape},
    launch,
    model::traces::{self, BlockCost},
    runtime::{device_check::ElemKind, gpu::{Gpu, Kernel}, tma::TensorMap2d},
    steps::{
        gemm::{Accumulate, Args, Elem},
        hgemm::{STEPS, Step, Trace},
    },
};

/// Relative L2 tolerance of `step` on `s` against an f64 reference (or cuBLAS): [`TOL`] for f32
/// accumulation. With f16 accumulation each of the ⌈K/16⌉ `mma` steps rounds the running sums to f16
/// (relative error ≤ 2^-11 each); for random-sign data those errors add like a random walk, ≈ 2^-11 ·
/// √⌈K/16⌉ relative in L2, and the reference it is compared with may carry as much again (cuBLAS 16F
/// for large shapes): [`TOL`] + 2^-10 · √⌈K/16⌉ (1.8e-2 at K = 4096, 2.4e-2 at 8192).
pub fn tolerance(step: &Step, s: Shape) -> f64 {
    match step.acc {
        Accumulate::F32 => TOL,
        Accumulate::F16 => TOL + (s.k.div_ceil(16) as f64).sqrt() / 1024.0,
    }
}

/// Relative L2 tolerance against an f64 reference of the f16 inputs: f32 accumulation is exact enough;
/// the error is the final rounding to f16 (2^-11 relative, ~3e-4 in L2) — 2e-3 leaves room.
pub const TOL: f64 = 2e-3;

/// Enqueues `c = a · b` with `step`'s kernel: checks the buffers and the step's shape rule, then
/// launches with pointers or (Hopper steps) the TMA tensor maps of the buffers.
pub fn launch(gpu: &Gpu, kernel: &Kernel, step: &Step, s: Shape, a: &CudaSlice<u16>, b: &CudaSlice<u16>, c: &mut CudaSlice<u16>) -> Result<()> {
    s.check_buffers("f16", a.len(), b.len(), c.len())?;
    s.check_step(step)?;
    let grid = s.grid(step, gpu.info.sms)?;
    if let Args::SplitK { partials } = step.args {
        return launch_split_k(gpu, kernel, step, partials, s, grid, a, b, c);
    }
    if step.args != Args::Pointers {
        return launch_tma(gpu, kernel, step, s, grid, a, b, c);
    }
    let (m, n, k) = (s.m as u32, s.n as u32, s.k as u32);
    // SAFETY: every pointer-argument hgemm kernel takes (a: M·K f16, b: K·N f16, c: M·N f16, m, n, k) —
    // lengths checked; buffers are fresh 256-byte-aligned allocations; the shape meets the step's
    // `needs` (K, N multiples of 8 for v2+, checked); grid from its descriptor, block size and shared
    // memory as declared.
    unsafe { launch!(gpu, kernel, grid = grid, a, b, c, &m, &n, &k) }
}

thread_local! {
    /// The split-K steps' f32 workspace and tile counters (zero between launches: each launch's last
    /// blocks re-zero what they used), kept for the context they were allocated in and grown as needed.
    /// Two: `[0]` for steps that need a zeroed workspace (d1 adds into it), `[1]` for steps that store a
    /// partial tile per split (d2 overwrites it and leaves it dirty) — sharing one let d2's partials
    /// corrupt d1's sums (seen on the GPU: d1 failed verification after d2 ran on the same shape).
    static SPLIT_K_WS: std::cell::RefCell<[Option<(usize, CudaSlice<f32>, CudaSlice<u32>)>; 2]> = const { std::cell::RefCell::new([None, None]) };
}

/// `(splits, k_split)` of a split-K step on `s` ([`GemmStep::split_k`](crate::steps::gemm::GemmStep::split_k)
/// with [`decode_blocks_per_sm`](crate::runtime::tuning::decode_blocks_per_sm)); `(1, K)` for other grids.
pub fn split_k(step: &Step, s: Shape, sms: u32) -> (u32, u32) {
    step.split_k(s.m as u32, s.n as u32, s.k as u32, sms, crate::runtime::tuning::decode_blocks_per_sm())
}

/// Launches a split-K step (`hgemm_decode_v*`) on `grid` with the workspace of [`SPLIT_K_WS`].
#[allow(clippy::too_many_arguments)]
fn launch_split_k(gpu: &Gpu, kernel: &Kernel, step: &Step, partials: bool, s: Shape, grid: (u32, u32), a: &CudaSlice<u16>, b: &CudaSlice<u16>,
                  c: &mut CudaSlice<u16>) -> Result<()> {
    let (m, n, k) = (s.m as u32, s.n as u32, s.k as u32);
    let (rows, cols) = step.grid.tile();
    let (splits, k_split) = split_k(step, s, gpu.info.sms);
    let m_pad = m.div_ceil(rows) as usize * rows as usize;
    let ws_len = if partials { splits as usize * m_pad * s.n } else { m_pad * s.n };
    let count_len = (m.div_ceil(rows) * n.div_ceil(cols)) as usize;
    with_split_k_ws(gpu, partials, ws_len, count_len, |ws, count| {
        // SAFETY: `hgemm_decode_v*(a, b, c, ws, count, m, n, k, k_split)`: lengths checked by `launch`
        // (M·K, K·N, M·N f16, fresh 256-byte-aligned allocations), K and N multiples of 8 (the step's
        // rule, checked); `ws` holds the tile of sums (d1: zero, re-zeroed by each launch's last
        // blocks) or one tile per split (d2) for rows padded to the step's tile, `count` one zero
        // counter per tile (reset by each tile's last block); grid `(⌈N/cols⌉, ⌈M/rows⌉·splits)` from
        // the same `split_k` as `k_split`; launches on one stream never overlap.
        unsafe { launch!(gpu, kernel, grid = grid, a, b, c, ws, count, &m, &n, &k, &k_split) }
    })
}

/// The tensor maps of one (A, B, C, shape, A and C box heights): A (box 64 K × the step's tile rows, at most M for the
/// transposed steps), B (box 64 N × 64 K rows), C (box
/// 64 × 64, used by the TMA-store steps; d21: its tile's height × 64), all `SWIZZLE_128B`.
struct TmaMaps {
    key: (usize, u64, u64, u64, Shape, Elem, (u32, u32)),
    a: TensorMap2d,
    b: TensorMap2d,
    c: TensorMap2d,
}

/// How many (A, B, C, shape) keys [`TMA_MAPS`] keeps: more than the most rotated copies of an input
/// (`timing::rotation_copies`: 64) times the buffers rotated together.
const TMA_MAPS_KEPT: usize = 256;

thread_local! {
    /// Tensor maps of the recent (A, B, C, shape) keys launched with a TMA step, most recent last, so
    /// timed repetitions do not re-encode and re-upload them (three 128-byte host-to-device copies per
    /// launch would be timed with the kernel). It holds many keys because the bandwidth-bound shapes
    /// rotate their weights through up to 64 copies: with one entry (until session 9) every rotated
    /// repetition of a TMA step re-encoded and re-uploaded its maps inside the timed region — d4 at
    /// 64×4096² measured 16.8 µs in `ncu` and 20 µs in the timed loop.
    static TMA_MAPS: std::cell::RefCell<Vec<TmaMaps>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Launches a TMA step (`hgemm_tma_v*`) on `grid` with the tensor maps of [`TmaMaps`].
#[allow(clippy::too_many_arguments)]
fn launch_tma(gpu: &Gpu, kernel: &Kernel, step: &Step, s: Shape, grid: (u32, u32), a: &CudaSlice<u16>, b: &CudaSlice<u16>, c: &mut CudaSlice<u16>) -> Result<()> {
    // A's box is as high as the step's tile (128 rows), except the transposed decode steps' (the TMA
    // steps named `hgemm_decode_*`, d3–d21: tiles of 16, 64, 80–160 activation rows), whose box never
    // reaches past M (`decode_box_rows`: M below the tile) — their kernels expect that many rows' bytes.
    let a_rows = if step.kernel.name.starts_with("hgemm_decode_") {
        layout::hopper::tma_hgemm::decode_box_rows(s.m as u32, step.grid.tile().0)
    } else {
        step.grid.tile().0
    };
    // C's box: 64 × 64, except d21's (`Args::TmaSplitKCRows`), as high as its tile.
    let c_rows = if step.args == Args::TmaSplitKCRows { step.grid.tile().0 } else { layout::hopper::tma_hgemm::C_BOX.box_rows };
    let key = (gpu.ctx.cu_ctx() as usize, a.device_ptr(&gpu.stream).0, b.device_ptr(&gpu.stream).0, c.device_ptr(&gpu.stream).0, s, step.elem, (a_rows, c_rows));
    let encode = if step.elem == Elem::Bf16 { TensorMap2d::encode_bf16 } else { TensorMap2d::encode_f16 };
    use layout::hopper::tma_hgemm::{BK, C_BOX};
    // Every box is 64 f16 wide (128 bytes: the 128B swizzle span), as the kernels lay out their stages.
    let tile = |rows: usize, cols: usize, box_rows: u32| TmaTile2d {
        elem_bytes: 2, rows: rows as u64, cols: cols as u64, stride_bytes: 2 * cols as u64, box_rows, box_cols: C_BOX.box_cols, swizzle: TmaSwizzle::B128,
    };
    let hit = TMA_MAPS.with(|m| {
        let mut m = m.borrow_mut();
        let at = m.iter().position(|maps| maps.key == key)?;
        let maps = m.remove(at);
        m.push(maps);
        Some(())
    });
    if hit.is_none() {
        let maps = TmaMaps {
            key,
            a: encode(gpu, a, tile(s.m, s.k, a_rows))?,
            b: encode(gpu, b, tile(s.k, s.n, BK))?,
            c: encode(gpu, c, tile(s.m, s.n, c_rows))?,
        };
        TMA_MAPS.with(|m| {
            let mut m = m.borrow_mut();
            if m.len() >= TMA_MAPS_KEPT {
                m.remove(0);
            }
            m.push(maps);
        });
    }
    let (m, n, k) = (s.m as u32, s.n as u32, s.k as u32);
    TMA_MAPS.with(|maps| {
        let maps = maps.borrow();
        let Some(maps) = maps.last() else {
            return Err(Error::InvalidInput("TMA tensor maps missing after encoding (internal error)".into()));
        };
        // SAFETY: `Args::TmaAB` kernels (h1–h5) take (tmap_a, tmap_b, c: M·N f16, m, n, k), `Args::TmaABC`
        // (h6) takes (tmap_a, tmap_b, tmap_c, m, n, k); the maps were encoded for these very buffers (same
        // device pointers and shape: the cache key) with the boxes the kernels expect; lengths and the
        // shape rule checked by `launch`; grid from the descriptor, block and shared memory as declared.
        match step.args {
            Args::TmaABC => unsafe { launch!(gpu, kernel, grid = grid, &maps.a.dev, &maps.b.dev, &maps.c.dev, &m, &n, &k) },
            Args::TmaSplitK | Args::TmaSplitKC | Args::TmaSplitKCRows | Args::TmaSplitKCPointers => {
                let (rows, cols) = step.grid.tile();
                let splits = layout::hopper::tma_hgemm::persistent_splits(m, n, k, gpu.info.sms, rows, cols);
                let (tiles_m, tiles_n) = (m.div_ceil(rows) as usize, n.div_ceil(cols) as usize);
                with_split_k_ws(gpu, true, splits as usize * tiles_m * rows as usize * tiles_n * cols as usize, tiles_m * tiles_n, |ws, count| {
                    // SAFETY: `hgemm_tma_v7` / `hgemm_decode_v3(tmap_a, tmap_b, c, ws, count, m, n, k, splits)`:
                    // maps as above (A's box `rows` high: the step's tile), C by pointer (length checked by
                    // `launch`), `ws` ≥ splits · (rows·tiles_m) · (cols·tiles_n) f32, `count` one counter per
                    // tile, zero (reset by each tile's last CTA; d2 leaves its counters zero too), `splits`
                    // from the same `persistent_splits` as the grid (1..=16).
                    if matches!(step.args, Args::TmaSplitKC | Args::TmaSplitKCRows) {
                        // SAFETY: as stated above the branch; `hgemm_decode_v7` also takes C's map (after B's), encoded for
                        // this very `c` with 64×64 boxes (d21: `rows` × 64, `c_rows`; the cache key holds its pointer, shape
                        // and box height).
                        unsafe { launch!(gpu, kernel, grid = grid, &maps.a.dev, &maps.b.dev, &maps.c.dev, &mut *c, ws, count, &m, &n, &k, &splits) }
                    } else if step.args == Args::TmaSplitKCPointers {
                        // SAFETY: as the `TmaSplitKC` arm; `hgemm_decode_v10` also takes A and B by pointer (the
                        // very buffers the maps were encoded for, lengths checked by `launch`: M·K and K·N, fresh
                        // 256-byte-aligned allocations) and copies 16-byte pieces of them, inside their rows
                        // (K and N multiples of 8: the step's rule, checked).
                        unsafe { launch!(gpu, kernel, grid = grid, &maps.a.dev, &maps.b.dev, &maps.c.dev, &mut *c, ws, count, &m, &n, &k, &splits, a, b) }
                    } else {
                        // SAFETY: as stated above the branch.
                        unsafe { launch!(gpu, kernel, grid = grid, &maps.a.dev, &maps.b.dev, &mut *c, ws, count, &m, &n, &k, &splits) }
                    }
                })
            }
            Args::TmaStreamK => {
                use layout::hopper::tma_hgemm::{BK, BM, BN_WIDE, STREAM_K_SLOT_BYTES, stream_k_tail};
                let tiles = m.div_ceil(BM) * n.div_ceil(BN_WIDE);
                let tail = stream_k_tail(tiles, grid.0, k.div_ceil(BK));
                let slots = if tail > 0 { (grid.0 + tail) as usize } else { 0 };
                with_split_k_ws(gpu, true, slots * (STREAM_K_SLOT_BYTES / 4) as usize, tail as usize, |ws, count| {
                    // SAFETY: `hgemm_tma_v10(tmap_a, tmap_b, tmap_c, ws, count, m, n, k, tail)`: maps as for
                    // `Args::TmaABC`; `tail` from `stream_k_tail` of this very grid (so < grid, ≤ tiles, and
                    // tail · k_tiles ≥ grid when not 0); `ws` ≥ (grid + tail) slots of 128·256 f32 (the
                    // cached split-K workspace, a whole allocation: 16-byte aligned), `count` ≥ tail counters,
                    // zero (each tail tile's last contributor resets its counter; h7, d2, d3, which share
                    // the buffer, leave theirs zero after every launch that completes).
                    unsafe { launch!(gpu, kernel, grid = grid, &maps.a.dev, &maps.b.dev, &maps.c.dev, ws, count, &m, &n, &k, &tail) }
                })
            }
            // SAFETY: as `Args::TmaAB`, the same maps' 128 bytes passed by value to a kernel that declares
            // them as `TensorMapParam` parameters (`launch!` checks 128 bytes against its PTX).
            Args::TmaABParams => unsafe { launch!(gpu, kernel, grid = grid, &maps.a.host, &maps.b.host, c, &m, &n, &k) },
            _ => unsafe { launch!(gpu, kernel, grid = grid, &maps.a.dev, &maps.b.dev, c, &m, &n, &k) },
        }
    })
}

/// Runs `f` with the split-K workspace of kind `partials` (see [`SPLIT_K_WS`]), grown to at least
/// `ws_len` f32 and `count_len` counters for this context.
fn with_split_k_ws<R>(gpu: &Gpu, partials: bool, ws_len: usize, count_len: usize, f: impl FnOnce(&mut CudaSlice<f32>, &mut CudaSlice<u32>) -> Result<R>) -> Result<R> {
    let ctx = gpu.ctx.cu_ctx() as usize;
    SPLIT_K_WS.with(|cells| {
        let mut cells = cells.borrow_mut();
        let cell = &mut cells[partials as usize];
        let fits = cell.as_ref().is_some_and(|(c, ws, count)| *c == ctx && ws.len() >= ws_len && count.len() >= count_len);
        if !fits {
            *cell = Some((ctx, gpu.zeros(ws_len.max(1))?, gpu.zeros(count_len.max(1))?));
        }
        let Some((_, ws, count)) = cell.as_mut() else {
            return Err(Error::InvalidInput("split-K workspace missing after allocation (internal error)".into()));
        };
        f(ws, count)
    })
}

/// cuBLAS HGEMM baseline: `cublasGemmEx` with f16 A, B, C and `CUBLAS_COMPUTE_32F`, row-major via the
/// column-major view `Cᵀ = Bᵀ · Aᵀ`.
pub struct CublasHgemm {
    blas: CudaBlas,
    /// `CUBLAS_COMPUTE_16F` (f16 accumulation) instead of `CUBLAS_COMPUTE_32F`.
    f16_compute: bool,
    /// bf16 A, B and C (`CUDA_R_16BF`, 32F compute) instead of f16.
    bf16: bool,
}

impl CublasHgemm {
    /// A handle on the library's stream.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        // SAFETY: only tries to dlopen libcublas.
        if !unsafe { blas_sys::is_culib_present() } {
            return Err(Error::NoGpu("libcublas was not found (the HGEMM baseline needs it)".into()));
        }
        let blas = CudaBlas::new(gpu.stream.clone()).map_err(|source| Error::Cublas { what: "cublasCreate".into(), source })?;
        Ok(CublasHgemm { blas, f16_compute: false, bf16: false })
    }

    /// As [`CublasHgemm::new`], computing in f16 (`CUBLAS_COMPUTE_16F`: f16 accumulation, f16 scalars):
    /// the baseline of the f16-accumulate step.
    pub fn new_f16_compute(gpu: &Gpu) -> Result<Self> {
        Ok(CublasHgemm { f16_compute: true, ..Self::new(gpu)? })
    }

    /// As [`CublasHgemm::new`] on bf16 matrices (`CUDA_R_16BF`, `CUBLAS_COMPUTE_32F`): the bf16 baseline.
    pub fn new_bf16(gpu: &Gpu) -> Result<Self> {
        Ok(CublasHgemm { bf16: true, ..Self::new(gpu)? })
    }

    /// Enqueues `c = a · b` (row-major f16).
    pub fn gemm(&self, gpu: &Gpu, s: Shape, a: &CudaSlice<u16>, b: &CudaSlice<u16>, c: &mut CudaSlice<u16>) -> Result<()> {
        s.check_buffers("f16", a.len(), b.len(), c.len())?;
        let (alpha, beta) = (1.0f32, 0.0f32);
        let (alpha_h, beta_h) = (half::f16::ONE, half::f16::ZERO);
        // 32F compute takes f32 scalars, 16F compute f16 ones (host pointers, the handle's default mode).
        let (p_alpha, p_beta, compute) = if self.f16_compute {
            (&alpha_h as *const half::f16 as *const _, &beta_h as *const half::f16 as *const _, blas_sys::cublasComputeType_t::CUBLAS_COMPUTE_16F)
        } else {
            (&alpha as *const f32 as *const _, &beta as *const f32 as *const _, blas_sys::cublasComputeType_t::CUBLAS_COMPUTE_32F)
        };
        let (pa, _ga) = a.device_ptr(&gpu.stream);
        let (pb, _gb) = b.device_ptr(&gpu.stream);
        let (pc, _gc) = c.device_ptr_mut(&gpu.stream);
        let op = blas_sys::cublasOperation_t::CUBLAS_OP_N;
        let f16t = if self.bf16 { blas_sys::cudaDataType::CUDA_R_16BF } else { blas_sys::cudaDataType::CUDA_R_16F };
        // SAFETY: column-major (n × k) B, (k × m) A, (n × m) C, leading dimensions n, k, n — the row-major
        // buffers, lengths checked; alpha/beta on the host, of the compute type's scalar type, alive
        // until the call returns (cuBLAS reads host scalars before returning).
        unsafe {
            cudarc::cublas::result::gemm_ex(*self.blas.handle(), op, op, s.n as i32, s.m as i32, s.k as i32,
                p_alpha, pb as *const _, f16t, s.n as i32, pa as *const _, f16t, s.k as i32,
                p_beta, pc as *mut _, f16t, s.n as i32, compute, blas_sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT)
        }.map_err(|source| Error::Cublas { what: format!("cublasGemmEx {} ({} compute) {s}", if self.bf16 { "bf16" } else { "f16" }, if self.f16_compute { "16F" } else { "32F" }), source })
    }
}

/// `C = A · B` in f64 on the CPU from f16 inputs (all cores).
pub fn reference_f64(a: &[f16], b: &[f16], s: Shape) -> Vec<f64> {
    let af: Vec<f32> = a.iter().map(|v| v.to_f32()).collect();
    let bf: Vec<f32> = b.iter().map(|v| v.to_f32()).collect();
    gemm::reference_f64(&af, &bf, s)
}

/// The HGEMM table: every step that accumulates in f32, against cuBLAS 32F compute.
pub struct Hgemm;

impl GemmFamily for Hgemm {
    type Elem = u16;
    type Trace = Trace;
    type Baseline = CublasHgemm;
    const NAME: &'static str = "hgemm";
    /// Not multiples of 128/256/32; K or N not multiples of 8 are declined by v2+ with the reason.
    const CHECK_SHAPES: &'static [(usize, usize, usize)] = &[(1000, 1000, 1000), (4097, 129, 40), (1, 8, 8), (130, 264, 72), (257, 100, 24), (33, 9, 13), (300, 520, 192)];
    fn tolerance(st: &Step, s: Shape) -> f64 { tolerance(st, s) }
    const BASELINE: &'static str = "cublasGemmEx f16/32F";
    fn steps() -> Vec<&'static Step> { STEPS.iter().filter(|s| s.acc == Accumulate::F32 && s.elem == Elem::F16).collect() }
    const KIND: ElemKind = ElemKind::F16;
    fn poison() -> u16 { 0xFFFF }
    fn to_f64(x: u16) -> f64 { f16::from_bits(x).to_f64() }
    fn reference(a: &[u16], b: &[u16], s: Shape) -> Vec<f64> {
        let h = |x: &[u16]| x.iter().map(|&v| f16::from_bits(v)).collect::<Vec<_>>();
        reference_f64(&h(a), &h(b), s)
    }
    fn baseline(gpu: &Gpu) -> Result<CublasHgemm> { CublasHgemm::new(gpu) }
    fn run_baseline(bl: &CublasHgemm, gpu: &Gpu, s: Shape, a: &CudaSlice<u16>, b: &CudaSlice<u16>, c: &mut CudaSlice<u16>) -> Result<()> {
        bl.gemm(gpu, s, a, b, c)
    }
    fn launch(gpu: &Gpu, k: &Kernel, st: &Step, s: Shape, a: &CudaSlice<u16>, b: &CudaSlice<u16>, c: &mut CudaSlice<u16>) -> Result<()> {
        launch(gpu, k, st, s, a, b, c)
    }
    fn predicted(st: &Step, s: Shape) -> Option<BlockCost> { traces::hgemm::launch(st, s) }
}

/// The f16-accumulate steps (`v9h`) against cuBLAS in 16F compute: the same inputs and outputs as
/// [`Hgemm`], a K-dependent tolerance ([`tolerance`]).
pub struct HgemmF16Acc;

impl GemmFamily for HgemmF16Acc {
    type Elem = u16;
    type Trace = Trace;
    type Baseline = CublasHgemm;
    const NAME: &'static str = "hgemm16";
    const CHECK_SHAPES: &'static [(usize, usize, usize)] = Hgemm::CHECK_SHAPES;
    const BASELINE: &'static str = "cublasGemmEx f16/16F";
    fn tolerance(st: &Step, s: Shape) -> f64 { tolerance(st, s) }
    fn steps() -> Vec<&'static Step> { STEPS.iter().filter(|s| s.acc == Accumulate::F16).collect() }
    const KIND: ElemKind = ElemKind::F16;
    fn poison() -> u16 { Hgemm::poison() }
    fn to_f64(x: u16) -> f64 { Hgemm::to_f64(x) }
    fn reference(a: &[u16], b: &[u16], s: Shape) -> Vec<f64> { Hgemm::reference(a, b, s) }
    fn baseline(gpu: &Gpu) -> Result<CublasHgemm> { CublasHgemm::new_f16_compute(gpu) }
    fn run_baseline(bl: &CublasHgemm, gpu: &Gpu, s: Shape, a: &CudaSlice<u16>, b: &CudaSlice<u16>, c: &mut CudaSlice<u16>) -> Result<()> {
        bl.gemm(gpu, s, a, b, c)
    }
    fn launch(gpu: &Gpu, k: &Kernel, st: &Step, s: Shape, a: &CudaSlice<u16>, b: &CudaSlice<u16>, c: &mut CudaSlice<u16>) -> Result<()> {
        launch(gpu, k, st, s, a, b, c)
    }
    fn predicted(st: &Step, s: Shape) -> Option<BlockCost> { traces::hgemm::launch(st, s) }
}

/// The bf16 steps (h6, d2, d2m64 on bf16) against cuBLAS GemmEx on bf16 with 32F compute.
pub struct HgemmBf16;

/// Relative L2 tolerance of a bf16 output against the f64 reference of its bf16 inputs: the final
/// rounding to bf16 (8 significant bits: 2^-9 relative, ~1.1e-3 in L2 for random data) dominates f32
/// accumulation; 8e-3 leaves room, and a wrong element type or layout is off by O(1).
pub const TOL_BF16: f64 = 8e-3;

impl GemmFamily for HgemmBf16 {
    type Elem = u16;
    type Trace = Trace;
    type Baseline = CublasHgemm;
    const NAME: &'static str = "hgemm-bf16";
    const CHECK_SHAPES: &'static [(usize, usize, usize)] = Hgemm::CHECK_SHAPES;
    const BASELINE: &'static str = "cublasGemmEx bf16/32F";
    const KIND: ElemKind = ElemKind::Bf16;
    fn tolerance(_: &Step, _: Shape) -> f64 { TOL_BF16 }
    fn steps() -> Vec<&'static Step> { STEPS.iter().filter(|s| s.elem == Elem::Bf16).collect() }
    fn poison() -> u16 { 0xFFFF }
    fn to_f64(x: u16) -> f64 { half::bf16::from_bits(x).to_f64() }
    fn reference(a: &[u16], b: &[u16], s: Shape) -> Vec<f64> {
        let w = |x: &[u16]| x.iter().map(|&v| half::bf16::from_bits(v).to_f32()).collect::<Vec<_>>();
        gemm::reference_f64(&w(a), &w(b), s)
    }
    fn baseline(gpu: &Gpu) -> Result<CublasHgemm> { CublasHgemm::new_bf16(gpu) }
    fn run_baseline(bl: &CublasHgemm, gpu: &Gpu, s: Shape, a: &CudaSlice<u16>, b: &CudaSlice<u16>, c: &mut CudaSlice<u16>) -> Result<()> {
        bl.gemm(gpu, s, a, b, c)
    }
    fn launch(gpu: &Gpu, k: &Kernel, st: &Step, s: Shape, a: &CudaSlice<u16>, b: &CudaSlice<u16>, c: &mut CudaSlice<u16>) -> Result<()> {
        launch(gpu, k, st, s, a, b, c)
    }
    fn predicted(st: &Step, s: Shape) -> Option<BlockCost> { traces::hgemm::launch(st, s) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::steps::{Target, hgemm};

    #[test]
    fn the_two_tables_split_the_ladder_by_accumulator() {
        assert_eq!(Hgemm::steps().len() + HgemmF16Acc::steps().len() + HgemmBf16::steps().len(), STEPS.len());
        assert_eq!(HgemmBf16::steps().iter().map(|s| s.kernel.step).collect::<Vec<_>>(), ["h6-bf16", "h6s4-bf16", "h9-bf16", "h9s4-bf16", "h10-bf16", "h11-bf16", "h7-bf16", "h8x2-bf16", "h8x3-bf16", "h8x4-bf16", "h8x5-bf16", "h8x6-bf16", "h8x7-bf16", "h8x8-bf16", "d2-bf16", "d2m64-bf16", "d3-bf16", "d4-bf16", "d5-bf16", "d6-bf16", "d7-bf16", "d8-bf16", "d9-bf16", "d10-bf16", "d11-bf16", "d12-bf16", "d13-bf16", "d14-bf16", "d15-bf16", "d16-bf16", "d17-bf16", "d19-bf16", "d20-bf16", "d21r80-bf16", "d21r96-bf16", "d21r144-bf16", "d21r160-bf16", "d22r80-bf16", "d22r96-bf16", "d22r144-bf16", "d22r160-bf16", "d22r128-bf16", "d23-bf16"]);
        assert_eq!(HgemmF16Acc::steps().iter().map(|s| s.kernel.step).collect::<Vec<_>>(), ["v9h"]);
        // The TMA steps, and only they, live in the sm_90a module (skipped with a reason elsewhere).
        for st in STEPS {
            assert_eq!(!matches!(st.args, Args::Pointers | Args::SplitK { .. }), st.kernel.target == Target::Sm90a, "{}", st.kernel.step);
        }
        let s = Shape::new(64, 64, 4096).unwrap();
        assert_eq!(tolerance(&hgemm::V9, s), TOL);
        assert!((tolerance(&hgemm::V9H, s) - (TOL + 16.0 / 1024.0)).abs() < 1e-12);
    }
}
