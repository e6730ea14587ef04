//! v10 — a 3-stage `cp.async` pipeline; A kept row-major in shared memory.
//!
//! Change from v9: v6–v9 carry the next tile through registers (16 registers per thread, loaded at the
//! top of a stage and stored after it), which also forces A to be transposed by hand on the way into
//! shared memory. Here every thread issues 16-byte `cp.async.cg` copies global → shared directly (no
//! registers, no transposition), three stages deep, so two tiles are in flight while one is computed.
//! A stays row-major (`s_a[m][k]`): a thread reads 2 consecutive k of each of its 8 rows (`ld.shared.v2`,
//! 4 loads per k but 1 wavefront each: the half-warps read one row each) and runs 2 k steps from
//! registers; the shared wavefronts per k are those of the transposed tile.
//! Constraint: rows of A and B must be 16-byte aligned for `cp.async` (K and N multiples of 4); the host
//! rejects other shapes with a clear error (v9 handles them). Ragged M, N and K edges are zero-filled
//! by the copies (`cp.async ... 16, src_bytes = 0`).
//! Predicted: ~1.05× over v9 (latency hidden by a deeper pipeline; fewer registers and instructions).
use super::elementwise::{fma, store4_if};
use crate::launch_bounds::launch_bounds;
use crate::util::{grouped::{GROUP, grouped_block}, unroll::{unroll2, unroll8}};
use crate::prim::{
    cp_async::{cp_async_cg_16_zfill, cp_async_commit_group, cp_async_wait_group},
    shared,
    sync::sync_threads,
    thread::{block_idx_x, block_idx_y, grid_dim_x, thread_idx_x},
};
use layout::Layout;
use layout::sgemm::{BK_WIDE, BM, BN, STAGES, a_tile_rows, b_tile_wide, stage_words, thread_rc, vec4_row};

/// `C = A · B` (row-major), K and N multiples of 4.
///
/// # Safety
/// 256 threads, `3 · (128·16 + 16·128) · 4` bytes of dynamic shared memory, grid
/// `(ceil(N / 128), ceil(M / 128))`; `a`, `b`, `c` hold `M·K`, `K·N`, `M·N` f32, 16-byte aligned;
/// `K % 4 == 0` and `N % 4 == 0`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_v10(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32) {
    let (la, lb) = (a_tile_rows(), b_tile_wide());
    let stage = stage_words(&la, &lb);
    let base = shared::addr_of(shared::dynamic::<shared::Align16>());
    let sa = |s: u32| base + 4 * s * stage;
    let sb = |s: u32| base + 4 * (s * stage + la.rows * la.stride);
    let tid = thread_idx_x();
    let (ty, tx) = thread_rc(tid);
    let grid_n = grid_dim_x();
    let (bm, bn) = grouped_block(block_idx_y() * grid_n + block_idx_x(), m.div_ceil(BM), grid_n, GROUP);
    let (m0, n0) = (bm * BM, bn * BN);
    let tiles = k.div_ceil(BK_WIDE);
    let mut acc = [[0.0f32; 8]; 8];
    // SAFETY: copies: each thread's 16-byte chunks are inside its stage (A: rows tid/4 and 64 + tid/4,
    // k chunk tid % 4; B: rows tid/32 and 8 + tid/32, column chunk tid % 32), 16-byte aligned; global
    // sources are read only when the whole chunk is inside the matrix (K, N multiples of 4 make chunks
    // all-in or all-out), else zero-filled. Stage reuse: tile t + 2 is copied into the stage tile t - 1
    // used, after the barrier that follows every thread's wait for tile t (so all reads of t - 1 are done).
    unsafe {
        let copy_tile = |t: u32| {
            let (s, k0) = (t % STAGES, t * BK_WIDE);
            for i in 0..2u32 {
                let (r, kc) = (tid / 4 + 64 * i, (tid % 4) * 4);
                let ok = m0 + r < m && k0 + kc < k;
                let src = if ok { a.add((m0 + r) as usize * k as usize + (k0 + kc) as usize) } else { a };
                cp_async_cg_16_zfill(sa(s) + 4 * la.offset(r, kc), src as *const u8, if ok { 16 } else { 0 });
                let (kr, nc) = (tid / 32 + 8 * i, (tid % 32) * 4);
                let ok = k0 + kr < k && n0 + nc < n;
                let src = if ok { b.add((k0 + kr) as usize * n as usize + (n0 + nc) as usize) } else { b };
                cp_async_cg_16_zfill(sb(s) + 4 * lb.offset(kr, nc), src as *const u8, if ok { 16 } else { 0 });
            }
        };
        // Prologue: tiles 0 and 1 in flight (a group is committed even when empty, so the wait count
        // below always refers to the same tile).
        for t in 0..STAGES - 1 {
            if t < tiles {
                copy_tile(t);
            }
            cp_async_commit_group();
        }
        let rows = [vec4_row(ty, 0, 0), vec4_row(ty, 1, 0)];
        let cols = [vec4_row(tx, 0, 0), vec4_row(tx, 1, 0)];
        for t in 0..tiles {
            cp_async_wait_group::<{ STAGES - 2 }>(); // this thread's copies of tile t have landed
            sync_threads(); // everyone's have, and everyone is done reading tile t - 1's stage
            if t + STAGES - 1 < tiles {
                copy_tile(t + STAGES - 1);
            }
            cp_async_commit_group();
            let s = t % STAGES;
            unroll8!(kq => {
                // A: 2 consecutive k of each of the thread's 8 rows (64-bit loads: a float4 per row
                // would hold 32 registers and push the kernel past 128).
                let a2: [[f32; 2]; 8] = core::array::from_fn(|i| {
                    let row = rows[i / 4] + (i % 4) as u32;
                    shared::ld_shared_v2_u32(sa(s) + 4 * la.offset(row, 2 * kq)).map(f32::from_bits)
                });
                unroll2!(kk => {
                    let kr = 2 * kq + kk;
                    let b_lo = shared::ld_shared_v4_f32(sb(s) + 4 * lb.offset(kr, cols[0]));
                    let b_hi = shared::ld_shared_v4_f32(sb(s) + 4 * lb.offset(kr, cols[1]));
                    let bf = [b_lo[0], b_lo[1], b_lo[2], b_lo[3], b_hi[0], b_hi[1], b_hi[2], b_hi[3]];
                    for i in 0..8 {
                        for j in 0..8 {
                            acc[i][j] = fma(a2[i][kk as usize], bf[j], acc[i][j]);
                        }
                    }
                });
            });
        }
        cp_async_wait_group::<0>();
        for h in 0..2 {
            for r in 0..4 {
                let i = (4 * h + r) as usize;
                for h2 in 0..2u32 {
                    let j = 4 * h2 as usize;
                    store4_if(c, m0 + vec4_row(ty, h, r), n0 + vec4_row(tx, h2, 0), m, n, n,
                              [acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]]);
                }
            }
        }
    }
}

// As v7: at most 128 registers, two blocks per SM.
launch_bounds!(sgemm_v10, 256, 2);
