#![cfg(lab_sm90)]
//! FP8 weight-only decode w2: w1 with each lane's operands copied by `cp.async` into a ring of its own
//! in shared memory, `STAGES` steps ahead, instead of loaded into registers two steps ahead.
//!
//! * **Why.** w1 measured 30–82% of the copy rate (H200, `kernel-lab w8`): a step's loads held 25–57
//!   registers until used, so at 128 registers a thread only two steps were in flight per warp, and
//!   while a warp converted and multiplied one step only the next one was on its way.
//! * **The ring is per lane.** A lane copies exactly the 16-byte chunks it later reads (its two rows'
//!   bytes and its token rows' activations), so `cp.async.wait_group` alone orders the copy before the
//!   read: no barrier, and no warp waits for another. Chunk `c` of stage `s` of thread `tid` sits at
//!   `((s · CHUNKS + c) · 256 + tid) · 16`: a warp's 32 lanes write and read 512 contiguous bytes.
//! * **Stages by token tiles:** 4, 3, 2 for 8, 16, 32 tokens (6, 8, 12 chunks a stage): 96 KiB a
//!   block in every variant, two blocks a SM. The warps' sums reuse the ring after the loop.
//!
//! Prediction: in flight per SM from ~2 × 8 warps × 1.5 steps × 2 KiB (≈ 48 KiB, w1) to 2 × 8 × (S − 1)
//! steps × 2 KiB of weights (96 KiB at 8 tokens): from ~68% of the copy rate at 1×28672×4096 to ≥ 85%.
//! Measured: the FP8 ladder's README.
use crate::fp8::weight_only::{Operands, Wide16, compute, finish, step_multiplier};
use crate::hgemm::elem::{Bf16, F16};
use crate::launch_bounds::launch_bounds;
use crate::util::unroll::{unroll2, unroll4};
use crate::prim::{
    cp_async::{cp_async_cg_16_zfill, cp_async_commit_group, cp_async_wait_group_n},
    shared::{self, ld_shared_v4_u32},
    sync::sync_threads,
    thread::{block_idx_x, block_idx_y, grid_dim_y, thread_idx_x},
};
use layout::fp8::weights::{ROWS, STEP_K, THREADS, WARPS, ring_stages};

launch_bounds!(fp8_w2_t8_bf16, 256, 2);
launch_bounds!(fp8_w2_t16_bf16, 256, 2);
launch_bounds!(fp8_w2_t32_bf16, 256, 2);
launch_bounds!(fp8_w2_t8_f16, 256, 2);
launch_bounds!(fp8_w2_t16_f16, 256, 2);
launch_bounds!(fp8_w2_t32_f16, 256, 2);

/// The shared address of chunk `c` of stage `s` of this thread (`chunks` a stage).
#[inline(always)]
fn chunk(base: u32, s: u32, c: u32, chunks: u32, tid: u32) -> u32 {
    base + ((s * chunks + c) * THREADS + tid) * 16
}

/// Issues the copies of the warp step starting at `k0` into stage `s` and commits them (chunks past
/// `k_end`, rows past `n`, tokens past `m` zero-filled: nothing read; a step at or past `k_end` commits
/// an empty group).
///
/// # Safety
/// As [`w2`]'s contract; `k_end ≤ k`.
#[inline(always)]
unsafe fn issue<const NT: usize>(base: u32, s: u32, x: *const u16, w: *const u8, m: u32, n: u32, k: u32, k_end: u32, n0: u32, k0: u32, g: u32, t: u32, tid: u32) {
    let chunks = 4 + 2 * NT as u32;
    let kc = k0 + 16 * t;
    let ok = kc < k_end;
    unroll2!(rt => {
        unroll2!(h => {
            let row = n0 + 16 * rt + 8 * h + g;
            let live = ok && row < n;
            let src = if live { w.wrapping_add(row as usize * k as usize + kc as usize) } else { w };
            // SAFETY: 16 readable bytes of W where `live` (row < n, kc + 16 ≤ k), none read otherwise;
            // the destination inside this thread's chunk of the ring.
            unsafe { cp_async_cg_16_zfill(chunk(base, s, 2 * rt + h, chunks, tid), src, if live { 16 } else { 0 }) };
        });
    });
    unroll4!(nt => { if (nt as usize) < NT {
        let tok = 8 * nt + g;
        let live = ok && tok < m;
        let src = if live { x.wrapping_add(tok as usize * k as usize + kc as usize) as *const u8 } else { x as *const u8 };
        // SAFETY: 32 readable bytes of X where `live` (tok < m, kc + 16 ≤ k), none otherwise; inside the ring.
        unsafe {
            cp_async_cg_16_zfill(chunk(base, s, 4 + 2 * nt, chunks, tid), src, if live { 16 } else { 0 });
            cp_async_cg_16_zfill(chunk(base, s, 5 + 2 * nt, chunks, tid), src.wrapping_add(16), if live { 16 } else { 0 });
        }
    }});
    cp_async_commit_group();
}

/// The body of the w2 kernels with `NT` token tiles.
///
/// # Safety
/// As `fp8_w1_t8_bf16` (w1's contract), with `smem_bytes_w2` bytes of dynamic shared memory.
#[inline(always)]
unsafe fn w2<const NT: usize, E: Wide16>(x: *const u16, w: *const u8, sb: *const f32, y: *mut u16, ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32,
                                         k_split: u32) {
    let stages = ring_stages(NT as u32);
    let chunks = 4 + 2 * NT as u32;
    let tid = thread_idx_x();
    let (warp, lane) = (tid / 32, tid % 32);
    let (g, t) = (lane / 4, lane % 4);
    let n0 = block_idx_x() * ROWS;
    let k_begin = block_idx_y() * k_split;
    let k_end = if k - k_begin < k_split { k } else { k_begin + k_split };
    let stride = STEP_K * WARPS;
    let ring = shared::dynamic::<shared::Align16>();
    let base = shared::addr_of(ring);
    let mut acc = [[[0.0f32; 4]; NT]; 2];
    // SAFETY: copies and reads inside this thread's chunks of the ring (`issue`), each read after the
    // wait that completes its stage's group; `finish` as its contract (the ring, ≥ its area, reused
    // after its barrier).
    unsafe {
        let step_k0 = |i: u32| k_begin + STEP_K * warp + stride * i;
        let mut i = 0;
        while i + 1 < stages {
            issue::<NT>(base, i, x, w, m, n, k, k_end, n0, step_k0(i), g, t, tid);
            i += 1;
        }
        let mut i = 0;
        while step_k0(i) < k_end {
            issue::<NT>(base, (i + stages - 1) % stages, x, w, m, n, k, k_end, n0, step_k0(i + stages - 1), g, t, tid);
            let k0 = step_k0(i);
            let mult = step_multiplier::<E>(sb, k, n0, k0);
            // Step i's group done: `stages − 1` newer ones may still be in flight.
            cp_async_wait_group_n(stages - 1);
            let s = i % stages;
            let mut op = Operands::<NT> { w: [[[0; 4]; 2]; 2], x: [[0; 8]; NT], mult };
            unroll2!(rt => {
                unroll2!(h => {
                    op.w[rt as usize][h as usize] = ld_shared_v4_u32(chunk(base, s, 2 * rt + h, chunks, tid));
                });
            });
            unroll4!(nt => { if (nt as usize) < NT {
                let (a, b) = (ld_shared_v4_u32(chunk(base, s, 4 + 2 * nt, chunks, tid)), ld_shared_v4_u32(chunk(base, s, 5 + 2 * nt, chunks, tid)));
                op.x[nt as usize] = [a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]];
            }});
            compute::<NT, E>(&mut acc, &op);
            i += 1;
        }
        cp_async_wait_group_n(0);
        // Every warp done with its ring before the reduction writes over it.
        sync_threads();
        finish::<NT, E>(acc, ring as *mut f32, y, ws, count, m, n, block_idx_x(), block_idx_y(), grid_dim_y());
    }
}

macro_rules! w2_entries {
    ($($name:ident, $nt:literal, $e:ty, $tokens:literal;)*) => {$(
        #[doc = concat!("`Y = X · Wᵀ` for M ≤ ", $tokens, " tokens, operands through a per-lane `cp.async` ring (see the module).")]
        ///
        /// # Safety
        /// As `fp8_w1_t8_bf16` (the same arguments, grid and workspace), with
        /// `layout::fp8::weights::smem_bytes_w2(NT)` bytes of dynamic shared memory.
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
