//! v6 — double-buffered shared memory: the next K tile is fetched while the current one is computed.
//!
//! Change from v5: two shared stages. At the top of each step the thread issues the global loads of
//! the *next* tile into registers, computes on the current stage (the loads' latency hides behind 512
//! FMAs), then stores the registers into the other stage; one barrier per step instead of two.
//! Predicted: ~1.2× (v5 stalls on each tile's global loads behind a barrier).
use super::elementwise::{fma, load4_or_zero, store4_if};
use crate::prim::{shared, sync::sync_threads, thread::{block_idx_x, block_idx_y, thread_idx_x}};
use layout::Layout;
use layout::sgemm::{BK, BM, BN, a_tile_t_padded, b_tile, stage_words, thread_rc, vec4_row};

/// `C = A · B` (row-major).
///
/// # Safety
/// Launched with 256 threads, `2 · (8·132 + 8·128) · 4` bytes of dynamic shared memory, grid
/// `(ceil(N / 128), ceil(M / 128))`; `a`, `b`, `c` hold `M·K`, `K·N`, `M·N` f32, 16-byte aligned.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_v6(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32) {
    let (la, lb) = (a_tile_t_padded(), b_tile());
    let stage = stage_words(&la, &lb);
    let base = shared::dynamic::<shared::Align16>() as *mut f32;
    let tid = thread_idx_x();
    let (ty, tx) = thread_rc(tid);
    let (m0, n0) = (block_idx_y() * BM, block_idx_x() * BN);
    let (am, ak) = (tid / 2, (tid % 2) * 4);
    let (bk, bn) = (tid / 32, (tid % 32) * 4);
    let mut acc = [[0.0f32; 8]; 8];
    // Stage s: A at word s·stage, B right after it.
    let s_a = |s: u32| base.wrapping_add((s * stage) as usize);
    let s_b = |s: u32| base.wrapping_add((s * stage + la.rows * la.stride) as usize);
    // SAFETY: as v5; stage `s` is written only while every thread computes on stage `1 - s`, and the
    // barrier at the end of each step separates the last reads of a stage from its next writes.
    unsafe {
        let store_stage = |s: u32, va: [f32; 4], vb: [f32; 4]| {
            for (c, v) in va.iter().enumerate() {
                *s_a(s).add(la.offset(ak + c as u32, am) as usize) = *v;
            }
            shared::st_shared_v4_f32(shared::addr_of(s_b(s)) + 4 * lb.offset(bk, bn), vb);
        };
        store_stage(0, load4_or_zero(a, m0 + am, ak, m, k, k), load4_or_zero(b, bk, n0 + bn, k, n, n));
        sync_threads();
        let mut cur = 0;
        let mut k0 = 0;
        while k0 < k {
            let next = k0 + BK;
            let (va, vb) = if next < k {
                (load4_or_zero(a, m0 + am, next + ak, m, k, k), load4_or_zero(b, next + bk, n0 + bn, k, n, n))
            } else {
                ([0.0; 4], [0.0; 4])
            };
            let (sa, sb) = (shared::addr_of(s_a(cur)), shared::addr_of(s_b(cur)));
            for kk in 0..BK {
                let a_lo = shared::ld_shared_v4_f32(sa + 4 * la.offset(kk, vec4_row(ty, 0, 0)));
                let a_hi = shared::ld_shared_v4_f32(sa + 4 * la.offset(kk, vec4_row(ty, 1, 0)));
                let b_lo = shared::ld_shared_v4_f32(sb + 4 * lb.offset(kk, vec4_row(tx, 0, 0)));
                let b_hi = shared::ld_shared_v4_f32(sb + 4 * lb.offset(kk, vec4_row(tx, 1, 0)));
                let a_frag = [a_lo[0], a_lo[1], a_lo[2], a_lo[3], a_hi[0], a_hi[1], a_hi[2], a_hi[3]];
                let b_frag = [b_lo[0], b_lo[1], b_lo[2], b_lo[3], b_hi[0], b_hi[1], b_hi[2], b_hi[3]];
                for i in 0..8 {
                    for j in 0..8 {
                        acc[i][j] = fma(a_frag[i], b_frag[j], acc[i][j]);
                    }
                }
            }
            if next < k {
                store_stage(1 - cur, va, vb);
            }
            sync_threads();
            cur = 1 - cur;
            k0 = next;
        }
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
