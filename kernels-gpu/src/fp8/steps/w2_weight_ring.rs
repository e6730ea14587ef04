#![cfg(lab_sm90)]
//! FP8 weight-only decode w2: w1 with each lane's **weight** chunks copied by `cp.async` into a ring of
//! its own in shared memory, five steps ahead; the activations still through L1 into registers, one
//! step ahead.
//!
//! * **Why.** `ncu` of w1 at 1×28672×4096 (H200): DRAM at 62% of peak, 8.6 cycles between a warp's
//!   instructions, 59% of them waiting on an L1TEX scoreboard — two steps of loads in flight a warp
//!   (w1's registers hold no more) do not cover the latency. HGEMM d2, a `cp.async` ring, reads the same
//!   bytes at 89%.
//! * **The ring is per lane.** A lane copies exactly the 16-byte chunks it later reads, so
//!   `cp.async.wait_group` alone orders the copy before the read: no barrier, no warp waits for another.
//!   Chunk `c` of stage `s` of thread `tid` sits at `((s · 4 + c) · 256 + tid) · 16`: a warp's lanes write
//!   and read 512 contiguous bytes. Six stages, 96 KiB a block, two blocks a SM.
//! * **Activations stay on `ld.global.nc`.** A first try copied them through the ring too (`cp.async.cg`:
//!   L2 only) and ran 0.5× w1 at 8 tokens, 0.36× at 32 (`bd93786`): every block then fetched them from
//!   L2, where w1's loads hit L1 for the blocks of an SM.
//!
//! Prediction: 1×28672×4096 from 40 µs (w1, 68% of the copy rate) to ~32 µs (~85%); small shapes change
//! little (their time is launch and first-load latency). Measured: the FP8 ladder's README.
use crate::fp8::weight_only::{Operands, Wide16, compute, finish, step_multiplier};
use crate::hgemm::elem::{Bf16, F16};
use crate::launch_bounds::launch_bounds;
use crate::util::unroll::{unroll2, unroll4};
use crate::prim::{
    cp_async::{cp_async_cg_16_zfill, cp_async_commit_group, cp_async_wait_group, cp_async_wait_group_n},
    global::ld_global_nc_v4_u32,
    shared::{self, ld_shared_v4_u32},
    sync::sync_threads,
    thread::{block_idx_x, block_idx_y, grid_dim_y, thread_idx_x},
};
use layout::fp8::weights::{RING_STAGES, ROWS, STEP_K, THREADS, WARPS};

launch_bounds!(fp8_w2_t8_bf16, 256, 2);
launch_bounds!(fp8_w2_t16_bf16, 256, 2);
launch_bounds!(fp8_w2_t32_bf16, 256, 2);
launch_bounds!(fp8_w2_t8_f16, 256, 2);
launch_bounds!(fp8_w2_t16_f16, 256, 2);
launch_bounds!(fp8_w2_t32_f16, 256, 2);

/// The shared address of weight chunk `c` (row tile `c / 2`, half `c % 2`) of stage `s` of this thread.
#[inline(always)]
fn chunk(base: u32, s: u32, c: u32, tid: u32) -> u32 {
    base + ((s * 4 + c) * THREADS + tid) * 16
}

/// Issues the weight copies of the warp step starting at `k0` into stage `s` and commits them (chunks
/// past `k_end` or rows past `n` zero-filled, nothing read; a step past `k_end` commits an empty group).
///
/// # Safety
/// As w1's contract; `k_end ≤ k`.
#[inline(always)]
unsafe fn issue(base: u32, s: u32, w: *const u8, n: u32, k: u32, k_end: u32, n0: u32, k0: u32, g: u32, t: u32, tid: u32) {
    let kc = k0 + 16 * t;
    let ok = kc < k_end;
    unroll2!(rt => {
        unroll2!(h => {
            let row = n0 + 16 * rt + 8 * h + g;
            let live = ok && row < n;
            let src = if live { w.wrapping_add(row as usize * k as usize + kc as usize) } else { w };
            // SAFETY: 16 readable bytes of W where `live` (row < n, kc + 16 ≤ k), none read otherwise;
            // the destination is this thread's chunk of the ring.
            unsafe { cp_async_cg_16_zfill(chunk(base, s, 2 * rt + h, tid), src, if live { 16 } else { 0 }) };
        });
    });
    cp_async_commit_group();
}

/// The activations of the warp step at `k0` (token `8·nt + g`, K `k0 + 16t ..+16`; zeros past `m` or
/// `k_end`).
///
/// # Safety
/// As w1's contract.
#[inline(always)]
unsafe fn load_x<const NT: usize>(x: *const u16, m: u32, k: u32, k_end: u32, k0: u32, g: u32, t: u32) -> [[u32; 8]; NT] {
    let kc = k0 + 16 * t;
    let mut v = [[0u32; 8]; NT];
    unroll4!(nt => { if (nt as usize) < NT {
        let tok = 8 * nt + g;
        if kc < k_end && tok < m {
            let q = x.wrapping_add(tok as usize * k as usize + kc as usize) as *const u32;
            // SAFETY: token tok < m, K positions kc..kc+16 ≤ k: inside X; 32-byte aligned.
            let (a, b) = unsafe { (ld_global_nc_v4_u32(q), ld_global_nc_v4_u32(q.add(4))) };
            v[nt as usize] = [a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]];
        }
    }});
    v
}

/// Step `i`: the copies of step `i + STAGES − 1` issued, step `i`'s weights waited for and read from the
/// ring, its MMAs with the activations `xa`.
///
/// # Safety
/// As w1's contract; the whole warp; called for consecutive `i` from 0 after the prologue.
#[inline(always)]
unsafe fn step<const NT: usize, E: Wide16>(acc: &mut [[[f32; 4]; NT]; 2], xa: &[[u32; 8]; NT], i: u32, base: u32, w: *const u8, sb: *const f32, n: u32,
                                           k: u32, k_begin: u32, k_end: u32, n0: u32, warp: u32, g: u32, t: u32, tid: u32) {
    let k_of = |j: u32| k_begin + STEP_K * (warp + WARPS * j);
    // SAFETY: forwarded (the ring's chunks are this thread's; the stage refilled was read at step i − 1).
    unsafe {
        issue(base, (i + RING_STAGES - 1) % RING_STAGES, w, n, k, k_end, n0, k_of(i + RING_STAGES - 1), g, t, tid);
        let mult = step_multiplier::<E>(sb, k, n0, k_of(i));
        // `RING_STAGES − 1` = 5 newer groups may stay pending (`cp_async_wait_group_n` covers 0..=3 only).
        cp_async_wait_group::<{ RING_STAGES - 1 }>();
        let s = i % RING_STAGES;
        let mut op = Operands::<NT> { w: [[[0; 4]; 2]; 2], x: *xa, mult };
        unroll2!(rt => {
            unroll2!(h => {
                op.w[rt as usize][h as usize] = ld_shared_v4_u32(chunk(base, s, 2 * rt + h, tid));
            });
        });
        compute::<NT, E>(acc, &op);
    }
}

/// The body of the w2 kernels with `NT` token tiles.
///
/// # Safety
/// As `fp8_w1_t8_bf16` (w1's contract), with `layout::fp8::weights::W2_SMEM` bytes of dynamic shared memory.
#[inline(always)]
unsafe fn w2<const NT: usize, E: Wide16>(x: *const u16, w: *const u8, sb: *const f32, y: *mut u16, ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32,
                                         k_split: u32) {
    let tid = thread_idx_x();
    let (warp, lane) = (tid / 32, tid % 32);
    let (g, t) = (lane / 4, lane % 4);
    let n0 = block_idx_x() * ROWS;
    let k_begin = block_idx_y() * k_split;
    let k_end = if k - k_begin < k_split { k } else { k_begin + k_split };
    let ring = shared::dynamic::<shared::Align16>();
    let base = shared::addr_of(ring);
    let k_of = |j: u32| k_begin + STEP_K * (warp + WARPS * j);
    let mut acc = [[[0.0f32; 4]; NT]; 2];
    // SAFETY: copies and reads inside this thread's ring chunks, each read after the wait that completes
    // its stage; activation loads inside X (`load_x`); `finish` after a barrier (the ring is its area).
    unsafe {
        let mut j = 0;
        while j + 1 < RING_STAGES {
            issue(base, j, w, n, k, k_end, n0, k_of(j), g, t, tid);
            j += 1;
        }
        // Two activation buffers taking turns (no copy between them).
        let mut i = 0;
        let mut xa = load_x::<NT>(x, m, k, k_end, k_of(0), g, t);
        while k_of(i) < k_end {
            let xb = load_x::<NT>(x, m, k, k_end, k_of(i + 1), g, t);
            step::<NT, E>(&mut acc, &xa, i, base, w, sb, n, k, k_begin, k_end, n0, warp, g, t, tid);
            i += 1;
            if k_of(i) >= k_end {
                break;
            }
            xa = load_x::<NT>(x, m, k, k_end, k_of(i + 1), g, t);
            step::<NT, E>(&mut acc, &xb, i, base, w, sb, n, k, k_begin, k_end, n0, warp, g, t, tid);
            i += 1;
        }
        cp_async_wait_group_n(0);
        // Every warp done with its ring before the block's sums write over it.
        sync_threads();
        finish::<NT, E>(acc, ring as *mut f32, y, ws, count, m, n, block_idx_x(), block_idx_y(), grid_dim_y());
    }
}

macro_rules! w2_entries {
    ($($name:ident, $nt:literal, $e:ty, $tokens:literal;)*) => {$(
        #[doc = concat!("`Y = X · Wᵀ` for M ≤ ", $tokens, " tokens, the weights through a per-lane `cp.async` ring (see the module).")]
        ///
        /// # Safety
        /// As `fp8_w1_t8_bf16` (the same arguments, grid and workspace), with
        /// `layout::fp8::weights::W2_SMEM` bytes of dynamic shared memory.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(x: *const u16, w: *const u8, sb: *const f32, y: *mut u16, ws: *mut f32, count: *mut u32, m: u32, n: u32,
                                                k: u32, k_split: u32) {
            // SAFETY: forwarded.
            unsafe { w2::<$nt, $e>(x, w, sb, y, ws, count, m, n, k, k_split) }
        }
    )*};
}

w2_entries! {
    fp8_w2_t8_bf16, 1, Bf16, 8;
    fp8_w2_t16_bf16, 2, Bf16, 16;
    fp8_w2_t32_bf16, 4, Bf16, 32;
    fp8_w2_t8_f16, 1, F16, 8;
    fp8_w2_t16_f16, 2, F16, 16;
    fp8_w2_t32_f16, 4, F16, 32;
}
