//! Producing FP8 inputs the way users do (issue 16), and the dequantized inputs of the reference:
//!
//! Each quantizer takes f32, f16 or bf16 input (`_f32`, `_f16`, `_bf16`: one generic body, [`Input`]).
//!
//! * per tensor: `fp8_amax_f32` (max |x| into one zeroed `u32`, as f32 bits), then
//!   `fp8_quantize_tensor_f32` (`s = amax / 448`, `q = e4m3(x / s)`, `*scale = s`);
//! * block: `fp8_quantize_1x128_f32` (one warp per 128-element row segment: A's scales) and
//!   `fp8_quantize_128x128_f32` (one block per 128×128 tile: B's scales), in [`layout::fp8`]'s layouts;
//! * `fp8_dequantize_f32`: `x' = q · s` in f32 (one rounding of the exact product), the inputs of the
//!   f32 reference GEMM that the large shapes are checked against; `fp8_f32_to_bf16` rounds that
//!   reference as the kernels round their output.
//!
//! A group whose amax is 0 gets `s = 2^-100 / 448` (any positive scale: its q are all 0).
use crate::prim::{
    atomic::red_max_relaxed_gpu_u32,
    fp8::{cvt_e4m3x2_f32, cvt_f16x2_e4m3x2},
    mma::{f16_to_f32, pack_bf16x2},
    sync::sync_threads,
    thread::{block_idx_x, block_idx_y, grid_size_1d, index_1d, lane_id, thread_idx_x},
    warp::shuffle_xor_u32,
};
use layout::fp8::{E4M3_MAX, SCALE_BLOCK, scale_a_index, scale_b_index, weights::{ROWS, STEP_K, Wide, packed_index, packed_len, pow2_scale_bits}};

/// Threads per block of every quantize kernel (the host's descriptors say the same).
pub const BLOCK: u32 = 256;

/// The scale of a group with largest magnitude `amax`; NaN or Inf stays NaN or Inf (so the host's
/// scale check reports the group whose input held one).
#[inline(always)]
fn scale_of(amax: f32) -> f32 {
    let floor = 7.888609e-31; // 2^-100
    (if amax <= floor { floor } else { amax }) / E4M3_MAX
}

/// Four f32 quantized with scale `s`, packed little-endian (element 0 in the low byte).
#[inline(always)]
fn quantize4(x: [f32; 4], s: f32) -> u32 {
    let lo = cvt_e4m3x2_f32(x[0] / s, x[1] / s) as u32;
    let hi = cvt_e4m3x2_f32(x[2] / s, x[3] / s) as u32;
    lo | hi << 16
}

/// The largest of the 32 lanes' `v` (non-negative f32 bits), in every lane.
///
/// # Safety
/// All 32 lanes of the warp, converged.
#[inline(always)]
unsafe fn warp_max_u32(mut v: u32) -> u32 {
    for s in [16, 8, 4, 2, 1] {
        // SAFETY: forwarded to the caller.
        let o = unsafe { shuffle_xor_u32(v, s) };
        v = if o > v { o } else { v };
    }
    v
}

/// An input element type of the quantizers: f32, or f16/bf16 (their bits as `u16`, widened exactly).
pub(crate) trait Input {
    /// How it is stored.
    type Raw: Copy;
    /// Element `i` as f32.
    ///
    /// # Safety
    /// `p.add(i)` is readable.
    unsafe fn load(p: *const Self::Raw, i: usize) -> f32;
    /// Elements `i .. i + 4` as f32 (`i % 4 == 0`; the buffer aligned to 4 elements).
    ///
    /// # Safety
    /// The four are readable, `p.add(i)` aligned to 4 elements.
    unsafe fn load4(p: *const Self::Raw, i: usize) -> [f32; 4];
}

/// f32 input.
pub(crate) struct InF32;
/// f16 input.
pub(crate) struct InF16;
/// bf16 input.
pub(crate) struct InBf16;

impl Input for InF32 {
    type Raw = f32;
    #[inline(always)]
    unsafe fn load(p: *const f32, i: usize) -> f32 {
        // SAFETY: forwarded.
        unsafe { *p.add(i) }
    }
    #[inline(always)]
    unsafe fn load4(p: *const f32, i: usize) -> [f32; 4] {
        // SAFETY: forwarded (16-byte aligned: 4 f32 at a multiple of 4).
        unsafe { *(p.add(i) as *const [f32; 4]) }
    }
}

impl Input for InF16 {
    type Raw = u16;
    #[inline(always)]
    unsafe fn load(p: *const u16, i: usize) -> f32 {
        // SAFETY: forwarded.
        f16_to_f32(unsafe { *p.add(i) })
    }
    #[inline(always)]
    unsafe fn load4(p: *const u16, i: usize) -> [f32; 4] {
        // SAFETY: forwarded (8-byte aligned: 4 halves at a multiple of 4).
        let h = unsafe { *(p.add(i) as *const [u16; 4]) };
        [f16_to_f32(h[0]), f16_to_f32(h[1]), f16_to_f32(h[2]), f16_to_f32(h[3])]
    }
}

impl Input for InBf16 {
    type Raw = u16;
    #[inline(always)]
    unsafe fn load(p: *const u16, i: usize) -> f32 {
        // SAFETY: forwarded. A bf16 is the high half of the f32 with the same value.
        f32::from_bits((unsafe { *p.add(i) } as u32) << 16)
    }
    #[inline(always)]
    unsafe fn load4(p: *const u16, i: usize) -> [f32; 4] {
        // SAFETY: forwarded.
        let h = unsafe { *(p.add(i) as *const [u16; 4]) };
        [0, 1, 2, 3].map(|j| f32::from_bits((h[j] as u32) << 16))
    }
}

/// How a 128×128 block's scale follows from its largest magnitude.
pub(crate) trait BlockScale {
    /// The block's scale.
    fn scale(amax: f32) -> f32;
}

/// `amax / 448` (B's block scales for the FP8 GEMMs).
pub(crate) struct Amax448;
/// The smallest power of two `s` with `amax / s ≤ 448` in bf16's multiplier range (FP8 weights for
/// bf16 activations: `layout::fp8::weights`).
pub(crate) struct Pow2Bf16;
/// As [`Pow2Bf16`], in f16's range.
pub(crate) struct Pow2F16;

impl BlockScale for Amax448 {
    #[inline(always)]
    fn scale(amax: f32) -> f32 {
        scale_of(amax)
    }
}

impl BlockScale for Pow2Bf16 {
    #[inline(always)]
    fn scale(amax: f32) -> f32 {
        f32::from_bits(pow2_scale_bits(amax, Wide::Bf16))
    }
}

impl BlockScale for Pow2F16 {
    #[inline(always)]
    fn scale(amax: f32) -> f32 {
        f32::from_bits(pow2_scale_bits(amax, Wide::F16))
    }
}

/// FP8 weights for bf16 activations: `W` (`rows = N` × `cols = K`, bf16) to e4m3 with one power-of-two
/// scale per 128×128 block (`layout::fp8::weights`), the layout of [`fp8_quantize_128x128_f32`].
///
/// # Safety
/// As [`fp8_quantize_128x128_f32`] on bf16 input (aligned to 4 elements).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_quantize_weights_bf16(g_x: *const u16, rows: u32, cols: u32, g_q: *mut u8, g_sb: *mut f32) {
    // SAFETY: forwarded.
    unsafe { quantize_128x128::<InBf16, Pow2Bf16>(g_x, rows, cols, g_q, g_sb) }
}

/// [`fp8_quantize_weights_bf16`] for f16 weights (f16's scale range).
///
/// # Safety
/// As [`fp8_quantize_weights_bf16`] on f16 input.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_quantize_weights_f16(g_x: *const u16, rows: u32, cols: u32, g_q: *mut u8, g_sb: *mut f32) {
    // SAFETY: forwarded.
    unsafe { quantize_128x128::<InF16, Pow2F16>(g_x, rows, cols, g_q, g_sb) }
}

/// Rows (of W, N) and columns (K) of the tile one block of `fp8_dequantize_weights_t_*` transposes.
pub const DEQUANT_T_TILE: u32 = 64;

/// `out (K×N, 16-bit) = (q · s)ᵀ` for FP8 weights `q` (N×K e4m3, block scales `sb`): the dequantized
/// weights in the layout the 16-bit GEMMs take as B, exactly (power-of-two scales in range). One block
/// of [`BLOCK`] threads per 64×64 tile: the tile's bytes through shared memory, so both the loads
/// (rows of W) and the stores (rows of out) are contiguous.
///
/// # Safety
/// `g_q` `rows · cols` bytes (with `PACKED`, `packed_len(rows, cols)` in `layout::fp8::weights`'s packed
/// layout), `g_sb` `⌈rows/128⌉ · ⌈cols/128⌉` f32, `g_out` `rows · cols` writable 16-bit values; `cols % 4 ==
/// 0`, `rows % 2 == 0`; grid `(⌈cols/64⌉, ⌈rows/64⌉)`, [`BLOCK`] threads. (Four bytes of a row from a
/// column that is a multiple of 4 are contiguous and 4-byte aligned in both layouts.)
#[inline(always)]
unsafe fn dequantize_weights_t<const BF16: bool, const PACKED: bool>(g_q: *const u8, rows: u32, cols: u32, g_sb: *const f32, g_out: *mut u16) {
    const T: u32 = DEQUANT_T_TILE;
    const PITCH: u32 = T + 4; // bytes per staged row: rows 4 banks apart
    let (c0, r0) = (block_idx_x() * T, block_idx_y() * T);
    let tid = thread_idx_x();
    let s = crate::prim::shared::static_alloc::<{ (T * (T + 4)) as usize }>();
    // SAFETY: loads inside q (row < rows, 4 bytes at c < cols, cols % 4 == 0: 4-byte aligned); shared
    // accesses inside the T × PITCH tile; every thread reaches the barrier; stores inside out.
    unsafe {
        let mut i = tid;
        while i < T * T / 4 {
            let (r, c) = (i / (T / 4), 4 * (i % (T / 4)));
            let (row, col) = (r0 + r, c0 + c);
            let at = if PACKED { packed_index(row, col, cols) } else { row as usize * cols as usize + col as usize };
            let v = if row < rows && col < cols { *(g_q.add(at) as *const u32) } else { 0 };
            crate::prim::shared::st_shared_u32(s + r * PITCH + c, v);
            i += BLOCK;
        }
        sync_threads();
        let kb = cols.div_ceil(SCALE_BLOCK);
        // Output row c (a K position), columns r, r + 1 (two rows of W): one 32-bit store.
        let mut i = tid;
        while i < T * T / 2 {
            let (c, r) = (i / (T / 2), 2 * (i % (T / 2)));
            let (row, col) = (r0 + r, c0 + c);
            if row < rows && col < cols {
                let byte = |rr: u32| (crate::prim::shared::ld_shared_u32(s + rr * PITCH + (c & !3)) >> (8 * (c & 3))) & 0xFF;
                let sc = *g_sb.add(((row / SCALE_BLOCK) * kb + col / SCALE_BLOCK) as usize);
                let v = |b: u32| f16_to_f32(cvt_f16x2_e4m3x2(b as u16) as u16) * sc;
                let (a, b) = (v(byte(r)), v(byte(r + 1)));
                let bits = if BF16 { pack_bf16x2(a, b) } else { crate::prim::mma::pack_f16x2(a, b) };
                *(g_out.add(col as usize * rows as usize + row as usize) as *mut u32) = bits;
            }
            i += BLOCK;
        }
    }
}

/// [`dequantize_weights_t`] into bf16.
///
/// # Safety
/// As [`dequantize_weights_t`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_dequantize_weights_t_bf16(g_q: *const u8, rows: u32, cols: u32, g_sb: *const f32, g_out: *mut u16) {
    // SAFETY: forwarded.
    unsafe { dequantize_weights_t::<true, false>(g_q, rows, cols, g_sb, g_out) }
}

/// [`dequantize_weights_t`] into f16.
///
/// # Safety
/// As [`dequantize_weights_t`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_dequantize_weights_t_f16(g_q: *const u8, rows: u32, cols: u32, g_sb: *const f32, g_out: *mut u16) {
    // SAFETY: forwarded.
    unsafe { dequantize_weights_t::<false, false>(g_q, rows, cols, g_sb, g_out) }
}

/// [`dequantize_weights_t`] of packed weights (step w5's layout) into bf16.
///
/// # Safety
/// As [`dequantize_weights_t`] with `PACKED`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_dequantize_packed_weights_t_bf16(g_q: *const u8, rows: u32, cols: u32, g_sb: *const f32, g_out: *mut u16) {
    // SAFETY: forwarded.
    unsafe { dequantize_weights_t::<true, true>(g_q, rows, cols, g_sb, g_out) }
}

/// [`dequantize_weights_t`] of packed weights into f16.
///
/// # Safety
/// As [`dequantize_weights_t`] with `PACKED`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_dequantize_packed_weights_t_f16(g_q: *const u8, rows: u32, cols: u32, g_sb: *const f32, g_out: *mut u16) {
    // SAFETY: forwarded.
    unsafe { dequantize_weights_t::<false, true>(g_q, rows, cols, g_sb, g_out) }
}

/// FP8 weights (`rows × cols` e4m3, N×K) rewritten in step w5's packed layout (`layout::fp8::weights::
/// packed_index`): one thread per 16 packed bytes — a lane's chunk of one load, 16 bytes of one row —
/// copied from the natural layout, or zero in the padding (rows past `rows`, K past `cols`). The stores
/// are contiguous across a warp; each load is 16 bytes of a row.
///
/// # Safety
/// `g_q` `rows · cols` readable bytes, 16-byte aligned; `g_p` `packed_len(rows, cols)` writable bytes,
/// 16-byte aligned, not overlapping `g_q`; `cols % 16 == 0`; [`BLOCK`] threads a block, any 1-D grid.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_pack_weights(g_q: *const u8, rows: u32, cols: u32, g_p: *mut u8) {
    let chunks = (packed_len(rows, cols) / 16) as u64;
    // At least one: the divisions below then need no zero check (cols = 0 packs nothing anyway).
    let steps = cols.div_ceil(STEP_K).max(1) as u64;
    let stride = grid_size_1d() as u64;
    let mut j = index_1d() as u64;
    while j < chunks {
        // Chunk j: lane j % 32 of load (j / 32) % 4 of warp step j / 128 (tile-major, then K).
        let (lane, i, ts) = ((j % 32) as u32, ((j / 32) % 4) as u32, j / 128);
        let (tile, step) = ((ts / steps) as u32, (ts % steps) as u32);
        let row = ROWS * tile + 16 * (i / 2) + 8 * (i % 2) + lane / 4;
        let col = STEP_K * step + 16 * (lane % 4);
        let v = if row < rows && col < cols {
            // SAFETY: row < rows, col + 16 ≤ cols (cols % 16 == 0): inside q, 16-byte aligned.
            unsafe { crate::prim::global::ld_global_nc_v4_u32(g_q.add(row as usize * cols as usize + col as usize) as *const u32) }
        } else {
            [0; 4]
        };
        // SAFETY: 16·j + 16 ≤ packed_len: inside p, 16-byte aligned.
        unsafe { crate::prim::global::st_global_v4_u32(g_p.add(16 * j as usize) as *mut u32, v) };
        j += stride;
    }
}

/// Declares the four quantizer entry points of one input type as wrappers of the generic bodies.
macro_rules! quantizers {
    ($input:ty, $raw:ty, $amax:ident, $tensor:ident, $a:ident, $b:ident, $what:literal) => {
        #[doc = concat!("[`fp8_amax_f32`] on ", $what, " input.")]
        ///
        /// # Safety
        /// As [`fp8_amax_f32`], `g_x` of this element type.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $amax(g_x: *const $raw, n: u64, g_amax: *mut u32) {
            // SAFETY: forwarded.
            unsafe { amax::<$input>(g_x, n, g_amax) }
        }
        #[doc = concat!("[`fp8_quantize_tensor_f32`] on ", $what, " input.")]
        ///
        /// # Safety
        /// As [`fp8_quantize_tensor_f32`], `g_x` of this element type (aligned to 4 elements).
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $tensor(g_x: *const $raw, n: u64, g_amax: *const u32, g_q: *mut u8, g_scale: *mut f32) {
            // SAFETY: forwarded.
            unsafe { quantize_tensor::<$input>(g_x, n, g_amax, g_q, g_scale) }
        }
        #[doc = concat!("[`fp8_quantize_1x128_f32`] on ", $what, " input.")]
        ///
        /// # Safety
        /// As [`fp8_quantize_1x128_f32`], `g_x` of this element type (aligned to 4 elements).
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $a(g_x: *const $raw, rows: u32, cols: u32, g_q: *mut u8, g_sa: *mut f32) {
            // SAFETY: forwarded.
            unsafe { quantize_1x128::<$input>(g_x, rows, cols, g_q, g_sa) }
        }
        #[doc = concat!("[`fp8_quantize_128x128_f32`] on ", $what, " input.")]
        ///
        /// # Safety
        /// As [`fp8_quantize_128x128_f32`], `g_x` of this element type (aligned to 4 elements).
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $b(g_x: *const $raw, rows: u32, cols: u32, g_q: *mut u8, g_sb: *mut f32) {
            // SAFETY: forwarded.
            unsafe { quantize_128x128::<$input, Amax448>(g_x, rows, cols, g_q, g_sb) }
        }
    };
}

quantizers!(InF16, u16, fp8_amax_f16, fp8_quantize_tensor_f16, fp8_quantize_1x128_f16, fp8_quantize_128x128_f16, "f16");
quantizers!(InBf16, u16, fp8_amax_bf16, fp8_quantize_tensor_bf16, fp8_quantize_1x128_bf16, fp8_quantize_128x128_bf16, "bf16");

/// `*g_amax = max(*g_amax, max_i |x[i]|)` as f32 bits (`*g_amax` zeroed by the host first).
///
/// # Safety
/// `g_x` has `n` readable f32, `g_amax` one `u32` only accessed atomically meanwhile; [`BLOCK`] threads
/// per block, any grid.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_amax_f32(g_x: *const f32, n: u64, g_amax: *mut u32) {
    // SAFETY: forwarded.
    unsafe { amax::<InF32>(g_x, n, g_amax) }
}

/// The body of the `fp8_amax_*` kernels.
///
/// # Safety
/// As [`fp8_amax_f32`] for input `I`.
#[inline(always)]
unsafe fn amax<I: Input>(g_x: *const I::Raw, n: u64, g_amax: *mut u32) {
    let stride = grid_size_1d() as u64;
    let mut i = index_1d() as u64;
    let mut m = 0u32;
    while i < n {
        // SAFETY: i < n.
        let b = unsafe { I::load(g_x, i as usize) }.to_bits() & 0x7FFF_FFFF;
        m = if b > m { b } else { m };
        i += stride;
    }
    // SAFETY: every lane reaches this point (the loop above has no early exit); g_amax per the caller.
    unsafe {
        let m = warp_max_u32(m);
        if lane_id() == 0 {
            red_max_relaxed_gpu_u32(g_amax, m);
        }
    }
}

/// `q[i] = e4m3(x[i] / s)` with `s = *g_amax / 448` (an f32's bits), and `*g_scale = s`.
///
/// # Safety
/// `g_x` has `n` readable f32 (16-byte aligned), `g_q` `n` writable bytes (4-byte aligned), `g_amax` the
/// result of [`fp8_amax_f32`] over the same `x`, `g_scale` one writable f32; [`BLOCK`] threads per block,
/// any grid.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_quantize_tensor_f32(g_x: *const f32, n: u64, g_amax: *const u32, g_q: *mut u8, g_scale: *mut f32) {
    // SAFETY: forwarded.
    unsafe { quantize_tensor::<InF32>(g_x, n, g_amax, g_q, g_scale) }
}

/// The body of the `fp8_quantize_tensor_*` kernels.
///
/// # Safety
/// As [`fp8_quantize_tensor_f32`] for input `I`.
#[inline(always)]
unsafe fn quantize_tensor<I: Input>(g_x: *const I::Raw, n: u64, g_amax: *const u32, g_q: *mut u8, g_scale: *mut f32) {
    // SAFETY: one f32 the caller provides.
    let s = scale_of(f32::from_bits(unsafe { *g_amax }));
    if index_1d() == 0 {
        // SAFETY: one writable f32; only this thread writes it.
        unsafe { *g_scale = s };
    }
    let stride = 4 * grid_size_1d() as u64;
    let mut i = 4 * index_1d() as u64;
    while i < n {
        if i + 4 <= n {
            // SAFETY: i + 4 ≤ n and i % 4 == 0: four readable f32, 16-byte aligned; four writable bytes, 4-aligned.
            unsafe {
                let x = I::load4(g_x, i as usize);
                *(g_q.add(i as usize) as *mut u32) = quantize4(x, s);
            }
        } else {
            for j in i..n {
                // SAFETY: j < n.
                unsafe { *g_q.add(j as usize) = cvt_e4m3x2_f32(I::load(g_x, j as usize) / s, 0.0) as u8 };
            }
        }
        i += stride;
    }
}

/// A's block quantization: one warp per (row, 128-element K segment); lane `l` takes elements
/// `4l .. 4l + 4` of the segment. `q[r][c] = e4m3(x[r][c] / s)`, `s = amax(segment) / 448` stored at
/// `sa[scale_a_index(r, c)]`.
///
/// # Safety
/// `g_x` (rows × cols f32, 16-byte aligned) readable, `g_q` (rows × cols bytes) and `g_sa` (⌈cols/128⌉ ·
/// rows f32) writable; `cols % 4 == 0`; [`BLOCK`] threads per block, a 1-D grid of at least
/// `rows · ⌈cols/128⌉ / 8` blocks.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_quantize_1x128_f32(g_x: *const f32, rows: u32, cols: u32, g_q: *mut u8, g_sa: *mut f32) {
    // SAFETY: forwarded.
    unsafe { quantize_1x128::<InF32>(g_x, rows, cols, g_q, g_sa) }
}

/// The body of the `fp8_quantize_1x128_*` kernels.
///
/// # Safety
/// As [`fp8_quantize_1x128_f32`] for input `I`.
#[inline(always)]
unsafe fn quantize_1x128<I: Input>(g_x: *const I::Raw, rows: u32, cols: u32, g_q: *mut u8, g_sa: *mut f32) {
    let kbs = cols.div_ceil(SCALE_BLOCK);
    let seg = index_1d() / 32;
    if kbs == 0 || seg >= rows * kbs {
        return; // whole warps leave together (seg is uniform across the warp)
    }
    let (r, kb) = (seg / kbs, seg % kbs);
    let c = kb * SCALE_BLOCK + 4 * lane_id();
    let at = r as usize * cols as usize + c as usize;
    // SAFETY: c + 4 ≤ cols (cols % 4 == 0) inside row r < rows: readable, 16-byte aligned.
    let x = if c < cols { unsafe { I::load4(g_x, at) } } else { [0.0; 4] };
    let m = x.iter().fold(0u32, |m, v| { let b = v.to_bits() & 0x7FFF_FFFF; if b > m { b } else { m } });
    // SAFETY: the warp is converged here (uniform `seg`).
    let s = scale_of(f32::from_bits(unsafe { warp_max_u32(m) }));
    if c < cols {
        // SAFETY: as the load; 4-byte aligned bytes.
        unsafe { *(g_q.add(at) as *mut u32) = quantize4(x, s) };
    }
    if lane_id() == 0 {
        // SAFETY: r < rows, kb < ⌈cols/128⌉: inside `g_sa`.
        unsafe { *g_sa.add(scale_a_index(r, kb * SCALE_BLOCK, rows) as usize) = s };
    }
}

/// B's block quantization: one block of [`BLOCK`] threads per 128×128 tile (grid `(⌈cols/128⌉,
/// ⌈rows/128⌉)`); thread t takes the groups of 4 `t + 256j` (row `(t + 256j) / 32`, columns `4·((t +
/// 256j) % 32) ..`), the block's amax gives `s`, stored at `sb[scale_b_index(row0, col0)]`.
///
/// # Safety
/// As [`fp8_quantize_1x128_f32`] with `g_sb` (⌈rows/128⌉ · ⌈cols/128⌉ f32) and that grid.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_quantize_128x128_f32(g_x: *const f32, rows: u32, cols: u32, g_q: *mut u8, g_sb: *mut f32) {
    // SAFETY: forwarded.
    unsafe { quantize_128x128::<InF32, Amax448>(g_x, rows, cols, g_q, g_sb) }
}

/// The body of the `fp8_quantize_128x128_*` kernels.
///
/// # Safety
/// As [`fp8_quantize_128x128_f32`] for input `I`.
#[inline(always)]
unsafe fn quantize_128x128<I: Input, S: BlockScale>(g_x: *const I::Raw, rows: u32, cols: u32, g_q: *mut u8, g_sb: *mut f32) {
    let (c0, r0) = (block_idx_x() * SCALE_BLOCK, block_idx_y() * SCALE_BLOCK);
    let t = thread_idx_x();
    let at = |j: u32| {
        let g = t + BLOCK * j;
        let (r, c) = (r0 + g / 32, c0 + 4 * (g % 32));
        if r < rows && c < cols { Some(r as usize * cols as usize + c as usize) } else { None }
    };
    let mut m = 0u32;
    for j in 0..SCALE_BLOCK * SCALE_BLOCK / 4 / BLOCK {
        if let Some(i) = at(j) {
            // SAFETY: inside the matrix (row < rows, c + 4 ≤ cols), 16-byte aligned.
            let x = unsafe { I::load4(g_x, i) };
            m = x.iter().fold(m, |m, v| { let b = v.to_bits() & 0x7FFF_FFFF; if b > m { b } else { m } });
        }
    }
    let s_max = crate::prim::shared::static_alloc::<{ 4 * (BLOCK as usize / 32) }>();
    // SAFETY: every thread of the block reaches both barriers; each warp's lane 0 writes its own word.
    let s = unsafe {
        let m = warp_max_u32(m);
        if lane_id() == 0 {
            crate::prim::shared::st_shared_u32(s_max + 4 * (t / 32), m);
        }
        sync_threads();
        let mut all = 0u32;
        for w in 0..BLOCK / 32 {
            let v = crate::prim::shared::ld_shared_u32(s_max + 4 * w);
            all = if v > all { v } else { all };
        }
        S::scale(f32::from_bits(all))
    };
    for j in 0..SCALE_BLOCK * SCALE_BLOCK / 4 / BLOCK {
        if let Some(i) = at(j) {
            // SAFETY: as the first pass; 4-byte aligned bytes.
            unsafe { *(g_q.add(i) as *mut u32) = quantize4(I::load4(g_x, i), s) };
        }
    }
    if t == 0 {
        // SAFETY: inside `g_sb` (this block's tile).
        unsafe { *g_sb.add(scale_b_index(r0, c0, cols) as usize) = s };
    }
}

/// The dequantized matrix: `x'[r][c] = e4m3_value(q[r][c]) · s`, where `s` is `scales[0]` (`mode` 0:
/// per tensor), `sa[scale_a_index(r, c)]` (1: 1×128 segments) or `sb[scale_b_index(r, c)]` (2: 128×128).
///
/// # Safety
/// `g_q` rows × cols readable bytes, `g_out` rows × cols writable f32, `g_scales` of the mode's length;
/// [`BLOCK`] threads per block, any grid.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_dequantize_f32(g_q: *const u8, rows: u32, cols: u32, g_scales: *const f32, mode: u32, g_out: *mut f32) {
    if cols == 0 {
        return;
    }
    let n = rows as u64 * cols as u64;
    let stride = grid_size_1d() as u64;
    let mut i = index_1d() as u64;
    while i < n {
        let (r, c) = ((i / cols as u64) as u32, (i % cols as u64) as u32);
        let si = match mode {
            0 => 0,
            1 => scale_a_index(r, c, rows),
            _ => scale_b_index(r, c, cols),
        };
        // SAFETY: i < rows · cols; the scale index is inside the mode's array (caller).
        unsafe {
            let v = f16_to_f32(cvt_f16x2_e4m3x2(*g_q.add(i as usize) as u16) as u16);
            *g_out.add(i as usize) = v * *g_scales.add(si as usize);
        }
        i += stride;
    }
}

/// `out[i] = bf16(x[i])` (round to nearest even): the f32 reference rounded as the kernels' output is,
/// for the device comparison.
///
/// # Safety
/// `g_x` `n` readable f32, `g_out` `n` writable 16-bit elements; [`BLOCK`] threads per block, any grid.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_f32_to_bf16(g_x: *const f32, n: u64, g_out: *mut u16) {
    let stride = grid_size_1d() as u64;
    let mut i = index_1d() as u64;
    while i < n {
        // SAFETY: i < n.
        unsafe { *g_out.add(i as usize) = pack_bf16x2(*g_x.add(i as usize), 0.0) as u16 };
        i += stride;
    }
}

/// The per-tensor scale `s = sa · sb` of an FP8 product split as `2^e · f` for the weight-only decode
/// kernels (`steps/w1_weight_only.rs`), which take a power-of-two scale per 128×128 block of B: `e`
/// is `s`'s binary exponent clamped to bf16's weight-scale range ([`Wide::scale_exp_range`]), `f = s /
/// 2^e` (exact: a power-of-two division of a normal f32, or of a subnormal by `2^-117`). Returns
/// `(2^e, f)`.
#[inline(always)]
fn split_scale(s: f32) -> (f32, f32) {
    let (lo, hi) = Wide::Bf16.scale_exp_range();
    let exp = ((s.to_bits() >> 23) & 0xFF) as i32 - 127;
    let e = if exp < lo { lo } else if exp > hi { hi } else { exp };
    let p = f32::from_bits(((e + 127) as u32) << 23);
    let inv = f32::from_bits(((127 - e) as u32) << 23);
    (p, s * inv)
}

/// FP8 decode through the weight-only kernels (`kernel_lab::fp8`'s per-tensor route for a few
/// tokens): A's e4m3 bytes widened to bf16 with the product's scale folded in, `x = bf16(q · f)`, and
/// every one of B's `nblocks` block scales set to `2^e`, where `sa[0] · sb[0] = 2^e · f`
/// ([`split_scale`]). The only rounding is `x`'s (8 significant bits; e4m3 itself has 4), one per
/// element of A, before the product. It releases its dependents first (PDL): w1 waits for this grid to
/// complete and flush before touching memory.
///
/// # Safety
/// `g_q` `n` readable bytes (`n` even, 2-byte aligned), `g_x` `n` writable 16-bit elements (4-byte
/// aligned), `g_sa` and `g_sb` one readable f32 each (finite, positive), `g_blocks` `nblocks` writable
/// f32; nothing else touches them while it runs; any grid of [`BLOCK`] threads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_widen_per_tensor_bf16(g_q: *const u8, n: u32, g_sa: *const f32, g_sb: *const f32, g_x: *mut u16, g_blocks: *mut f32,
                                                             nblocks: u32) {
    // The weight-only kernel that follows waits for this grid to complete before it reads anything
    // (`util::pdl`): let it be scheduled now, so its launch overlaps this one's few microseconds.
    #[cfg(lab_sm90)]
    crate::prim::sync::griddepcontrol_launch_dependents();
    // SAFETY: one f32 each (caller).
    let (p, f) = split_scale(unsafe { *g_sa * *g_sb });
    let stride = grid_size_1d();
    let mut i = index_1d();
    while i < nblocks {
        // SAFETY: i < nblocks.
        unsafe { *g_blocks.add(i as usize) = p };
        i += stride;
    }
    let mut pair = index_1d();
    while pair < n / 2 {
        // SAFETY: bytes 2·pair, 2·pair + 1 < n (2-byte aligned: the base is, caller) and elements
        // likewise of x (4-byte aligned).
        unsafe {
            let h = cvt_f16x2_e4m3x2(*(g_q.add(2 * pair as usize) as *const u16));
            let (a, b) = (f16_to_f32(h as u16) * f, f16_to_f32((h >> 16) as u16) * f);
            *(g_x.add(2 * pair as usize) as *mut u32) = pack_bf16x2(a, b);
        }
        pair += stride;
    }
}
