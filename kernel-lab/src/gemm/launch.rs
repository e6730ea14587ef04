//! Launching one f16/bf16 GEMM step on device operands given by address: the step's shape rule and
//! grid, its arguments (pointers, or the TMA tensor maps of the operands), and the buffers some steps
//! need besides A, B and C — the split-K partial sums and tile counters, and the encoded tensor maps —
//! owned by a [`Workspace`] (a [`GemmPlan`](super::GemmPlan) holds one; no state is kept anywhere else).
use cudarc::driver::{CudaSlice, DevicePtr};
use layout::hopper::{TmaSwizzle, TmaTile2d};

use crate::{
    error::{Error, Result},
    launch,
    runtime::{gpu::{Gpu, Kernel}, tma::TensorMap2d},
    steps::{
        gemm::{Args, Elem},
        hgemm::Step,
    },
};

use super::Shape;

/// A device operand by address: its first element's device address and how many 16-bit elements
/// follow it (what the kernel may touch: checked against the shape before a launch).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Operand {
    /// Device address of element 0.
    pub ptr: u64,
    /// Elements from there.
    pub len: usize,
}

impl Operand {
    /// `Err` naming the first of `ops` (`(name, operand)`) whose address is not 16-byte aligned, as
    /// `kernel` needs for its 16-byte vector accesses and TMA boxes; `context()` prefixes the message
    /// (called only on an error: nothing is formatted on the launch path).
    pub fn require_aligned16(ops: &[(&str, Operand)], kernel: &str, context: impl FnOnce() -> String) -> Result<()> {
        match ops.iter().find(|(_, op)| op.ptr % 16 != 0) {
            Some((what, op)) => Err(Error::InvalidInput(format!("{}{what} at device address {:#x} is not 16-byte aligned, as {kernel} needs", context(), op.ptr))),
            None => Ok(()),
        }
    }

    /// The whole of `buf`. The address is read without a stream guard: for buffers of a context whose
    /// cudarc event tracking is off (the lab's own [`Gpu::new`]), or used only on `gpu`'s stream.
    pub fn of<T>(gpu: &Gpu, buf: &CudaSlice<T>) -> Operand {
        Operand { ptr: buf.device_ptr(&gpu.stream).0, len: buf.len() }
    }
}

/// What the f16/bf16 steps need beyond A, B and C, kept between launches: the split-K workspaces
/// (`[0]` for steps that need a zeroed workspace — d1 adds into it —, `[1]` for steps that store a
/// partial tile per split — d2 overwrites it and leaves it dirty; sharing one let d2's partials corrupt
/// d1's sums, seen on the GPU), each with one zero counter per tile (every launch's last blocks re-zero
/// what they used), grown as needed; and the tensor maps of the recent (A, B, C, shape) operands, most
/// recent last, so repeated launches do not re-encode and re-upload them (three 128-byte host-to-device
/// copies per launch: d4 at 64×4096² measured 16.8 µs in `ncu` and 20 µs in a timed loop that did).
/// One workspace serves one context: [`Workspace::launch`] drops what it holds when called with another.
#[derive(Default)]
pub struct Workspace {
    ctx: usize,
    split_k: [Option<(CudaSlice<f32>, CudaSlice<u32>)>; 2],
    maps: Vec<TmaMaps>,
}

/// The tensor maps of one (A, B, C, shape, A and C box heights): A (box 64 K × the step's tile rows, at most M for the
/// transposed steps), B (box 64 N × 64 K rows), C (box
/// 64 × 64, used by the TMA-store steps; d21: its tile's height × 64), all `SWIZZLE_128B`.
struct TmaMaps {
    key: (u64, u64, u64, Shape, Elem, (u32, u32)),
    a: TensorMap2d,
    b: TensorMap2d,
    c: TensorMap2d,
}

/// How many (A, B, C, shape) keys a [`Workspace`] keeps: more than the most rotated copies of an input
/// (`timing::rotation_copies`: 64) times the buffers rotated together.
const TMA_MAPS_KEPT: usize = 256;

impl Workspace {
    /// An empty workspace (buffers are allocated by the first launch that needs them).
    pub fn new() -> Workspace {
        Workspace::default()
    }

    /// Starts serving `gpu`'s context (dropping buffers and maps of another).
    fn bind(&mut self, gpu: &Gpu) {
        let ctx = gpu.ctx.cu_ctx() as usize;
        if self.ctx != ctx {
            *self = Workspace { ctx, ..Workspace::default() };
        }
    }
}

/// When a GEMM's kernel may start reading B, relative to the kernel enqueued just before it on the
/// stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BReady {
    /// Only after that kernel has finished: always correct, the default.
    #[default]
    AfterPrevious,
    /// At once: that kernel does not write B (model weights, written long before). Launched with
    /// programmatic dependent launch on Hopper, the split-K decode steps (d2, d24) then copy their first
    /// weight stages while that kernel finishes; other steps read B after it as before. Wrong results, not
    /// an error, if that kernel does write B: the caller's promise.
    AtLaunch,
}

impl Workspace {
/// Enqueues `c = a · b` with `step`'s kernel on `gpu`'s stream: checks the operands and the step's shape
/// rule, then launches with pointers or (Hopper steps) the TMA tensor maps of the operands.
pub fn launch(&mut self, gpu: &Gpu, kernel: &Kernel, step: &Step, s: Shape, a: Operand, b: Operand, c: Operand) -> Result<()> {
    self.launch_ready(gpu, kernel, step, s, a, b, c, BReady::AfterPrevious)
}

/// [`Workspace::launch`], B ready as `b_ready` says.
#[allow(clippy::too_many_arguments)]
pub fn launch_ready(&mut self, gpu: &Gpu, kernel: &Kernel, step: &Step, s: Shape, a: Operand, b: Operand, c: Operand, b_ready: BReady) -> Result<()> {
    s.check_buffers("16-bit elements", a.len, b.len, c.len)?;
    if step.needs.aligned_b_c() {
        Operand::require_aligned16(&[("A", a), ("B", b), ("C", c)], step.kernel.name, String::new)?;
    } else {
        // d24 reads B and writes C at any 2-byte alignment; A's rows stay 16-byte pieces.
        Operand::require_aligned16(&[("A", a)], step.kernel.name, String::new)?;
        if let Some((what, op)) = [("B", b), ("C", c)].into_iter().find(|(_, op)| op.ptr % 2 != 0) {
            return Err(Error::InvalidInput(format!("{what} at device address {:#x} is not 2-byte aligned, as {} needs", op.ptr, step.kernel.name)));
        }
    }
    self.bind(gpu);
    s.check_step(step)?;
    let grid = s.grid(step, gpu.info.sms)?;
    if let Args::SplitK { partials } = step.args {
        return self.launch_split_k(gpu, kernel, step, partials, s, grid, a, b, c, b_ready);
    }
    if step.args != Args::Pointers {
        return self.launch_tma(gpu, kernel, step, s, grid, a, b, c);
    }
    let (m, n, k) = (s.m as u32, s.n as u32, s.k as u32);
    // SAFETY: every pointer-argument hgemm kernel takes (a: M·K f16, b: K·N f16, c: M·N f16, m, n, k) —
    // lengths checked; operands 16-byte aligned (checked); the shape meets the step's
    // `needs` (K, N multiples of 8 for v2+, checked); grid from its descriptor, block size and shared
    // memory as declared.
    unsafe { launch!(gpu, kernel, grid = grid, &a.ptr, &b.ptr, &c.ptr, &m, &n, &k) }
}
}


/// `(splits, k_split)` of a split-K step on `s` ([`GemmStep::split_k`](crate::steps::gemm::GemmStep::split_k)
/// with [`decode_blocks_per_sm`](crate::runtime::tuning::decode_blocks_per_sm)); `(1, K)` for other grids.
pub fn split_k(step: &Step, s: Shape, sms: u32) -> (u32, u32) {
    step.split_k(s.m as u32, s.n as u32, s.k as u32, sms, crate::runtime::tuning::decode_blocks_per_sm())
}

impl Workspace {
/// Launches a split-K step (`hgemm_decode_v*`) on `grid` with this workspace's split-K buffers.
#[allow(clippy::too_many_arguments)]
fn launch_split_k(&mut self, gpu: &Gpu, kernel: &Kernel, step: &Step, partials: bool, s: Shape, grid: (u32, u32), a: Operand, b: Operand,
                  c: Operand, b_ready: BReady) -> Result<()> {
    let (m, n, k) = (s.m as u32, s.n as u32, s.k as u32);
    let (rows, cols) = step.grid.tile();
    let (splits, k_split) = split_k(step, s, gpu.info.sms);
    let m_pad = m.div_ceil(rows) as usize * rows as usize;
    // The partials' rows, as the kernels lay them out (rounded up to even for d24's ragged N).
    let pitch = layout::hgemm::decode_ws_pitch(n) as usize;
    let ws_len = if partials { splits as usize * m_pad * pitch } else { m_pad * s.n };
    let count_len = (m.div_ceil(rows) * n.div_ceil(cols)) as usize;
    self.with_split_k_ws(gpu, partials, ws_len, count_len, |ws, count| {
        // SAFETY: `hgemm_decode_v*(a, b, c, ws, count, m, n, k, k_split)`: lengths checked by `launch`
        // (M·K, K·N, M·N f16, 16-byte aligned; d24: A 16-byte aligned, B and C 2-byte aligned, each a
        // `CudaSlice` or a caller's address inside a CUDA allocation), K and N multiples of 8 (d24: K; the
        // step's rule, checked); `ws` holds the tile of sums (d1: zero, re-zeroed by each launch's last
        // blocks) or one tile per split (d2) for rows padded to the step's tile, `count` one zero
        // counter per tile (reset by each tile's last block); grid `(⌈N/cols⌉, ⌈M/rows⌉·splits)` from
        // the same `split_k` as `k_split`; launches on one stream never overlap.
        // d2 and d24 (`partials`) also take `flags` (`DECODE_B_AT_LAUNCH` where the caller promised B is
        // not the previous kernel's output); d1 does not.
        if partials {
            let flags = if b_ready == BReady::AtLaunch { layout::hgemm::DECODE_B_AT_LAUNCH } else { 0 };
            // SAFETY: as above; the flag only where the caller promised it (`BReady::AtLaunch`).
            unsafe { launch!(gpu, kernel, grid = grid, &a.ptr, &b.ptr, &c.ptr, ws, count, &m, &n, &k, &k_split, &flags) }
        } else {
            // SAFETY: as above.
            unsafe { launch!(gpu, kernel, grid = grid, &a.ptr, &b.ptr, &c.ptr, ws, count, &m, &n, &k, &k_split) }
        }
    })
}



/// Launches a TMA step (`hgemm_tma_v*`) on `grid` with the tensor maps of [`TmaMaps`].
#[allow(clippy::too_many_arguments)]
fn launch_tma(&mut self, gpu: &Gpu, kernel: &Kernel, step: &Step, s: Shape, grid: (u32, u32), a: Operand, b: Operand, c: Operand) -> Result<()> {
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
    let key = (a.ptr, b.ptr, c.ptr, s, step.elem, (a_rows, c_rows));
    let bf16 = step.elem == Elem::Bf16;
    let encode = |op: Operand, tile| TensorMap2d::encode_16bit_at(gpu, op.ptr, op.len, tile, bf16);
    use layout::hopper::tma_hgemm::{BK, C_BOX};
    // Every box is 64 f16 wide (128 bytes: the 128B swizzle span), as the kernels lay out their stages.
    let tile = |rows: usize, cols: usize, box_rows: u32| TmaTile2d {
        elem_bytes: 2, rows: rows as u64, cols: cols as u64, stride_bytes: 2 * cols as u64, box_rows, box_cols: C_BOX.box_cols, swizzle: TmaSwizzle::B128,
    };
    let hit = {
        let m = &mut self.maps;
        m.iter().position(|maps| maps.key == key).map(|at| {
            let maps = m.remove(at);
            m.push(maps);
        })
    };
    if hit.is_none() {
        let maps = TmaMaps {
            key,
            a: encode(a, tile(s.m, s.k, a_rows))?,
            b: encode(b, tile(s.k, s.n, BK))?,
            c: encode(c, tile(s.m, s.n, c_rows))?,
        };
        if self.maps.len() >= TMA_MAPS_KEPT {
            self.maps.remove(0);
        }
        self.maps.push(maps);
    }
    let (m, n, k) = (s.m as u32, s.n as u32, s.k as u32);
    let result = {
        // Taken out of the cache for the launch (the split-K arms borrow the workspace), put back after.
        let Some(maps) = self.maps.pop() else {
            return Err(Error::InvalidInput("TMA tensor maps missing after encoding (internal error)".into()));
        };
        // SAFETY: `Args::TmaAB` kernels (h1–h5) take (tmap_a, tmap_b, c: M·N f16, m, n, k), `Args::TmaABC`
        // (h6) takes (tmap_a, tmap_b, tmap_c, m, n, k); the maps were encoded for these very buffers (same
        // device pointers and shape: the cache key) with the boxes the kernels expect; lengths and the
        // shape rule checked by `launch`; grid from the descriptor, block and shared memory as declared.
        let r = match step.args {
            Args::TmaABC => unsafe { launch!(gpu, kernel, grid = grid, &maps.a.dev, &maps.b.dev, &maps.c.dev, &m, &n, &k) },
            Args::TmaSplitK | Args::TmaSplitKC | Args::TmaSplitKCRows | Args::TmaSplitKCPointers => {
                let (rows, cols) = step.grid.tile();
                let splits = super::shape::persistent_split_count(m, n, k, gpu.info.sms, rows, cols);
                let (tiles_m, tiles_n) = (m.div_ceil(rows) as usize, n.div_ceil(cols) as usize);
                self.with_split_k_ws(gpu, true, splits as usize * tiles_m * rows as usize * tiles_n * cols as usize, tiles_m * tiles_n, |ws, count| {
                    // SAFETY: `hgemm_tma_v7` / `hgemm_decode_v3(tmap_a, tmap_b, c, ws, count, m, n, k, splits)`:
                    // maps as above (A's box `rows` high: the step's tile), C by pointer (length checked by
                    // `launch`), `ws` ≥ splits · (rows·tiles_m) · (cols·tiles_n) f32, `count` one counter per
                    // tile, zero (reset by each tile's last CTA; d2 leaves its counters zero too), `splits`
                    // from the same `persistent_split_count` as the grid (1..=16).
                    if matches!(step.args, Args::TmaSplitKC | Args::TmaSplitKCRows) {
                        // SAFETY: as stated above the branch; `hgemm_decode_v7` also takes C's map (after B's), encoded for
                        // this very `c` with 64×64 boxes (d21: `rows` × 64, `c_rows`; the cache key holds its pointer, shape
                        // and box height).
                        unsafe { launch!(gpu, kernel, grid = grid, &maps.a.dev, &maps.b.dev, &maps.c.dev, &c.ptr, ws, count, &m, &n, &k, &splits) }
                    } else if step.args == Args::TmaSplitKCPointers {
                        // SAFETY: as the `TmaSplitKC` arm; `hgemm_decode_v10` also takes A and B by pointer (the
                        // very buffers the maps were encoded for, lengths checked by `launch`: M·K and K·N, 16-byte
                        // aligned) and copies 16-byte pieces of them, inside their rows
                        // (K and N multiples of 8: the step's rule, checked).
                        unsafe { launch!(gpu, kernel, grid = grid, &maps.a.dev, &maps.b.dev, &maps.c.dev, &c.ptr, ws, count, &m, &n, &k, &splits, &a.ptr, &b.ptr) }
                    } else {
                        // SAFETY: as stated above the branch.
                        unsafe { launch!(gpu, kernel, grid = grid, &maps.a.dev, &maps.b.dev, &c.ptr, ws, count, &m, &n, &k, &splits) }
                    }
                })
            }
            Args::TmaStreamK => {
                use layout::hopper::tma_hgemm::{BK, BM, BN_WIDE, STREAM_K_SLOT_BYTES, stream_k_tail};
                let tiles = m.div_ceil(BM) * n.div_ceil(BN_WIDE);
                let tail = stream_k_tail(tiles, grid.0, k.div_ceil(BK));
                let slots = if tail > 0 { (grid.0 + tail) as usize } else { 0 };
                self.with_split_k_ws(gpu, true, slots * (STREAM_K_SLOT_BYTES / 4) as usize, tail as usize, |ws, count| {
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
            Args::TmaABParams => unsafe { launch!(gpu, kernel, grid = grid, &maps.a.host, &maps.b.host, &c.ptr, &m, &n, &k) },
            _ => unsafe { launch!(gpu, kernel, grid = grid, &maps.a.dev, &maps.b.dev, &c.ptr, &m, &n, &k) },
        };
        self.maps.push(maps);
        r
    };
    result
}

/// Runs `f` with the split-K workspace of kind `partials` (see [`Workspace`]), grown to at least
/// `ws_len` f32 and `count_len` counters.
fn with_split_k_ws<R>(&mut self, gpu: &Gpu, partials: bool, ws_len: usize, count_len: usize,
                      f: impl FnOnce(&mut CudaSlice<f32>, &mut CudaSlice<u32>) -> Result<R>) -> Result<R> {
    let cell = &mut self.split_k[partials as usize];
    let fits = cell.as_ref().is_some_and(|(ws, count)| ws.len() >= ws_len && count.len() >= count_len);
    if !fits {
        // Grown on the caller's stream: freeing the old buffers is ordered after the launches that used them.
        *cell = Some((gpu.zeros(ws_len.max(1))?, gpu.zeros(count_len.max(1))?));
    }
    let Some((ws, count)) = cell.as_mut() else {
        return Err(Error::InvalidInput("split-K workspace missing after allocation (internal error)".into()));
    };
    f(ws, count)
}
}
