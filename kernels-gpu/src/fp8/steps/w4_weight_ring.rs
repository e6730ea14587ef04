#![cfg(lab_sm90)]
//! FP8 weight-only decode w4: w1 with each lane's **weight** chunks copied by `cp.async` into a ring of
//! its own in shared memory, five steps ahead; the activations (and the step's scale) still through
//! L1 into registers, one step ahead.
//!
//! * **Why.** `ncu` of w1 at 1×28672×4096 (H200, session 54): DRAM at 62% of peak, 8.6 cycles between
//!   a warp's instructions, 59% of them waiting on an L1TEX scoreboard — two steps of loads in flight a
//!   warp (what w1's registers hold) do not cover the latency, and a block of 8 warps × 8 steps spends
//!   a large part of its life filling and draining that short pipe. HGEMM d2, a `cp.async` ring, reads
//!   the bf16 weights of the same shape at 89%.
//! * **The ring is per lane.** A lane copies exactly the 16-byte chunks it later reads, so
//!   `cp.async.wait_group` alone orders the copy before the read: no barrier, no warp waits for another.
//!   Chunk `c` of stage `s` of thread `tid` sits at `((s · 4 + c) · 256 + tid) · 16`: a warp's lanes write
//!   and read 512 contiguous bytes (conflict-free 16-byte reads). Six stages, 96 KiB a block, two blocks
//!   a SM: up to 160 KiB of weights in flight a SM where w1 has at most 64.
//! * **Activations stay on `ld.global.nc`.** w2 (removed, `bd93786`) copied them through the ring too
//!   (`cp.async.cg`: L2 only) and ran 0.5× w1 at 8 tokens, 0.36× at 32: every block then fetched them
//!   from L2, where w1's loads hit L1 for the blocks of an SM. fw2's e4m3 activations (`X8`) are loaded
//!   as bytes and widened in `compute`, never waited for at load.
//!
//! Prediction (H200, copy 4.27 TB/s): 1×28672×4096 from 40 µs (w1, 68% of the copy rate) to ~32 µs
//! (~85%); 1×4096×4096 (two splits: each warp's 4 steps all in flight at once) from 10.7 to ~8 µs; the
//! Llama-3-8B FP8 runner's step from 3.20 ms to ~2.7 ms. Measured: the FP8 ladder's README.
use crate::fp8::weight_only::{Acts, Operands, Wide16, compute, finish, load_acts};
use crate::hgemm::elem::{Bf16, F16};
use crate::launch_bounds::launch_bounds;
use crate::util::unroll::unroll2;
use crate::prim::{
    cp_async::{cp_async_cg_16_zfill, cp_async_commit_group, cp_async_wait_group},
    shared::{self, ld_shared_v4_u32},
    sync::sync_threads,
    thread::{block_idx_x, block_idx_y, grid_dim_y, thread_idx_x},
};
use layout::fp8::weights::{RING_STAGES, ROWS, STEP_K, THREADS, WARPS};

launch_bounds!(fp8_w4_t8_bf16, 256, 2);
launch_bounds!(fp8_w4_t16_bf16, 256, 2);
launch_bounds!(fp8_w4_t32_bf16, 256, 2);
launch_bounds!(fp8_w4_t8_f16, 256, 2);
launch_bounds!(fp8_w4_t16_f16, 256, 2);
launch_bounds!(fp8_w4_t32_f16, 256, 2);
launch_bounds!(fp8_fw3_t8, 256, 2);
launch_bounds!(fp8_fw3_t16, 256, 2);

/// The shared address of weight chunk `c` (row tile `c / 2`, half `c % 2`) of stage `s` of this thread.
#[inline(always)]
fn chunk(base: u32, s: u32, c: u32, tid: u32) -> u32 {
    base + ((s * 4 + c) * THREADS + tid) * 16
}

/// Issues the weight copies of the warp step starting at `k0` into stage `s` and commits them (chunks
/// past `k_end` or rows past `n` zero-filled, nothing read; a step past `k_end` commits an empty group).
///
/// # Safety
/// As w1's contract on `w`; `k_end ≤ k`, `s < RING_STAGES`.
#[inline(always)]
unsafe fn issue(base: u32, s: u32, w: *const u8, n: u32, k: u32, k_end: u32, n0: u32, k0: u32, g: u32, t: u32, tid: u32) {
    let kc = k0 + 16 * t;
    let ok = kc < k_end;
    unroll2!(rt => {
        unroll2!(h => {
            let row = n0 + 16 * rt + 8 * h + g;
            let live = ok && row < n;
            let src = if live { w.wrapping_add(row as usize * k as usize + kc as usize) } else { w };
            // SAFETY: 16 readable, 16-byte-aligned bytes of W where `live` (row < n, kc + 16 ≤ k, k % 16
            // == 0), none read otherwise; the destination is this thread's chunk of the ring.
            unsafe { cp_async_cg_16_zfill(chunk(base, s, 2 * rt + h, tid), src, if live { 16 } else { 0 }) };
        });
    });
    cp_async_commit_group();
}

/// One step: the copies of the step `RING_STAGES − 1` ahead (its first K `k_ahead`) issued into stage
/// `fill` (the one the previous step read), the wait for this step's group (five newer ones may stay
/// pending), this step's chunks read from stage `read` and multiplied with the activations `xa` loaded a
/// step before.
///
/// # Safety
/// As [`issue`]; the whole warp, converged; stage `read`'s group committed `RING_STAGES − 1` groups
/// before this call's.
#[inline(always)]
unsafe fn step<const NT: usize, E: Wide16, const X8: bool>(acc: &mut [[[f32; 4]; NT]; 2], xa: &Acts<NT>, base: u32, fill: u32, read: u32, w: *const u8,
                                                             n: u32, k: u32, k_end: u32, n0: u32, k_ahead: u32, g: u32, t: u32, tid: u32) {
    // SAFETY: forwarded; the chunks read are this thread's, completed by the wait.
    unsafe {
        issue(base, fill, w, n, k, k_end, n0, k_ahead, g, t, tid);
        cp_async_wait_group::<{ RING_STAGES - 1 }>();
        let mut op = Operands::<NT> { w: [[[0; 4]; 2]; 2], x: xa.x, mult: xa.mult };
        unroll2!(rt => {
            unroll2!(h => {
                op.w[rt as usize][h as usize] = ld_shared_v4_u32(chunk(base, read, 2 * rt + h, tid));
            });
        });
        compute::<NT, E, X8>(acc, &op);
    }
}

/// The body of the w4 kernels with `NT` token tiles (`X8`: fw3, e4m3 activations and per-tensor scales).
///
/// # Safety
/// As `fp8_w1_t8_bf16` (w1's contract) with `8·NT` tokens, and `layout::fp8::weights::W4_SMEM` bytes of
/// dynamic shared memory (16-byte aligned).
#[inline(always)]
unsafe fn w4<const NT: usize, E: Wide16, const X8: bool, const CONTIG: bool>(x: *const u8, w: *const u8, sb: *const f32, alpha: (*const f32, *const f32), y: *mut u16,
                                                           ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32, k_split: u32) {
    let tid = thread_idx_x();
    let (warp, lane) = (tid / 32, tid % 32);
    let (g, t) = (lane / 4, lane % 4);
    let n0 = block_idx_x() * ROWS;
    let k_begin = block_idx_y() * k_split;
    let k_end = if k - k_begin < k_split { k } else { k_begin + k_split };
    // The warp's steps: every WARPS-th of the split's, or (`CONTIG`, the w4c experiment) one contiguous
    // run of them, so the copies in flight cover adjacent bytes of each row.
    let per = (k_end - k_begin).div_ceil(STEP_K * WARPS) * STEP_K;
    let lo = k_begin + per * warp;
    let k_end = if !CONTIG || lo + per >= k_end { k_end } else { lo + per };
    let ring = shared::dynamic::<shared::Align16>();
    let base = shared::addr_of(ring);
    // This warp's step j starts at K = k_of(j): the block's warps take turns over its part of K.
    let k_of = |j: u32| if CONTIG { lo + STEP_K * j } else { k_begin + STEP_K * (warp + WARPS * j) };
    let mut acc = [[[0.0f32; 4]; NT]; 2];
    // SAFETY: copies into and reads from this thread's own ring chunks only, each read after the wait
    // that completes its stage's group and before the copy that refills it is issued (the stage read at
    // step i is refilled at step i + 1); activation and scale loads inside X and sb (`load_acts`);
    // `finish` after a barrier that follows every thread's last wait (the ring becomes its area).
    unsafe {
        // Launched with PDL (`util::pdl`): wait for the previous grid before touching memory.
        crate::util::pdl::wait_then_release();
        // fw3: the product's per-tensor scale (A's times B's), applied to the sums.
        let alpha = if X8 { *alpha.0 * *alpha.1 } else { 1.0 };
        let mut fill = 0;
        while fill + 1 < RING_STAGES {
            issue(base, fill, w, n, k, k_end, n0, k_of(fill), g, t, tid);
            fill += 1;
        }
        let next = |s: u32| if s + 1 == RING_STAGES { 0 } else { s + 1 };
        // `fill` is the stage the next copies go to, `read` the stage step i reads.
        let mut read = 0;
        let mut i = 0;
        // Two activation buffers taking turns (no copy from one to the other).
        let mut xa = load_acts::<NT, E, X8>(x, sb, m, k, k_end, n0, k_of(0), g, t);
        while k_of(i) < k_end {
            let xb = load_acts::<NT, E, X8>(x, sb, m, k, k_end, n0, k_of(i + 1), g, t);
            step::<NT, E, X8>(&mut acc, &xa, base, fill, read, w, n, k, k_end, n0, k_of(i + RING_STAGES - 1), g, t, tid);
            (fill, read, i) = (next(fill), next(read), i + 1);
            if k_of(i) >= k_end {
                break;
            }
            xa = load_acts::<NT, E, X8>(x, sb, m, k, k_end, n0, k_of(i + 1), g, t);
            step::<NT, E, X8>(&mut acc, &xb, base, fill, read, w, n, k, k_end, n0, k_of(i + RING_STAGES - 1), g, t, tid);
            (fill, read, i) = (next(fill), next(read), i + 1);
        }
        cp_async_wait_group::<0>();
        // Every warp done with its ring before the block's sums write over it.
        sync_threads();
        finish::<NT, E>(acc, ring as *mut f32, y, ws, count, m, n, block_idx_x(), block_idx_y(), grid_dim_y(), alpha);
    }
}

macro_rules! w4_entries {
    ($($name:ident, $nt:literal, $e:ty, $tokens:literal, $contig:literal;)*) => {$(
        #[doc = concat!("`Y = X · Wᵀ` for M ≤ ", $tokens, " tokens, the weights through a per-lane `cp.async` ring (see the module).")]
        ///
        /// # Safety
        /// As `fp8_w1_t8_bf16` (the same arguments, grid and workspace), with
        /// `layout::fp8::weights::W4_SMEM` bytes of dynamic shared memory.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(x: *const u16, w: *const u8, sb: *const f32, y: *mut u16, ws: *mut f32, count: *mut u32, m: u32, n: u32,
                                                k: u32, k_split: u32) {
            // SAFETY: forwarded (x as bytes; the α pointers are not read when X8 is false).
            unsafe { w4::<$nt, $e, false, $contig>(x as *const u8, w, sb, (core::ptr::null(), core::ptr::null()), y, ws, count, m, n, k, k_split) }
        }
    )*};
}

macro_rules! fw3_entries {
    ($($name:ident, $nt:literal, $tokens:literal;)*) => {$(
        #[doc = concat!("fw3: fw2 (`C (bf16) = sa·sb · A · Bᵀ`, A ≤ ", $tokens, " rows of e4m3, B N×K e4m3 without block scales) on w4's ring.")]
        ///
        /// # Safety
        /// As `fp8_fw2_t8` (the same arguments, grid and workspace), with `layout::fp8::weights::W4_SMEM`
        /// bytes of dynamic shared memory.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(x: *const u8, w: *const u8, sa: *const f32, sb: *const f32, y: *mut u16, ws: *mut f32, count: *mut u32,
                                                m: u32, n: u32, k: u32, k_split: u32) {
            // SAFETY: forwarded (no block scales are read when X8 is true).
            unsafe { w4::<$nt, Bf16, true, false>(x, w, core::ptr::null(), (sa, sb), y, ws, count, m, n, k, k_split) }
        }
    )*};
}

w4_entries! {
    fp8_w4_t8_bf16, 1, Bf16, 8, false;
    fp8_w4_t16_bf16, 2, Bf16, 16, false;
    fp8_w4_t32_bf16, 4, Bf16, 32, false;
    fp8_w4_t8_f16, 1, F16, 8, false;
    fp8_w4_t16_f16, 2, F16, 16, false;
    fp8_w4_t32_f16, 4, F16, 32, false;
    fp8_w4c_t8_bf16, 1, Bf16, 8, true;
    fp8_w4c_t16_bf16, 2, Bf16, 16, true;
    fp8_w4c_t32_bf16, 4, Bf16, 32, true;
    fp8_w4c_t8_f16, 1, F16, 8, true;
    fp8_w4c_t16_f16, 2, F16, 16, true;
    fp8_w4c_t32_f16, 4, F16, 32, true;
}
launch_bounds!(fp8_w4c_t8_bf16, 256, 2);
launch_bounds!(fp8_w4c_t16_bf16, 256, 2);
launch_bounds!(fp8_w4c_t32_bf16, 256, 2);
launch_bounds!(fp8_w4c_t8_f16, 256, 2);
launch_bounds!(fp8_w4c_t16_f16, 256, 2);
launch_bounds!(fp8_w4c_t32_f16, 256, 2);

fw3_entries! {
    fp8_fw3_t8, 1, 8;
    fp8_fw3_t16, 2, 16;
}
