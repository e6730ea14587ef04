#![cfg(lab_sm90)]
//! FP8 weight-only decode w3: w1 with persistent blocks. One wave of blocks (two a SM) walks the
//! (row tile, split of K) units `blockIdx.x, + gridDim.x, …`, and each warp's next load is issued
//! before the unit's end, so the next unit's first bytes are on their way while the block sums the
//! one it finished.
//!
//! * **Why.** w1's and w2's times fit a per-block cost, not a bandwidth one (H200, `kernel-lab w8`):
//!   at 1×28672×4096 w1 runs 896 blocks of 128 KiB in 3.4 waves of 264; rounded up to 4 waves at the
//!   copy rate (8 µs each) plus ~2 µs a wave of first-load latency and end-of-block sum gives the 40 µs
//!   measured; the 15.2 waves of the LM head likewise give its 148 µs. w2's deeper ring changed neither.
//! * **Units.** `splits` (a kernel argument; grid `(G, 1)`) splits K so that units of whole tiles
//!   spread evenly over the wave (the host's wave model), each unit summed like w1's splits.
//! * **No wave tail, no ramp per unit.** A warp's operands for its first step of the next unit are
//!   loaded in the same two-buffer rotation as any other step; only the block's sum (a barrier, shared
//!   memory, one store or partial per output) is between units.
//!
//! Prediction: 1×28672×4096 from 40 µs (w1, 69% of the copy rate) to ~30 µs (~90%); the LM head
//! 148 → ~130 µs; the small projections (1×4096×4096: 10.6 µs) gain least, their time being launch and
//! first-load latency. Measured: the FP8 ladder's README.
use crate::fp8::weight_only::{Operands, Wide16, compute, finish, step_multiplier};
use crate::hgemm::elem::{Bf16, F16};
use crate::launch_bounds::launch_bounds;
use crate::util::unroll::unroll4;
use crate::prim::{
    global::{ld_global_nc_na_v4_u32, ld_global_nc_v4_u32},
    shared,
    sync::sync_threads,
    thread::{block_idx_x, grid_dim_x, thread_idx_x},
};
use layout::fp8::weights::{ROWS, STEP_K, WARPS};

launch_bounds!(fp8_w3_t8_bf16, 256, 2);
launch_bounds!(fp8_w3_t16_bf16, 256, 2);
launch_bounds!(fp8_w3_t32_bf16, 256, 1);
launch_bounds!(fp8_w3_t8_f16, 256, 2);
launch_bounds!(fp8_w3_t16_f16, 256, 2);
launch_bounds!(fp8_w3_t32_f16, 256, 1);

/// Where a warp is: unit `u` (tile `u / splits`, split `u % splits`) and the K of its step there.
#[derive(Clone, Copy)]
struct Pos {
    u: u32,
    k0: u32,
}

/// The shape and walk every position needs.
#[derive(Clone, Copy)]
struct Walk {
    m: u32,
    n: u32,
    k: u32,
    k_split: u32,
    splits: u32,
    units: u32,
    grid: u32,
    warp: u32,
}

impl Walk {
    /// Unit `u`'s K range.
    #[inline(always)]
    fn range(&self, u: u32) -> (u32, u32) {
        let lo = (u % self.splits) * self.k_split;
        (lo, if self.k - lo < self.k_split { self.k } else { lo + self.k_split })
    }
    /// This warp's first step of unit `u`.
    #[inline(always)]
    fn first(&self, u: u32) -> Pos {
        Pos { u, k0: self.range(u).0 + STEP_K * self.warp }
    }
    /// The position after `p`: the warp's next step of the unit, or its first of the block's next unit.
    #[inline(always)]
    fn next(&self, p: Pos) -> Pos {
        let k1 = p.k0 + STEP_K * WARPS;
        if k1 < self.range(p.u).1 { Pos { u: p.u, k0: k1 } } else { self.first(p.u + self.grid) }
    }
}

/// The operands of the warp step at `p` (zeros past the unit's K or past the last unit: nothing read).
///
/// # Safety
/// As [`w3`]'s contract.
#[inline(always)]
unsafe fn load<const NT: usize, E: Wide16>(x: *const u16, w: *const u8, sb: *const f32, wk: &Walk, p: Pos, g: u32, t: u32) -> Operands<NT> {
    let mut l = Operands { w: [[[0; 4]; 2]; 2], x: [[0; 8]; NT], mult: 0 };
    if p.u >= wk.units {
        return l;
    }
    let (_, k_end) = wk.range(p.u);
    let n0 = (p.u / wk.splits) * ROWS;
    let kc = p.k0 + 16 * t;
    let ok = kc < k_end;
    let (n, k) = (wk.n, wk.k);
    let mut rt = 0;
    while rt < 2 {
        let mut h = 0;
        while h < 2 {
            let row = n0 + 16 * rt + 8 * h + g;
            if ok && row < n {
                // SAFETY: row < n and kc + 16 ≤ k (k % 16 == 0): inside W; 16-byte aligned.
                l.w[rt as usize][h as usize] = unsafe { ld_global_nc_na_v4_u32(w.add(row as usize * k as usize + kc as usize) as *const u32) };
            }
            h += 1;
        }
        rt += 1;
    }
    unroll4!(nt => { if (nt as usize) < NT {
        let tok = 8 * nt + g;
        if ok && tok < wk.m {
            let q = x.wrapping_add(tok as usize * k as usize + kc as usize) as *const u32;
            // SAFETY: token tok < m, K positions kc..kc+16 ≤ k: inside X; 32-byte aligned.
            let (a, b) = unsafe { (ld_global_nc_v4_u32(q), ld_global_nc_v4_u32(q.add(4))) };
            l.x[nt as usize] = [a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]];
        }
    }});
    if p.k0 < k_end {
        // SAFETY: n0 < n, k0 < k_end ≤ k.
        l.mult = unsafe { step_multiplier::<E>(sb, k, n0, p.k0) };
    }
    l
}

/// Step `p`'s MMAs (when it is inside its unit), then, when `nx` is in another unit, the block's sum
/// of `p`'s unit. Returns whether the walk goes on.
///
/// # Safety
/// As [`w3`]'s contract; all threads of the block call it with the same sequence of units.
#[inline(always)]
unsafe fn advance<const NT: usize, E: Wide16>(acc: &mut [[[f32; 4]; NT]; 2], op: &Operands<NT>, p: Pos, nx: Pos, wk: &Walk, y: *mut u16, ws: *mut f32,
                                              count: *mut u32) -> bool {
    if p.k0 < wk.range(p.u).1 {
        // SAFETY: the whole warp (forwarded).
        unsafe { compute::<NT, E>(acc, op) };
    }
    if nx.u == p.u {
        return true;
    }
    // SAFETY: every thread reaches this barrier (the unit sequence is the block's); after it no thread
    // still reads the previous unit's sums in shared memory.
    unsafe {
        sync_threads();
        finish::<NT, E>(*acc, shared::dynamic::<shared::Align16>() as *mut f32, y, ws, count, wk.m, wk.n, p.u / wk.splits, p.u % wk.splits, wk.splits);
    }
    *acc = [[[0.0; 4]; NT]; 2];
    nx.u < wk.units
}

/// The body of the w3 kernels with `NT` token tiles.
///
/// # Safety
/// As [`fp8_w3_t8_bf16`], with `8·NT` for 8.
#[inline(always)]
unsafe fn w3<const NT: usize, E: Wide16>(x: *const u16, w: *const u8, sb: *const f32, y: *mut u16, ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32,
                                         k_split: u32, splits: u32) {
    let tid = thread_idx_x();
    let (warp, lane) = (tid / 32, tid % 32);
    let (g, t) = (lane / 4, lane % 4);
    let units = n.div_ceil(ROWS) * splits;
    let wk = Walk { m, n, k, k_split, splits, units, grid: grid_dim_x(), warp };
    if block_idx_x() >= units {
        return;
    }
    let mut acc = [[[0.0f32; 4]; NT]; 2];
    // SAFETY: loads inside W, X, sb (`load`); `advance` called by every thread with the block's unit
    // sequence. Two buffers take turns (no copy between them: at 4 token tiles LLVM would route one
    // through local memory).
    unsafe {
        let mut p = wk.first(block_idx_x());
        let mut a = load::<NT, E>(x, w, sb, &wk, p, g, t);
        loop {
            let q = wk.next(p);
            let b = load::<NT, E>(x, w, sb, &wk, q, g, t);
            if !advance::<NT, E>(&mut acc, &a, p, q, &wk, y, ws, count) {
                break;
            }
            p = q;
            let q = wk.next(p);
            a = load::<NT, E>(x, w, sb, &wk, q, g, t);
            if !advance::<NT, E>(&mut acc, &b, p, q, &wk, y, ws, count) {
                break;
            }
            p = q;
        }
    }
}

macro_rules! w3_entries {
    ($($name:ident, $nt:literal, $e:ty, $tokens:literal;)*) => {$(
        #[doc = concat!("`Y = X · Wᵀ` for M ≤ ", $tokens, " tokens, persistent blocks over (tile, split) units (see the module).")]
        ///
        /// # Safety
        /// As `fp8_w1_t8_bf16` (w1's arguments and workspace), except: grid `(G, 1)` with `1 ≤ G`, and
        /// `splits` (≤ 16, `(splits − 1) · k_split < k`) passed last; the workspace holds `splits`
        /// slices and `count` `⌈n/32⌉` zeroed counters whenever splits > 1.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(x: *const u16, w: *const u8, sb: *const f32, y: *mut u16, ws: *mut f32, count: *mut u32, m: u32, n: u32,
                                                k: u32, k_split: u32, splits: u32) {
            // SAFETY: forwarded.
            unsafe { w3::<$nt, $e>(x, w, sb, y, ws, count, m, n, k, k_split, splits) }
        }
    )*};
}

w3_entries! {
    fp8_w3_t8_bf16, 1, Bf16, 8;
    fp8_w3_t16_bf16, 2, Bf16, 16;
    fp8_w3_t32_bf16, 4, Bf16, 32;
    fp8_w3_t8_f16, 1, F16, 8;
    fp8_w3_t16_f16, 2, F16, 16;
    fp8_w3_t32_f16, 4, F16, 32;
}
