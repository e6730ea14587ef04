#![cfg(lab_sm90)]
//! The Hopper attention body of a6–a10 and a12 (introduced by a6, whose file explains it), generic over the
//! element type, the head dimension, whether the next tile's S = Q·Kᵀ is issued before this tile's
//! softmax (`PIPELINE`, a7), whether the consumer warpgroups take turns (`PINGPONG`, a8), whether
//! the softmax rescales lazily (`LAZY`, a9), whether the query tiles run in reverse order
//! (`HEAVY_FIRST`, a10) and whether one CTA per SM walks many query tiles (`PERSISTENT`, a12). Also the
//! entries' macro, [`hopper_entry!`] (introduced by a6; used by a6–a10, a12, a15, a19, a26), and the named
//! choices a step hands it, [`HopperPolicy`] (one per step file).
use crate::attention::flash::{quad_max, quad_sum};
use crate::attention::units::UnitWalk;
use crate::hgemm::elem::Elem16;
use crate::util::opaque;
use crate::hgemm::tma_warp_specialized::{CONSUMER_WARPS, warp_specialized};
use crate::prim::{
    math::{ex2_approx_f32, fma_rn_f32, lg2_approx_f32},
    mbarrier::{mbarrier_arrive, mbarrier_arrive_expect_tx, mbarrier_init, mbarrier_wait_parity},
    sync::{arrive_named, nanosleep, sync_named},
    cluster::cluster_ctarank,
    global::ld_global_nc_s32,
    thread::{block_idx_x, block_idx_y, block_idx_z, grid_dim_x, lane_id},
    warp::vote_any,
    tma::{TensorMap, cp_async_bulk_tensor_2d_g2s, cp_async_bulk_tensor_2d_g2s_multicast, cp_async_bulk_tensor_3d_g2s},
    wgmma::{wgmma_commit_group, wgmma_fence, wgmma_fence_operand, wgmma_wait_group},
};
use crate::util::unroll::{unroll2, unroll4, unroll8};
use layout::attention::{A6_BKV as BKV, A6_BOX_BYTES as BOX, A6_BQ as BQ, PrefillDims, a12_paired_of, a12_pairs_of, a6_q_bytes, a6_stage_bytes, kv_tiles_of,
                        kv_tiles_off, needs_mask_off};
use layout::hopper::WgmmaDesc;

/// Q (A) and K (B) tiles: K-major, 128-byte swizzled rows, 8-row groups 1024 bytes apart.
const K_MAJOR: WgmmaDesc = WgmmaDesc::K_MAJOR_SW128;
/// V (B of P·V): MN-major, boxes of 128 keys × 64 head dims (LBO: the next 64 head dims' box).
const V_MN_MAJOR: WgmmaDesc = match WgmmaDesc::mn_major_sw128(0, BKV) {
    Ok(d) => d,
    Err(_) => panic!("MN-major descriptor"),
};

/// S accumulators of one consumer warpgroup: 64 rows × 128 keys as two 64-column blocks.
type Scores = [[f32; 32]; 2];

/// [`wgmma_fence_operand`] on both blocks of a 128-column accumulator (constant indices: the blocks
/// stay in registers; an iterator over them put the arrays in local memory).
#[inline(always)]
pub(super) fn pin(acc: &mut [[f32; 32]; 2]) {
    let [a, b] = acc;
    wgmma_fence_operand(a);
    wgmma_fence_operand(b);
}

/// Values fixed in registers at this point of the program (an empty `asm!` that reads and writes
/// them): a `wgmma`'s descriptors and `scale-d` flags computed *before* its `wgmma.fence`. Computed
/// between the `wgmma`s of a group while another group is in flight (a7), the address arithmetic made
/// ptxas serialize every `wgmma` (C7513: "non wgmma instructions defining input registers").
#[inline(always)]
fn pin_inputs(d: &mut [u64; 8], flags: &mut [u32; 2]) {
    // SAFETY: emits no instruction; only declares the registers read and written.
    unsafe {
        core::arch::asm!("// pin_inputs {0} {1} {2} {3} {4} {5} {6} {7} {8} {9}", inout(reg64) d[0], inout(reg64) d[1], inout(reg64) d[2], inout(reg64) d[3],
                         inout(reg64) d[4], inout(reg64) d[5], inout(reg64) d[6], inout(reg64) d[7], inout(reg32) flags[0], inout(reg32) flags[1],
                         options(nomem, nostack))
    }
}

/// The descriptors of S = Q·Kᵀ for the K tile at `s_stage` (`[ks]`: Q's and K's, 16 head dims per
/// step; steps past SD/16 unused — `SD` the head dims S sums over: the kernel's width, or a29's 96) and
/// of O += P·V for the V tile at `s_v` (`[kk]`: 16 keys per step), pinned in registers with the
/// `scale-d` flags `[0, 1]`.
#[inline(always)]
fn descriptors<const SD: u32>(d_q: WgmmaDesc, s_stage: u32, s_v: u32) -> ([u64; 8], [u64; 8], [u64; 8], [u32; 2]) {
    let at = |ks: u32| (ks / 4) * BOX + 32 * (ks % 4); // the 64-wide box along D, bytes inside its rows
    let mut dq: [u64; 8] = core::array::from_fn(|ks| d_q.advance(at(ks as u32 % (SD / 16))).0);
    let mut dk: [u64; 8] = core::array::from_fn(|ks| K_MAJOR.advance(s_stage + at(ks as u32 % (SD / 16))).0);
    let mut dv: [u64; 8] = core::array::from_fn(|kk| V_MN_MAJOR.advance(s_v).advance(2048 * kk as u32).0);
    let mut flags = [0u32, 1];
    pin_inputs(&mut dq, &mut flags);
    pin_inputs(&mut dk, &mut flags);
    pin_inputs(&mut dv, &mut flags);
    (dq, dk, dv, flags)
}

/// Issues (and commits, without waiting) S = Q·Kᵀ with the descriptors of [`descriptors`]: one
/// `wgmma.m64n128k16` per 16 of the `SD` head dims S sums over, both operands K-major. The result is
/// valid after the next `wgmma_wait_group` that retires this group.
///
/// # Safety
/// All 128 threads of a consumer warpgroup; Q and the K tile the descriptors name have landed; nobody
/// writes them until the group retires; the returned accumulators are not read before then.
#[inline(always)]
unsafe fn issue_scores<E: Elem16, const SD: u32>(dq: &[u64; 8], dk: &[u64; 8], flags: [u32; 2]) -> Scores {
    // SAFETY: forwarded to the caller.
    unsafe {
        wgmma_fence();
        // The first K-step writes S without reading it: no zeroed accumulators beforehand (they were
        // 32 register-pair zeroings, `CS2R`, per tile and thread: 6% of a7's instructions).
        let mut s = E::wgmma_128_zero::<0, 0>(dq[0], dk[0]);
        unroll8!(ks => {
            if ks > 0 && ks < SD / 16 {
                E::wgmma_128::<0, 0>(&mut s, dq[ks as usize], dk[ks as usize], flags[1]);
            }
        });
        wgmma_commit_group();
        s
    }
}

/// S accumulators with no defined value (an empty `asm!` that only declares them written): the value
/// of S past the last tile, never read. Zeros there cost 32 register-pair zeroings per tile: the
/// compiler set them up ahead of the branch that skips the last S.
#[inline(always)]
fn unset_scores() -> Scores {
    [unset_block(), unset_block()]
}

/// One 64-column block of [`unset_scores`].
#[inline(always)]
pub(super) fn unset_block() -> [f32; 32] {
    let mut a = [0f32; 32];
    // SAFETY: emits no instruction (a PTX comment); declares the registers written. `pure` although
    // this file holds collective asm: this one is no instruction at all, so moving it is harmless
    // (without `pure` the a7–a9 PTX changes order, and that build was not run on a GPU).
    unsafe {
        core::arch::asm!("// unset {0} {1} {2} {3} {4} {5} {6} {7} {8} {9} {10} {11} {12} {13} {14} {15} {16} {17} {18} {19} {20} {21} {22} {23} {24} {25} {26} {27} {28} {29} {30} {31}",
                         out(reg32) a[0], out(reg32) a[1], out(reg32) a[2], out(reg32) a[3], out(reg32) a[4], out(reg32) a[5], out(reg32) a[6], out(reg32) a[7],
                         out(reg32) a[8], out(reg32) a[9], out(reg32) a[10], out(reg32) a[11], out(reg32) a[12], out(reg32) a[13], out(reg32) a[14], out(reg32) a[15],
                         out(reg32) a[16], out(reg32) a[17], out(reg32) a[18], out(reg32) a[19], out(reg32) a[20], out(reg32) a[21], out(reg32) a[22], out(reg32) a[23],
                         out(reg32) a[24], out(reg32) a[25], out(reg32) a[26], out(reg32) a[27], out(reg32) a[28], out(reg32) a[29], out(reg32) a[30], out(reg32) a[31],
                         options(pure, nomem, nostack));
    }
    a
}

/// The online softmax of one consumer thread: its two query rows, the mask, the scale (a24's 64-key
/// methods are in `hopper_wide.rs`).
#[derive(Clone, Copy)]
pub(super) struct Softmax {
    /// Keys (past them every score is masked).
    pub(super) l: u32,
    /// Causal mask.
    pub(super) causal: bool,
    /// a19: the causal mask aligned bottom-right, row `r` seeing keys `0..=r + off` (0: the queries are the keys).
    pub(super) off: u32,
    /// Query tile (for the causal mask's diagonal tiles).
    pub(super) qt: u32,
    /// `scale · log2 e`: scores in base 2.
    pub(super) scale2: f32,
    /// This thread's query rows (rows g and g + 8 of its warp's 16).
    pub(super) row: [u32; 2],
    /// `lane % 4`.
    pub(super) t: u32,
}

impl Softmax {
    /// Tile `j`'s scores `s` masked, then replaced by P = 2^(s·scale2 − m) (f32, in place); the running
    /// max `r_m` (base 2, scaled) and per-thread sum `r_l` updated. Returns the factor `corr` the
    /// rows' O must be multiplied by. [`pack_p`] turns `s` into P·V's A fragments.
    ///
    /// # Safety
    /// All 32 lanes of the warp, converged (quad shuffles).
    #[inline(always)]
    unsafe fn tile(self, s: &mut Scores, j: u32, r_m: &mut [f32; 2], r_l: &mut [f32; 2]) -> [f32; 2] {
        let c = self.prepare(s, j);
        let mx = thread_max(s);
        // SAFETY: forwarded (converged warp).
        let m_new = unsafe { [r_m[0].max(quad_max(mx[0]) * c), r_m[1].max(quad_max(mx[1]) * c)] };
        let corr = [ex2_approx_f32(r_m[0] - m_new[0]), ex2_approx_f32(r_m[1] - m_new[1])];
        *r_m = m_new;
        // Row sums as 2 chains per row half (`e % 2`).
        let mut sum = [[0f32; 2]; 2];
        unroll2!(b => {
            unroll8!(jj => {
                unroll4!(e => {
                    let x = &mut s[b as usize][(4 * jj + e) as usize];
                    *x = ex2_approx_f32(fma_rn_f32(*x, c, -m_new[(e / 2) as usize]));
                    sum[(e / 2) as usize][(e % 2) as usize] += *x;
                });
            });
        });
        *r_l = [r_l[0] * corr[0] + (sum[0][0] + sum[0][1]), r_l[1] * corr[1] + (sum[1][0] + sum[1][1])];
        corr
    }

    /// Tile `j`'s scores masked (keys past `l`, the causal mask: on the tiles that need it) in place,
    /// and the factor `c` of the exponent 2^(x·c − m). The row max is taken on the raw scores and scaled
    /// once (max(x)·c = max(x·c) for c > 0), and the scale folds into the exponent's FFMA. A scale ≤ 0
    /// (never used in practice, but a valid input) pre-scales the scores and returns c = 1.
    #[inline(always)]
    fn prepare(self, s: &mut Scores, j: u32) -> f32 {
        let t = self.t;
        let kv0 = j * BKV;
        let masked_tile = kv0 + BKV > self.l || (self.causal && needs_mask_off(BQ, BKV, self.qt, j, self.off));
        let c = if self.scale2 > 0.0 {
            self.scale2
        } else {
            unroll2!(b => {
                unroll8!(jj => {
                    unroll4!(e => {
                        s[b as usize][(4 * jj + e) as usize] *= self.scale2;
                    });
                });
            });
            1.0
        };
        // The mask in a pass of its own, only on the tiles that need it: inside the max loop it cost a
        // branch per score pair on every tile (`ncu`: 64 branches per tile and warp, their
        // `no_inst`/`branch_resolving` stalls beside each FMNMX).
        if masked_tile {
            unroll2!(b => {
                unroll8!(jj => {
                    unroll4!(e => {
                        let col = kv0 + 64 * b + 8 * jj + 2 * t + e % 2;
                        if col >= self.l || (self.causal && col > self.row[(e / 2) as usize] + self.off) {
                            s[b as usize][(4 * jj + e) as usize] = f32::NEG_INFINITY;
                        }
                    });
                });
            });
        }
        c
    }

    /// a9: tile `j`'s softmax against the running max `r_m` as it stands (FlashAttention-4's lazy
    /// rescaling). P = 2^(x·c − r_m) is exponentiated and packed into `p` while the row max is taken
    /// — neither waits for the other. Only where a row's max exceeds `r_m` by more than
    /// [`LAZY_RESCALE_LOG2`] (P up to 2^8: inside f16's range) does the warp take a new max for those
    /// rows and exponentiate again from the raw scores, which `s` still holds; that happens on the
    /// first tiles and rarely after. Returns the rows' correction of O when the max moved, `None` when
    /// O needs none (the common case: no rescaling of O either).
    ///
    /// # Safety
    /// All 32 lanes of the warp, converged (quad shuffles, the vote).
    #[inline(always)]
    unsafe fn tile_lazy<E: Elem16>(self, s: &mut Scores, j: u32, r_m: &mut [f32; 2], r_l: &mut [f32; 2], p: &mut [[u32; 4]; 8]) -> Option<[f32; 2]> {
        let c = self.prepare(s, j);
        let mx = thread_max(s);
        let mut sum = exp_pack::<E>(s, c, *r_m, p);
        // Keeps the exponentials ahead of the branch below: without it LLVM sinks them into the
        // branch that uses them, after the max.
        pin_p(p, &mut sum);
        // SAFETY: forwarded (converged warp).
        let row_max = unsafe { [quad_max(mx[0]) * c, quad_max(mx[1]) * c] };
        let jump = [row_max[0] > r_m[0] + LAZY_RESCALE_LOG2, row_max[1] > r_m[1] + LAZY_RESCALE_LOG2];
        // SAFETY: forwarded (converged warp).
        if unsafe { vote_any(jump[0] || jump[1]) } {
            let m_new = [if jump[0] { row_max[0] } else { r_m[0] }, if jump[1] { row_max[1] } else { r_m[1] }];
            let corr = [ex2_approx_f32(r_m[0] - m_new[0]), ex2_approx_f32(r_m[1] - m_new[1])];
            let sum = exp_pack::<E>(s, c, m_new, p);
            *r_m = m_new;
            *r_l = [r_l[0] * corr[0] + sum[0], r_l[1] * corr[1] + sum[1]];
            Some(corr)
        } else {
            *r_l = [r_l[0] + sum[0], r_l[1] + sum[1]];
            None
        }
    }
}

/// How far (base 2) a row's max may exceed a9's running max before the max is moved: P ≤ 2^8 = 256,
/// well inside f16's range (and bf16's).
pub(super) const LAZY_RESCALE_LOG2: f32 = 8.0;

/// This thread's maxima of its two rows of `s` (raw scores), not yet across the quad: 4 independent
/// chains per row half (8 deep, then 2 combining steps) instead of one chain 32 deep.
#[inline(always)]
fn thread_max(s: &Scores) -> [f32; 2] {
    let mut mx = [[-1e30f32; 4]; 2];
    unroll2!(b => {
        unroll8!(jj => {
            unroll4!(e => {
                let (h, c) = ((e / 2) as usize, (2 * (jj % 2) + e % 2) as usize);
                mx[h][c] = mx[h][c].max(s[b as usize][(4 * jj + e) as usize]);
            });
        });
    });
    [mx[0][0].max(mx[0][1]).max(mx[0][2].max(mx[0][3])), mx[1][0].max(mx[1][1]).max(mx[1][2].max(mx[1][3]))]
}

/// P = 2^(x·c − m[row]) of the scores `s` (left as they are), packed into `p` as [`pack_p`] does;
/// returns the rows' sums of P (f32, before rounding).
#[inline(always)]
fn exp_pack<E: Elem16>(s: &Scores, c: f32, m: [f32; 2], p: &mut [[u32; 4]; 8]) -> [f32; 2] {
    let mut sum = [[0f32; 2]; 2];
    unroll2!(b => {
        unroll8!(jj => {
            let x = &s[b as usize];
            let i = (4 * jj) as usize;
            let e = [ex2_approx_f32(fma_rn_f32(x[i], c, -m[0])), ex2_approx_f32(fma_rn_f32(x[i + 1], c, -m[0])),
                     ex2_approx_f32(fma_rn_f32(x[i + 2], c, -m[1])), ex2_approx_f32(fma_rn_f32(x[i + 3], c, -m[1]))];
            sum[0][0] += e[0];
            sum[0][1] += e[1];
            sum[1][0] += e[2];
            sum[1][1] += e[3];
            put_p::<E>(p, b, jj, e);
        });
    });
    [sum[0][0] + sum[0][1], sum[1][0] + sum[1][1]]
}

/// Stores P of fragment column `jj` of 64-key block `b` (`e`: rows g, g, g + 8, g + 8 at keys
/// 8jj + 2t, + 1) into the A fragments of P·V: k-step kk holds n-tiles 2kk and 2kk + 1 (8 keys each).
#[inline(always)]
fn put_p<E: Elem16>(p: &mut [[u32; 4]; 8], b: u32, jj: u32, e: [f32; 4]) {
    let nt = 8 * b + jj; // n-tile of 8 keys
    p[(nt / 2) as usize][(2 * (nt % 2)) as usize] = E::pack(e[0], e[1]);
    p[(nt / 2) as usize][(2 * (nt % 2) + 1) as usize] = E::pack(e[2], e[3]);
}

/// P's registers and the sums fixed at this point of the program (an empty `asm!` that reads and
/// writes them, not `pure`).
#[inline(always)]
fn pin_p(p: &mut [[u32; 4]; 8], sum: &mut [f32; 2]) {
    // SAFETY: emits no instruction; only declares the registers read and written.
    unsafe {
        core::arch::asm!("// pin_p {0} {1} {2} {3} {4} {5} {6} {7} {8} {9} {10} {11} {12} {13} {14} {15}",
                         inout(reg32) p[0][0], inout(reg32) p[0][1], inout(reg32) p[0][2], inout(reg32) p[0][3], inout(reg32) p[1][0], inout(reg32) p[1][1],
                         inout(reg32) p[1][2], inout(reg32) p[1][3], inout(reg32) p[2][0], inout(reg32) p[2][1], inout(reg32) p[2][2], inout(reg32) p[2][3],
                         inout(reg32) p[3][0], inout(reg32) p[3][1], inout(reg32) p[3][2], inout(reg32) p[3][3], options(nomem, nostack));
        core::arch::asm!("// pin_p {0} {1} {2} {3} {4} {5} {6} {7} {8} {9} {10} {11} {12} {13} {14} {15} {16} {17}",
                         inout(reg32) p[4][0], inout(reg32) p[4][1], inout(reg32) p[4][2], inout(reg32) p[4][3], inout(reg32) p[5][0], inout(reg32) p[5][1],
                         inout(reg32) p[5][2], inout(reg32) p[5][3], inout(reg32) p[6][0], inout(reg32) p[6][1], inout(reg32) p[6][2], inout(reg32) p[6][3],
                         inout(reg32) p[7][0], inout(reg32) p[7][1], inout(reg32) p[7][2], inout(reg32) p[7][3], inout(reg32) sum[0], inout(reg32) sum[1],
                         options(nomem, nostack));
    }
}

/// A basic-block boundary that neither LLVM nor ptxas removes: a branch, on a value neither can see
/// (`opaque(l) == 0`: never true, `l ≥ 1`), around a `nanosleep`. ptxas schedules a
/// `wgmma.wait_group` at the top of the basic block it is in (SASS of a7: `WARPGROUP.DEPBAR.LE gsb0,
/// 0x0` ahead of the whole exponential pass, wherever the PTX had it); placed right before the wait
/// for P·V, this keeps that wait after the softmax, so P·V of one tile runs under the softmax of the
/// next.
#[inline(always)]
pub(super) fn block_boundary(l: u32) {
    if opaque(l) == 0 {
        nanosleep(0);
    }
}

/// P (f32, from [`Softmax::tile`]) packed to `E` as the A fragments of P·V: k-step kk holds n-tiles
/// 2kk and 2kk + 1 (8 keys each). Kept apart from the softmax so that a7 can write these registers only
/// after the previous P·V — which reads the previous fragments — retired.
#[inline(always)]
fn pack_p<E: Elem16>(s: &Scores) -> [[u32; 4]; 8] {
    let mut p = [[0u32; 4]; 8];
    unroll2!(b => {
        unroll8!(jj => {
            let x = &s[b as usize];
            let i = (4 * jj) as usize;
            put_p::<E>(&mut p, b, jj, [x[i], x[i + 1], x[i + 2], x[i + 3]]);
        });
    });
    p
}

/// O's rows times `corr` (row half 0, 1).
#[inline(always)]
fn rescale<const D: u32>(r_o: &mut [[f32; 32]; 2], corr: [f32; 2]) {
    unroll2!(b => {
        if b < D / 64 {
            unroll8!(jj => {
                let o = &mut r_o[b as usize];
                let i = (4 * jj) as usize;
                o[i] *= corr[0];
                o[i + 1] *= corr[0];
                o[i + 2] *= corr[1];
                o[i + 3] *= corr[1];
            });
        }
    });
}

/// Issues (and commits, without waiting) O += P·V with V's descriptors from [`descriptors`]: 8 k-steps
/// of 16 keys, A = P from registers, B = V MN-major, behind its own `wgmma.fence` (a7: right after
/// [`issue_scores`]'s; a conditional fence there made ptxas inject one, C7519).
///
/// # Safety
/// All 128 threads of a consumer warpgroup; the V tile has landed and nobody writes it, nor `r_o` or
/// `p`, until the group retires.
#[inline(always)]
unsafe fn issue_pv<E: Elem16, const D: u32>(r_o: &mut [[f32; 32]; 2], p: &[[u32; 4]; 8], dv: &[u64; 8], flags: [u32; 2]) {
    pin(r_o);
    // SAFETY: forwarded.
    unsafe {
        wgmma_fence();
        unroll8!(kk => {
            if D == 64 {
                E::wgmma_64_rs::<1>(&mut r_o[0], p[kk as usize], dv[kk as usize], flags[1]);
            } else {
                E::wgmma_128_rs::<1>(r_o, p[kk as usize], dv[kk as usize], flags[1]);
            }
        });
        wgmma_commit_group();
    }
}

/// The epilogue of one query tile: the rows' full sums (across the quad), O / sum stored for this
/// thread's rows `row` (`< l` only) of head `head`, and (lane `t = 0`) their natural log-sum-exp.
///
/// # Safety
/// All 32 lanes of the warp, converged (quad shuffles); `g_o` and `g_lse` hold the heads' `l·D` and `l`
/// elements for head `head`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn store_o<E: Elem16, const D: u32>(g_o: *mut u16, g_lse: *mut f32, head: u32, l: u32, row: [u32; 2], t: u32, r_o: &[[f32; 32]; 2], r_m: [f32; 2], r_l: [f32; 2]) {
    // SAFETY: forwarded (converged warp; stores only for rows < l, columns < D of the head's matrix).
    unsafe {
        let sum = [quad_sum(r_l[0]), quad_sum(r_l[1])];
        let inv = [1.0 / sum[0], 1.0 / sum[1]];
        let head_off = head as usize * l as usize;
        let go = g_o.add(head_off * D as usize);
        unroll2!(b => {
            if b < D / 64 {
                unroll8!(jj => {
                    let o = &r_o[b as usize];
                    let i = (4 * jj) as usize;
                    let col = 64 * b + 8 * jj + 2 * t;
                    if row[0] < l {
                        *(go.add((row[0] * D + col) as usize) as *mut u32) = E::pack(o[i] * inv[0], o[i + 1] * inv[0]);
                    }
                    if row[1] < l {
                        *(go.add((row[1] * D + col) as usize) as *mut u32) = E::pack(o[i + 2] * inv[1], o[i + 3] * inv[1]);
                    }
                });
            }
        });
        if t == 0 {
            let lse = g_lse.add(head_off);
            for h in 0..2 {
                if row[h] < l {
                    *lse.add(row[h] as usize) = (r_m[h] + lg2_approx_f32(sum[h])) * core::f32::consts::LN_2;
                }
            }
        }
    }
}

/// a19's epilogue: as [`store_o`], into the token-major O (`[tokens][heads][head_dim]`, only the
/// columns `< head_dim`: a D = 96 head is computed as 128 with zero columns) and LSE (`[tokens][heads]`)
/// of sequence `b` (a19: block z's; a26: its unit's), rows `< q_len` only.
///
/// # Safety
/// All 32 lanes of the warp, converged; `seq.cu_q` the offsets the entry read, `b < batch`; `g_o`
/// and `g_lse` hold the packed tensors of every token of that sequence (`seq.heads` heads of
/// `seq.head_dim ≤ D`, `head < seq.heads`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn store_o_varlen<E: Elem16, const D: u32>(g_o: *mut u16, g_lse: *mut f32, seq: Seq, b: u32, head: u32, row: [u32; 2], t: u32, r_o: &[[f32; 32]; 2],
                                                  r_m: [f32; 2], r_l: [f32; 2]) {
    // SAFETY: forwarded (converged warp; stores only for rows < q_len, columns < head_dim of head `head`).
    unsafe {
        // The sequence's first query and its length, loaded again here rather than kept in registers
        // through the key loop (a19: the index hidden, so the load is not merged with the entry's): at
        // D = 128 holding them spilled 4 bytes.
        let b = b as usize;
        let (q_start, q_end) = (ld_global_nc_s32(seq.cu_q.add(b)), ld_global_nc_s32(seq.cu_q.add(b + 1)));
        let q_len = (q_end - q_start).max(0) as u32;
        let sum = [quad_sum(r_l[0]), quad_sum(r_l[1])];
        let inv = [1.0 / sum[0], 1.0 / sum[1]];
        unroll2!(h => {
            let h = h as usize;
            if row[h] < q_len {
                let token = (q_start as u32 + row[h]) as usize * seq.heads as usize + head as usize;
                let go = g_o.add(token * seq.head_dim as usize);
                unroll2!(b => {
                    if b < D / 64 {
                        unroll8!(jj => {
                            let o = &r_o[b as usize];
                            let i = (4 * jj) as usize + 2 * h;
                            let col = 64 * b + 8 * jj + 2 * t;
                            if col < seq.head_dim {
                                *(go.add(col as usize) as *mut u32) = E::pack(o[i] * inv[h], o[i + 1] * inv[h]);
                            }
                        });
                    }
                });
                if t == 0 {
                    *g_lse.add(token) = (r_m[h] + lg2_approx_f32(sum[h])) * core::f32::consts::LN_2;
                }
            }
        });
    }
}

/// a19's one query tile of one sequence of a packed batch: where its rows and keys lie and how the
/// heads map (from [`prefill`]; unused by the other steps, which pass [`Seq::NONE`]).
#[derive(Clone, Copy)]
pub(super) struct Seq {
    /// The tile, its head and its key tiles.
    work: Work,
    /// The sequence's first query token in Q (and O) and first key token in K and V.
    q_start: u32,
    k_start: u32,
    /// The query offsets (`cu_q`; the epilogue reads its sequence's again).
    cu_q: *const i32,
    /// The K/V head of `work.head` (`head / group`).
    kv_head: u32,
    /// Query heads (O's and the LSE's row length).
    heads: u32,
    /// O's head dim (`≤ D`).
    head_dim: u32,
    /// Bottom-right causal offset `k_len − q_len` (0 without the mask).
    off: u32,
    /// a26: the key offsets, the dimensions and the host's unit list (`3 · units` entries:
    /// `units::UnitWalk`); null and 0 elsewhere.
    cu_k: *const i32,
    dims: PrefillDims,
    tiles: *const u32,
    units: u32,
}

impl Seq {
    /// No sequence: the value the fixed-length steps pass (never read).
    pub(super) const NONE: Seq = Seq { work: Work { head: 0, qt: 0, n_tiles: 0 }, q_start: 0, k_start: 0, cu_q: core::ptr::null(), kv_head: 0, heads: 0, head_dim: 0, off: 0,
                                       cu_k: core::ptr::null(), dims: PrefillDims { heads: 0, group: 0, head_dim: 0, causal: 0, scale: 0.0 }, tiles: core::ptr::null(), units: 0 };
}

/// One query tile of one head: what a CTA computes between two epilogues (a15: what a cluster
/// computes, one 128-row tile per CTA).
#[derive(Clone, Copy)]
struct Work {
    /// The head (`batch · H + h`).
    head: u32,
    /// The walk's query tile (rows `128·cluster·qt ..`; CTA rank r of a15's cluster computes the
    /// 128-row tile `2·qt + r`).
    qt: u32,
    /// Key/value tiles it walks (`kv_tiles_of`: all of them, or up to the diagonal with the causal mask
    /// — a15: of the cluster's last rows, so the longer of its two tiles).
    n_tiles: u32,
}

/// The query tiles one CTA computes, in order — the same walk for its producer and its consumers.
///
/// * One CTA per query tile (a6–a10, `persistent = false`): the block's own tile, once — tile
///   `block x` of head `block y`, or (a10, `heavy_first`) tile `⌈l/128⌉ − 1 − x`.
/// * Persistent (a12): `grid x` CTAs share the query tiles of `heads` heads. With more tiles than
///   CTAs ([`a12_paired`]) the units of work are pairs: head `u / ⌈qtiles/2⌉`'s tiles
///   `qtiles − 1 − p`, then `p` (`p = u % ⌈qtiles/2⌉`; the middle tile of an odd count alone). With
///   the causal mask tile `qt` walks `qt + 1` key tiles, so every pair walks `qtiles + 1`: a static
///   round-robin over pairs is balanced, where one over single tiles would hand some CTAs mostly long
///   tiles (132 CTAs over 32 tiles per head: CTA `b` would see only the tiles `≡ b mod 4`).
///   Otherwise (the host launched one CTA per tile, [`a12_grid`]) a unit is one tile. CTA `b` takes
///   units `b, b + grid x, b + 2·grid x, …`; consecutive units are one head's, so the CTAs running at
///   one time read the K/V of a few heads (L2 reuse, as the one-CTA-per-tile grid's order gives).
/// * Clusters (a15, `cluster` = 2): the same walk with a cluster in place of a CTA (cluster `b =
///   block x / 2` of `grid x / 2`) and tiles of `128 · cluster` query rows: both CTAs of a cluster
///   walk the same key tiles, each computing its own 128 rows (`layout::attention::a12_grid_of`).
///
/// ```text
/// qtiles = 5, heads = 2, grid x = 4 (< 10 tiles: paired) → 3 units per head, 6 in all
/// unit:      0        1        2      3        4        5
/// tiles:   h0:4,0   h0:3,1   h0:2   h1:4,0   h1:3,1   h1:2
/// CTA 0 → units 0, 4;  CTA 1 → 1, 5;  CTA 2 → 2;  CTA 3 → 3
/// ```
#[derive(Clone, Copy)]
struct Walk<const CLUSTER: u32> {
    /// Next position: the block's tile (0) or, persistent, 2 · (unit round) + (second tile of a pair).
    slot: u32,
    /// Query tiles per head, `⌈l/(128·CLUSTER)⌉`.
    qtiles: u32,
    /// Units per head: pairs (`⌈qtiles/2⌉`) or tiles (`qtiles`).
    per_head: u32,
    /// Units in all: `heads · per_head` (persistent only).
    units: u32,
    /// Whether a unit is a pair of tiles (persistent only).
    paired: bool,
    /// Sequence length.
    l: u32,
    /// Causal mask.
    causal: bool,
    /// Persistent walk (above) or the block's own tile.
    persistent: bool,
    /// a10: the block's tile counted from the last (one CTA per tile only).
    heavy_first: bool,
    /// a19: the one tile this CTA computes, given ([`Walk::one`]).
    given: Option<Work>,
}

/// `CLUSTER`: CTAs per cluster (a15: 2; 1 otherwise), one walk per cluster over tiles of `128 ·
/// CLUSTER` query rows.
impl<const CLUSTER: u32> Walk<CLUSTER> {
    /// Query rows per tile of the walk.
    const ROWS: u32 = BQ * CLUSTER;

    /// The walk of this CTA (a15: of its cluster of `CLUSTER` CTAs) for `heads` heads of length `l`
    /// (`heads` is read only when persistent).
    #[inline(always)]
    fn new(l: u32, causal: bool, heads: u32, persistent: bool, heavy_first: bool) -> Walk<CLUSTER> {
        let qtiles = l.div_ceil(Self::ROWS);
        let paired = a12_paired_of(l, heads, grid_dim_x() / CLUSTER, Self::ROWS);
        // `max(1)`: l ≥ 1 is the caller's, and a divisor the compiler cannot see nonzero would
        // bring in core's division panic (no `trap` in these kernels).
        let per_head = if paired { a12_pairs_of(l, Self::ROWS) } else { qtiles }.max(1);
        Walk { slot: 0, qtiles, per_head, units: heads * per_head, paired, l, causal, persistent, heavy_first, given: None }
    }

    /// a19: a walk of the one tile `work`.
    #[inline(always)]
    fn one(work: Work) -> Walk<CLUSTER> {
        Walk { slot: 0, qtiles: 1, per_head: 1, units: 1, paired: false, l: 0, causal: false, persistent: false, heavy_first: false, given: Some(work) }
    }

    /// The next query tile, `None` when the CTA is done.
    #[inline(always)]
    fn next(&mut self) -> Option<Work> {
        let work = |head: u32, qt: u32| Work { head, qt, n_tiles: kv_tiles_of(self.l, Self::ROWS, BKV, qt, self.causal) };
        if !self.persistent {
            if self.slot > 0 {
                return None;
            }
            self.slot = 1;
            if let Some(w) = self.given {
                return Some(w);
            }
            let qt = if self.heavy_first { grid_dim_x() - 1 - block_idx_x() } else { block_idx_x() };
            return Some(work(block_idx_y(), qt));
        }
        loop {
            let unit = block_idx_x() / CLUSTER + (self.slot / 2) * (grid_dim_x() / CLUSTER);
            if unit >= self.units {
                return None;
            }
            let second = self.slot % 2 == 1;
            self.slot += 1;
            let (head, p) = (unit / self.per_head, unit % self.per_head);
            let heavy = self.qtiles - 1 - p;
            if !second {
                return Some(work(head, heavy));
            }
            if self.paired && p != heavy {
                return Some(work(head, p));
            }
        }
    }
}

/// A Hopper step's choices for [`attention`], by name: each step file declares one (`A6` … `A15`) and
/// hands it to [`hopper_entry!`], which passes each field to the body's const parameter of that name
/// (`pipeline` → `PIPELINE`, …). (Field by field rather than as one const parameter: that keeps every
/// instance of the body, its symbol and so the PTX exactly as before — see `sgemm::wide_k_loop::Epi` for
/// how a changed const argument moves the PTX — and the body's `Walk::<CLUSTER>` and
/// `Ring::release_cluster::<CLUSTER>` need the cluster size as a const parameter of its own.)
#[derive(Clone, Copy)]
pub(crate) struct HopperPolicy {
    /// a7: the next key tile's S = Q·Kᵀ issued before this tile's softmax (a6: one tile at a time).
    pub(crate) pipeline: bool,
    /// K/V stages in the ring (`layout::attention::A6_STAGES`, `A7_STAGES`).
    pub(crate) stages: u32,
    /// a8: the two consumer warpgroups take turns at the tensor cores (named barriers).
    pub(crate) pingpong: bool,
    /// a9: exponentials without waiting for the row max, O rescaled only when a row's max moves by more
    /// than 2^8 ([`Softmax::tile_lazy`]).
    pub(crate) lazy: bool,
    /// a10: each head's query tiles launched longest first (one CTA per tile only).
    pub(crate) heavy_first: bool,
    /// a12: one CTA per SM walking query tiles ([`Walk`]; the entry takes the heads).
    pub(crate) persistent: bool,
    /// a15: CTAs per cluster sharing every K/V stage by TMA multicast (1: no cluster).
    pub(crate) cluster: u32,
    /// a19: sequences of different lengths packed token-major, grouped heads, bottom-right causal mask
    /// ([`prefill`]: one CTA per query tile, no cluster, not persistent).
    pub(crate) varlen: bool,
}

/// The body of a6 (`PIPELINE = false`), a7 (`true`), a8 (a7 with `PINGPONG`: the two consumer
/// warpgroups take turns issuing their `wgmma`s), a9 (a7 with `LAZY`: [`Softmax::tile_lazy`]), a10
/// (a9 with `HEAVY_FIRST`: query tiles in reverse order) and a12 (a9 with `PERSISTENT`: one CTA per
/// SM walking query tiles, [`Walk`]; `heads` is read only there) and a15 (a12 in clusters of `CLUSTER`
/// = 2 CTAs sharing every K/V stage by TMA multicast), a19 and a26 (`VARLEN`, one tile or persistent)
/// and a27 (a26 with `PINGPONG`) for element type `E`, head dim `D` and a ring of `STAGES` K/V stages.
///
/// # Safety
/// As `attn_a6_d64_f16` for `D`, with `layout::attention::a6_smem(D, STAGES)` bytes of dynamic shared
/// memory (`a12_smem` when persistent); persistent: grid `(n, 1)` with `1 ≤ n`, `heads` the tensor
/// maps' heads (`B·H·l` rows); `CLUSTER > 1`: a launch in clusters of `CLUSTER` CTAs (the entry's
/// `.reqnctapercluster`), `n` a multiple of it.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn attention<E: Elem16, const D: u32, const PIPELINE: bool, const STAGES: u32, const PINGPONG: bool, const LAZY: bool, const HEAVY_FIRST: bool,
                               const PERSISTENT: bool, const CLUSTER: u32, const VARLEN: bool, const SD: u32>(tmap_q: *const TensorMap, tmap_k: *const TensorMap,
                                                                                        tmap_v: *const TensorMap, g_o: *mut u16, g_lse: *mut f32, l: u32, scale: f32,
                                                                                        causal: u32, heads: u32, seq: Seq) {
    // a12 builds on a9; a CTA per tile releases Q by exiting. a15 is a12 in clusters of 2 (one K and one
    // V box per CTA and stage at D = 64, two of each at D = 128: the halves split evenly).
    const { assert!(!PERSISTENT || (LAZY && !HEAVY_FIRST)) };
    const { assert!(CLUSTER == 1 || (PERSISTENT && CLUSTER == 2)) };
    // a19 (`VARLEN`): one given tile per CTA ([`prefill`]); a26 (`VARLEN` and `PERSISTENT`): the host's
    // units ([`prefill_persistent`]).
    const { assert!(!VARLEN || CLUSTER == 1) };
    // a29: S sums over the first SD ≤ D head dims (the head's own; the tensor maps zero-fill the rest).
    const { assert!(SD % 16 == 0 && SD <= D && SD + 64 > D && (SD == D || VARLEN)) };
    let boxes = D / 64; // 64-wide boxes along D
    let kv_half = boxes * BOX; // V after K in a stage
    // SAFETY (the whole body): the ring protocol as h3–h6's (producer and consumers walk the same K/V
    // tiles — the same `Walk`, the ring index running on across query tiles; each stage use is
    // announced by one expect_tx of its bytes — Q's too on a query tile's first — and released once
    // per consumer warp after both GEMMs reading it retired: a stage is released only after a
    // `wait_group 0` that follows its P·V). Persistent: Q is rewritten only after every consumer warp
    // released it on `q_empty` (after the query tile's last S retired; the producer waits for that
    // phase before loading the next Q). `wgmma` operands: Q, K, V tiles written by the TMA and
    // observed through the full barrier before the `wgmma` that reads them is issued; descriptors
    // from compile-time checked constants advanced inside the tiles (Q: rows 64·mh .. + 64 of 128,
    // K-steps inside a box; V: 16-key steps inside 128 rows). Every `wgmma` is issued by all 128
    // threads of a consumer warpgroup with warpgroup-uniform operands; accumulators are pinned
    // (`wgmma_fence_operand`) after each wait and before each fence, and S of the next tile (a7) is
    // not touched before the wait that retires it. Global stores only for rows < l (columns < D).
    // a15 (`CLUSTER` = 2): both CTAs walk the same key tiles (one `Walk` per cluster); each stage's
    // empty barrier counts both CTAs' consumer warps (each release arrives in both CTAs), so neither
    // producer multicasts into a stage a consumer of either CTA still reads; each CTA's full barrier
    // expects the whole stage (its own boxes and the peer's land on it); a consumer with no rows of
    // its own in a tile, or past its own last key tile, still waits for each stage and releases it;
    // the producer ends with `Ring::drain`, so no CTA exits while a peer may still arrive on its
    // barriers or multicast into it (`warp_specialized!`'s `final_sync: false`).
    // The next query tile with its sequence and keys: a26's from the host's list, else the walk's (with
    // the kernel's one sequence and length).
    macro_rules! next_unit {
        ($walk:ident, $list:ident) => {
            if VARLEN && PERSISTENT {
                match $list.next(seq.cu_q, seq.cu_k, seq.dims) {
                    Some(u) => Some((Work { head: u.head, qt: u.qt, n_tiles: u.n_tiles },
                                     Seq { q_start: u.q_start, k_start: u.k_start, kv_head: u.kv_head, off: u.off, ..seq }, u.k_len)),
                    None => None,
                }
            } else {
                $walk.next().map(|w| (w, seq, l))
            }
        };
    }
    unsafe {
        warp_specialized! {
            cluster: CLUSTER, producer_threads: 1, final_sync: false;
            // STAGES × (K and V tiles), then Q (a12: and its empty barrier), then the barriers
            // (layout: `Ring`).
            ring: let (ring, s_q) = (STAGES, a6_stage_bytes(D), a6_q_bytes(D) + if PERSISTENT { 8 } else { 0 });
            thread: tid, warpgroup: wg;
            setup: {
                // a12: Q's empty barrier, one arrival per consumer warp (initialized before the
                // ring's `fence.mbarrier_init` by the same thread, published by the same barrier).
                let q_empty = s_q + a6_q_bytes(D);
                let _ = if PERSISTENT && tid == 0 { mbarrier_init(q_empty, CONSUMER_WARPS) };
                let walk = if VARLEN { Walk::<CLUSTER>::one(seq.work) } else { Walk::<CLUSTER>::new(l, causal != 0, heads, PERSISTENT, HEAVY_FIRST) };
                let list = UnitWalk::<true, BKV>::new(seq.tiles, seq.units);
                let rank = if CLUSTER == 1 { 0 } else { cluster_ctarank() };
            }
            tensor_maps: (tmap_k, tmap_v);
            producer: {
                let (mut walk, mut list, mut it0, mut k) = (walk, list, 0, 0);
                while let Some((w, sq, _)) = next_unit!(walk, list) {
                    // row0: the head's first row in the 2-D maps (B·H·l + 256 < 2^31: host); a15: this
                    // CTA's tile of the cluster's (past l for the second of an odd count: loaded, unused).
                    let (q0, row0) = ((w.qt * CLUSTER + rank) * BQ, w.head * l);
                    for j in 0..w.n_tiles {
                        let (s_stage, full, _, _) = ring.at(it0 + j);
                        ring.wait_empty(it0 + j);
                        if PERSISTENT && j == 0 && k > 0 {
                            mbarrier_wait_parity(q_empty, (k - 1) & 1); // the last query tile's consumers are done with Q
                        }
                        mbarrier_arrive_expect_tx(full, a6_stage_bytes(D) + if j == 0 { a6_q_bytes(D) } else { 0 });
                        for b in 0..boxes {
                            if VARLEN {
                                // a19: token-major 3-D maps (D, heads, tokens); boxes of 64 × 1 head × 128 tokens.
                                let c0 = (64 * b) as i32;
                                if j == 0 {
                                    cp_async_bulk_tensor_3d_g2s(s_q + b * BOX, tmap_q, c0, w.head as i32, (sq.q_start + q0) as i32, full);
                                }
                                let (kv_head, key0) = (sq.kv_head as i32, (sq.k_start + j * BKV) as i32);
                                cp_async_bulk_tensor_3d_g2s(s_stage + b * BOX, tmap_k, c0, kv_head, key0, full);
                                cp_async_bulk_tensor_3d_g2s(s_stage + kv_half + b * BOX, tmap_v, c0, kv_head, key0, full);
                                continue;
                            }
                            if j == 0 {
                                cp_async_bulk_tensor_2d_g2s(s_q + b * BOX, tmap_q, (64 * b) as i32, (row0 + q0) as i32, full);
                            }
                            if CLUSTER == 1 {
                                cp_async_bulk_tensor_2d_g2s(s_stage + b * BOX, tmap_k, (64 * b) as i32, (row0 + j * BKV) as i32, full);
                                cp_async_bulk_tensor_2d_g2s(s_stage + kv_half + b * BOX, tmap_v, (64 * b) as i32, (row0 + j * BKV) as i32, full);
                            }
                        }
                        if CLUSTER > 1 {
                            // a15: the stage's boxes (K's, then V's) of this rank's parity, into both CTAs.
                            for i in 0..2 * boxes {
                                if i % CLUSTER == rank {
                                    let tmap = if i < boxes { tmap_k } else { tmap_v };
                                    cp_async_bulk_tensor_2d_g2s_multicast(s_stage + i * BOX, tmap, (64 * (i % boxes)) as i32, (row0 + j * BKV) as i32, full,
                                                                          (1u16 << CLUSTER) - 1);
                                }
                            }
                        }
                    }
                    it0 += w.n_tiles;
                    k += 1;
                }
                if CLUSTER > 1 {
                    ring.drain(it0);
                }
            }
            consumer(mh): {
                let (warp, lane) = ((tid / 32) % 4, lane_id());
                let (g, t) = (lane / 4, lane % 4);
                let d_q = K_MAJOR.advance(s_q + mh * 64 * 128);
                // a12: this warp is done with Q once the query tile's last S retired.
                let release_q = || {
                    if PERSISTENT && lane == 0 {
                        mbarrier_arrive(q_empty);
                    }
                };
                // A consumer warp's release of a stage: in this CTA, or (a15) in both CTAs of the cluster.
                // (`release_cluster::<1>` is the same arrival, but its inlined rank loop left a12 with a
                // 4-byte spill at D = 128: ptxas saw different code.)
                macro_rules! release_stage {
                    ($it:expr) => {
                        if CLUSTER == 1 { ring.release($it) } else { ring.release_cluster::<CLUSTER>($it) }
                    };
                }
                let (mut walk, mut list, mut it0) = (walk, list, 0);
                while let Some((Work { head, qt: walk_qt, n_tiles: walk_tiles }, sq, l)) = next_unit!(walk, list) {
                    // a15: this CTA's 128-row tile of the cluster's and the key tiles it needs (none
                    // when its rows start past l); the cluster walks `walk_tiles`.
                    let qt = walk_qt * CLUSTER + rank;
                    let n_tiles = if CLUSTER == 1 {
                        walk_tiles
                    } else if qt * BQ < l {
                        kv_tiles_of(l, BQ, BKV, qt, causal != 0)
                    } else {
                        0
                    };
                    if CLUSTER > 1 && n_tiles == 0 {
                        release_q();
                    }
                    if CLUSTER == 1 || n_tiles > 0 {
                        // Ring index of the query tile's key tile j.
                        let at = |j: u32| it0 + j;
                        // This thread's query rows (h = 0, 1: rows g and g + 8 of its warp's 16).
                        let q0 = qt * BQ;
                        let row_of = |h: u32| q0 + 64 * mh + 16 * warp + g + 8 * h;
                        let off = if VARLEN { sq.off } else { 0 };
                        let softmax = Softmax { l, causal: causal != 0, off, qt, scale2: scale * core::f32::consts::LOG2_E, row: [row_of(0), row_of(1)], t };
                        let mut r_o = [[0f32; 32]; 2]; // O: [64-column block of D][fragment]; D = 64 uses block 0
                        let mut r_m = [-1e30f32; 2]; // running max (base 2) per row half
                        let mut r_l = [0f32; 2]; // running per-thread sum per row half
                        if !PIPELINE {
                            // a6: S, wait, softmax, P·V, wait — per tile.
                            for j in 0..n_tiles {
                                ring.wait_full(at(j));
                                let s_stage = ring.at(at(j)).0;
                                let (dq, dk, dv, flags) = descriptors::<SD>(d_q, s_stage, s_stage + kv_half);
                                let mut s = issue_scores::<E, SD>(&dq, &dk, flags);
                                wgmma_wait_group::<0>();
                                pin(&mut s);
                                let corr = softmax.tile(&mut s, j, &mut r_m, &mut r_l);
                                let p = pack_p::<E>(&s);
                                rescale::<D>(&mut r_o, corr);
                                issue_pv::<E, D>(&mut r_o, &p, &dv, flags);
                                wgmma_wait_group::<0>();
                                pin(&mut r_o);
                                release_stage!(at(j));
                            }
                        } else {
                            // a7: P·V of tile j and S of tile j + 1 in flight together; the softmax of tile
                            // j + 1 runs while P·V of tile j is still on the tensor cores; O is rescaled only
                            // when no wgmma is in flight (a non-wgmma write to an in-flight accumulator makes
                            // ptxas serialize every wgmma: C7515).
                            ring.wait_full(at(0));
                            let (dq, dk, _, flags) = descriptors::<SD>(d_q, ring.at(at(0)).0, ring.at(at(0)).0 + kv_half);
                            let mut s = issue_scores::<E, SD>(&dq, &dk, flags);
                            wgmma_wait_group::<0>();
                            pin(&mut s);
                            if n_tiles == 1 {
                                release_q();
                            }
                            let mut corr = softmax.tile(&mut s, 0, &mut r_m, &mut r_l);
                            let mut p = pack_p::<E>(&s);
                            // a8: named barriers 1 (warpgroup 0's turn) and 2 (warpgroup 1's), 256 threads
                            // each: a warpgroup syncs on its own before issuing a tile's wgmmas and arrives on
                            // the other's after; warpgroup 1 opens warpgroup 0's first turn and skips its last
                            // arrival, so every phase of both barriers has 128 syncing + 128 arriving threads.
                            // a27 (persistent, lazy): the same per query tile — both warpgroups walk the same
                            // units and key tiles, so each takes `n_tiles` turns and every unit balances.
                            let (my_turn, their_turn) = (1 + mh, 2 - mh);
                            if PINGPONG && mh == 1 {
                                arrive_named(their_turn, 256);
                            }
                            if LAZY {
                                // a9: the softmax of tile j + 1 packs its P into the register set P·V of tile
                                // j does not read (two sets, the loop runs two tiles per turn), and O is
                                // rescaled only when a row's max moved.
                                let mut p_b = [[0u32; 4]; 8];
                                macro_rules! lazy_step {
                                    ($j:expr, $p_cur:ident, $p_nxt:ident) => {{
                                        let j: u32 = $j;
                                        let more = j + 1 < n_tiles;
                                        let mut s_next = unset_scores();
                                        let (dq, dk, dv, flags) = descriptors::<SD>(d_q, ring.at(at(j + 1)).0, ring.at(at(j)).0 + kv_half);
                                        // a27: the turns as a8 takes them, around both GEMMs' issue.
                                        if PINGPONG {
                                            sync_named(my_turn, 256);
                                        }
                                        if more {
                                            ring.wait_full(at(j + 1));
                                            s_next = issue_scores::<E, SD>(&dq, &dk, flags);
                                        }
                                        issue_pv::<E, D>(&mut r_o, &$p_cur, &dv, flags);
                                        if PINGPONG && !(mh == 1 && !more) {
                                            arrive_named(their_turn, 256);
                                        }
                                        let mut moved = None;
                                        if more {
                                            wgmma_wait_group::<1>(); // S of tile j + 1 (committed first) retired
                                            pin(&mut s_next);
                                            if j + 2 == n_tiles {
                                                release_q();
                                            }
                                            moved = softmax.tile_lazy::<E>(&mut s_next, j + 1, &mut r_m, &mut r_l, &mut $p_nxt);
                                            block_boundary(l);
                                            wgmma_wait_group::<0>();
                                        } else {
                                            wgmma_wait_group::<0>();
                                        }
                                        pin(&mut r_o);
                                        release_stage!(at(j));
                                        if let Some(corr) = moved {
                                            rescale::<D>(&mut r_o, corr);
                                        }
                                    }};
                                }
                                let mut j = 0;
                                while j < n_tiles {
                                    lazy_step!(j, p, p_b);
                                    if j + 1 < n_tiles {
                                        lazy_step!(j + 1, p_b, p);
                                    }
                                    j += 2;
                                }
                            } else {
                                for j in 0..n_tiles {
                                    let s_stage = ring.at(at(j)).0;
                                    let more = j + 1 < n_tiles;
                                    let mut s_next = unset_scores();
                                    // Both GEMMs' descriptors before the fence; S of tile j + 1 (if any) and P·V
                                    // of tile j issued back to back behind one fence, as two groups.
                                    let next_stage = ring.at(at(j + 1)).0;
                                    let (dq, dk, dv, flags) = descriptors::<SD>(d_q, next_stage, s_stage + kv_half);
                                    if PINGPONG {
                                        sync_named(my_turn, 256);
                                    }
                                    if more {
                                        ring.wait_full(at(j + 1));
                                        s_next = issue_scores::<E, SD>(&dq, &dk, flags);
                                    }
                                    // O takes tile j's correction while S of tile j + 1 runs (no wgmma in flight
                                    // reads or writes O here: P·V of tile j − 1 retired at the last wait).
                                    rescale::<D>(&mut r_o, corr);
                                    issue_pv::<E, D>(&mut r_o, &p, &dv, flags);
                                    if PINGPONG && !(mh == 1 && !more) {
                                        arrive_named(their_turn, 256);
                                    }
                                    if more {
                                        wgmma_wait_group::<1>(); // S of tile j + 1 (committed first) retired
                                        pin(&mut s_next);
                                        corr = softmax.tile(&mut s_next, j + 1, &mut r_m, &mut r_l);
                                        block_boundary(l);
                                        wgmma_wait_group::<0>();
                                        p = pack_p::<E>(&s_next);
                                    } else {
                                        wgmma_wait_group::<0>();
                                    }
                                    pin(&mut r_o);
                                    release_stage!(at(j));
                                }
                            }
                        }
                        if VARLEN {
                            // The sequence (a19: block z's; a26: the unit's, from the host's list) read
                            // again here rather than kept in a register through the key loop (at D = 128
                            // holding it spilled: a19 4 bytes, a26 24).
                            let b = if PERSISTENT { list.last_sequence() } else { opaque(block_idx_z()) };
                            store_o_varlen::<E, D>(g_o, g_lse, sq, b, head, softmax.row, t, &r_o, r_m, r_l);
                        } else {
                            store_o::<E, D>(g_o, g_lse, head, l, softmax.row, t, &r_o, r_m, r_l);
                        }
                    }
                    // a15: the stages past this CTA's own last key tile, waited for and released.
                    if CLUSTER > 1 {
                        for j in n_tiles..walk_tiles {
                            ring.wait_full(it0 + j);
                            release_stage!(it0 + j);
                        }
                    }
                    it0 += walk_tiles;
                }
            }
        }
    }
}

/// Declares a Hopper attention entry for one head dim and element type with a step's [`HopperPolicy`]:
/// `hopper_entry!(name, F16, 64, A7)` (a6–a10: one CTA per query tile), `…, A12, persistent)` (a12:
/// one more parameter, the heads) or `…, A15, persistent_cluster)` (a15: a12's entry in clusters of 2).
macro_rules! hopper_entry {
    // The body for the policy: each field to the const parameter of its name.
    (@body $e:ty, $d:literal, $policy:path) => {
        $crate::attention::hopper::attention::<$e, $d, { $policy.pipeline }, { $policy.stages }, { $policy.pingpong }, { $policy.lazy },
                                               { $policy.heavy_first }, { $policy.persistent }, { $policy.cluster }, { $policy.varlen }, $d>
    };
    ($name:ident, $e:ty, $d:literal, $policy:path) => {
        const _: () = assert!(!$policy.persistent && $policy.cluster == 1 && !$policy.varlen, "a CTA-per-tile entry");
        /// Attention forward (a6–a10, module docs): `o` (`[B·H][L][D]`) and the natural log-sum-exp
        /// `lse` (`[B·H][L]`) from Q, K, V given as TMA tensor maps.
        ///
        /// # Safety
        /// `tmap_q`, `tmap_k`, `tmap_v`: 2-D tensor maps (in global memory) of `B·H·l` rows × D
        /// 16-bit elements, boxes of 128 rows × 64 elements, `SWIZZLE_128B`; `o` and `lse` hold
        /// `B·H·l·D` and `B·H·l` writable elements; grid `(⌈l/128⌉, B·H)`, 384 threads,
        /// `layout::attention::a6_smem(D, stages)` bytes of dynamic shared memory; `l ≥ 1`.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(tmap_q: *const $crate::prim::tma::TensorMap, tmap_k: *const $crate::prim::tma::TensorMap,
                                                tmap_v: *const $crate::prim::tma::TensorMap, o: *mut u16, lse: *mut f32, l: u32, scale: f32, causal: u32) {
            // SAFETY: forwarded (`heads` is read only by the persistent body).
            unsafe { $crate::attention::hopper::hopper_entry!(@body $e, $d, $policy)(tmap_q, tmap_k, tmap_v, o, lse, l, scale, causal, 0, $crate::attention::hopper::Seq::NONE) }
        }
        // 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
        $crate::launch_bounds::launch_bounds!($name, 384, 1);
    };
    // a12: a persistent body (one more parameter: the heads).
    ($name:ident, $e:ty, $d:literal, $policy:path, persistent) => {
        const _: () = assert!($policy.persistent && $policy.cluster == 1, "a persistent entry");
        /// Attention forward, persistent (a12, module docs): as the a6–a10 entries, over `heads` heads
        /// (the tensor maps' `B·H`), with any number of CTAs (one per SM).
        ///
        /// # Safety
        /// As the a6–a10 entries, with grid `(n, 1)`, `n ≥ 1`, `heads ≥ 1` and
        /// `layout::attention::a12_smem(D)` bytes of dynamic shared memory.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(tmap_q: *const $crate::prim::tma::TensorMap, tmap_k: *const $crate::prim::tma::TensorMap,
                                                tmap_v: *const $crate::prim::tma::TensorMap, o: *mut u16, lse: *mut f32, l: u32, scale: f32, causal: u32, heads: u32) {
            // SAFETY: forwarded.
            unsafe { $crate::attention::hopper::hopper_entry!(@body $e, $d, $policy)(tmap_q, tmap_k, tmap_v, o, lse, l, scale, causal, heads, $crate::attention::hopper::Seq::NONE) }
        }
        $crate::launch_bounds::launch_bounds!($name, 384, 1);
    };
    // a15: a persistent body in clusters of 2 sharing every K/V stage by TMA multicast (same parameters).
    ($name:ident, $e:ty, $d:literal, $policy:path, persistent_cluster) => {
        const _: () = assert!($policy.persistent && $policy.cluster == 2, "a persistent entry in clusters of 2 (`cluster_dims!` below)");
        /// Attention forward, persistent, in clusters of 2 (a15, module docs): as a12's entry, the
        /// two CTAs of a cluster computing adjacent query tiles of one head.
        ///
        /// # Safety
        /// As a12's entry, with the grid's `n` even (clusters of 2: `.reqnctapercluster`).
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(tmap_q: *const $crate::prim::tma::TensorMap, tmap_k: *const $crate::prim::tma::TensorMap,
                                                tmap_v: *const $crate::prim::tma::TensorMap, o: *mut u16, lse: *mut f32, l: u32, scale: f32, causal: u32, heads: u32) {
            // SAFETY: forwarded.
            unsafe { $crate::attention::hopper::hopper_entry!(@body $e, $d, $policy)(tmap_q, tmap_k, tmap_v, o, lse, l, scale, causal, heads, $crate::attention::hopper::Seq::NONE) }
        }
        $crate::launch_bounds::launch_bounds!($name, 384, 1);
        $crate::prim::cluster_dims!($name, 2);
    };
    // a19: variable-length, grouped-head prefill (`D` the kernel's width: 64 or 128, which serves
    // head dims up to it).
    ($name:ident, $e:ty, $d:literal, $policy:path, varlen) => {
        const _: () = assert!($policy.varlen && !$policy.persistent && $policy.cluster == 1, "a varlen entry");
        /// Attention forward over a packed batch of sequences of different lengths with grouped heads
        /// (a19, module docs): `o` (`[tokens][heads][head_dim]`) and the natural log-sum-exp `lse`
        /// (`[tokens][heads]`) of sequence `b`'s queries `cu_q[b]..cu_q[b + 1]` against its keys
        /// `cu_k[b]..cu_k[b + 1]`.
        ///
        /// # Safety
        /// `tmap_q`: a 3-D tensor map (in global memory) of Q, dims (head_dim, heads, tokens_q),
        /// boxes 64 × 1 × 128, `SWIZZLE_128B`; `tmap_k`, `tmap_v` the same of K and V with the K/V
        /// heads and tokens_k; `o` and `lse` hold `tokens_q · heads · head_dim` and `tokens_q · heads`
        /// writable elements; `cu_q`, `cu_k`: `batch + 1` non-decreasing `i32` in global memory
        /// ending at tokens_q and tokens_k, unwritten during the kernel; `dims.head_dim ≤ D` (the maps'
        /// dim 0), `dims.heads = kv_heads · dims.group`; grid `(⌈max q_len / 128⌉, heads, batch)`,
        /// 384 threads, `layout::attention::a6_smem(D, stages)` bytes of dynamic shared memory.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(tmap_q: *const $crate::prim::tma::TensorMap, tmap_k: *const $crate::prim::tma::TensorMap,
                                                tmap_v: *const $crate::prim::tma::TensorMap, o: *mut u16, lse: *mut f32, cu_q: *const i32, cu_k: *const i32,
                                                dims: layout::attention::PrefillDims) {
            // SAFETY: forwarded.
            unsafe {
                $crate::attention::hopper::prefill::<$e, $d, { $policy.pipeline }, { $policy.stages }, { $policy.lazy }>(tmap_q, tmap_k, tmap_v, o, lse, cu_q, cu_k, dims)
            }
        }
        $crate::launch_bounds::launch_bounds!($name, 384, 1);
    };
    // a26: a19 made persistent over the host's units (`D` 64 or 128, as a19's).
    ($name:ident, $e:ty, $d:literal, $policy:path, varlen_persistent) => {
        $crate::attention::hopper::hopper_entry!($name, $e, $d, $policy, varlen_persistent, $d);
    };
    // a29: a26 whose S sums over the first `$sd` head dims only (head dims ≤ `$sd`: 96 in the 128 kernel).
    ($name:ident, $e:ty, $d:literal, $policy:path, varlen_persistent, $sd:literal) => {
        const _: () = assert!($policy.varlen && $policy.persistent && $policy.cluster == 1 && $policy.lazy && $policy.pipeline, "a persistent varlen entry");
        /// Attention forward over a packed batch, persistent (a26, module docs): as a19's entry, computed by
        /// `n` CTAs walking the host's list of units.
        ///
        /// # Safety
        /// As a19's entry for the maps, `o`, `lse`, `cu_q`, `cu_k` and `dims`, but grid `(n, 1, 1)` with
        /// `n ≥ 1` and `layout::attention::a12_smem(D)` bytes of dynamic shared memory; `tiles` holds
        /// `3 · units` `u32` (a sequence `< batch`, a query tile, a head `< dims.heads`), unwritten during
        /// the kernel; `dims.head_dim` at most the entry's S dims (its width; a29's 96).
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(tmap_q: *const $crate::prim::tma::TensorMap, tmap_k: *const $crate::prim::tma::TensorMap,
                                                tmap_v: *const $crate::prim::tma::TensorMap, o: *mut u16, lse: *mut f32, cu_q: *const i32, cu_k: *const i32,
                                                dims: layout::attention::PrefillDims, tiles: *const u32, units: u32) {
            // SAFETY: forwarded.
            unsafe {
                $crate::attention::hopper::prefill_persistent::<$e, $d, { $policy.stages }, { $policy.pingpong }, $sd>(tmap_q, tmap_k, tmap_v, o, lse, cu_q, cu_k, dims,
                                                                                                                     tiles, units)
            }
        }
        $crate::launch_bounds::launch_bounds!($name, 384, 1);
    };
}
pub(crate) use hopper_entry;

/// a19's entry body: finds this CTA's sequence (block z), head (block y) and query tile (block x,
/// counted from the sequence's last: the longest first with the causal mask), exits when the sequence
/// has no such tile, and runs [`attention`] on that one tile (`VARLEN`).
///
/// # Safety
/// As the `varlen` entries of [`hopper_entry!`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn prefill<E: Elem16, const D: u32, const PIPELINE: bool, const STAGES: u32, const LAZY: bool>(tmap_q: *const TensorMap, tmap_k: *const TensorMap,
                                                                                                        tmap_v: *const TensorMap, g_o: *mut u16, g_lse: *mut f32,
                                                                                                        cu_q: *const i32, cu_k: *const i32, dims: PrefillDims) {
    let (b, head) = (block_idx_z() as usize, block_idx_y());
    // SAFETY: `cu_q` and `cu_k` hold `batch + 1` entries and `b < batch` (the grid), unwritten (caller).
    let ([q_start, q_end], [k_start, k_end]) = unsafe { ([ld_global_nc_s32(cu_q.add(b)), ld_global_nc_s32(cu_q.add(b + 1))],
                                                         [ld_global_nc_s32(cu_k.add(b)), ld_global_nc_s32(cu_k.add(b + 1))]) };
    let (q_len, k_len) = ((q_end - q_start).max(0) as u32, (k_end - k_start).max(0) as u32);
    let causal = dims.causal != 0;
    let qtiles = q_len.div_ceil(BQ);
    // A CTA past its sequence's tiles, and (refused by the host, so never here) a sequence with queries
    // but no keys or, causal, more queries than keys: nothing to do, before any barrier or load.
    if block_idx_x() >= qtiles || k_len == 0 || (causal && k_len < q_len) {
        return;
    }
    let qt = qtiles - 1 - block_idx_x();
    let off = if causal { k_len - q_len } else { 0 };
    let work = Work { head, qt, n_tiles: kv_tiles_off(k_len, BQ, BKV, qt, causal, off) };
    let seq = Seq { work, q_start: q_start as u32, k_start: k_start as u32, cu_q, kv_head: head / dims.group.max(1), heads: dims.heads, head_dim: dims.head_dim, off, ..Seq::NONE };
    // SAFETY: forwarded; the tile's rows and keys lie in the sequence's (the maps' coordinates, below
    // 2^31: the host), `n_tiles ≥ 1` (`k_len ≥ 1`).
    unsafe {
        attention::<E, D, PIPELINE, STAGES, false, LAZY, false, false, 1, true, D>(tmap_q, tmap_k, tmap_v, g_o, g_lse, k_len, dims.scale, dims.causal, dims.heads, seq)
    }
}

/// a26's entry body: the kernel's sequences, dimensions and unit list handed to [`attention`] (`VARLEN`
/// and `PERSISTENT`), which walks the list ([`UnitWalk`]) and takes each unit's sequence and keys from it;
/// S over the first `SD` head dims (a26: `D`; a29: 96 at `D` = 128).
///
/// # Safety
/// As the `varlen_persistent` entries of [`hopper_entry!`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn prefill_persistent<E: Elem16, const D: u32, const STAGES: u32, const PINGPONG: bool, const SD: u32>(tmap_q: *const TensorMap, tmap_k: *const TensorMap, tmap_v: *const TensorMap,
                                                                                   g_o: *mut u16, g_lse: *mut f32, cu_q: *const i32, cu_k: *const i32, dims: PrefillDims,
                                                                                   tiles: *const u32, units: u32) {
    let seq = Seq { cu_q, heads: dims.heads, head_dim: dims.head_dim, cu_k, dims, tiles, units, ..Seq::NONE };
    // SAFETY: forwarded; every unit's rows and keys lie in its sequence's (`UnitWalk`), `n_tiles ≥ 1`.
    unsafe { attention::<E, D, true, STAGES, PINGPONG, true, false, true, 1, true, SD>(tmap_q, tmap_k, tmap_v, g_o, g_lse, 0, dims.scale, dims.causal, dims.heads, seq) }
}
