#![cfg(lab_sm90)]
//! The Hopper body of a24 (introduced by its step file, `steps/v24_prefill_d256.rs`): a19's packed,
//! grouped-head, bottom-right-causal prefill at head dim 256. What changes from the a6–a19 body
//! (`hopper.rs`), and why it is a body of its own rather than a branch of that one:
//!
//! * **64-key tiles.** At D = 256 O is 128 accumulator registers a thread; with a 128-key S (64 more)
//!   and two sets of P the consumers would need ~300 of their 232. S is one 64-column block
//!   (`wgmma.m64n64k16`, 16 K-steps of 16 head dims), P four `m16n8k16` A fragments, P·V
//!   `wgmma.m64n256k16` with A from registers (4 K-steps of 16 keys).
//! * **K and V as separate ring entries.** A stage of K and V together would be 64 KiB; with Q's
//!   64 KiB only two fit, and a stage shared by both GEMMs is released only when P·V retired, so the
//!   next tile's loads would start just as it is needed (a7's lesson with two stages). K of tile `j` is
//!   ring entry `2j` and its V `2j + 1` (four entries of 32 KiB): K is released as soon as S retired, V
//!   when P·V did, and two tiles are always in flight.
//! * The rest is a19's pipeline: S of tile `j + 1` issued before P·V of tile `j`, the softmax of `j + 1`
//!   under P·V of `j`, O rescaled only when a row's max moved by more than 2^8 (a9's lazy rescaling) —
//!   but the exponentials wait for the row max and replace the scores in place, P packed once P·V of
//!   `j` retired: a9's exponentials ahead of the max need the raw scores and a second P set, 16
//!   registers a thread the consumers do not have (ptxas spilled 92 bytes).
//! * a25 (`PERSISTENT`): one CTA an SM walks the host's units ([`Walk`], shared with a26).
//! * a28 (`BKV = 80`): a25 with 80-key tiles (S `m64n80k16`, 40 registers; P·V five K-steps): the body is
//!   generic over the tile's keys `BKV` and S's registers `SN = BKV / 2` ([`ScoreTile`]).
use crate::attention::flash::{quad_max, quad_sum};
use crate::attention::hopper::{LAZY_RESCALE_LOG2, Softmax, block_boundary};
use crate::attention::units::UnitWalk as Walk;
use crate::hgemm::elem::Elem16;
use crate::hgemm::tma_warp_specialized::{CONSUMER_WARPS, warp_specialized};
use crate::prim::{
    global::ld_global_nc_s32,
    math::{ex2_approx_f32, fma_rn_f32, lg2_approx_f32},
    mbarrier::{mbarrier_arrive, mbarrier_arrive_expect_tx, mbarrier_init, mbarrier_wait_parity},
    thread::lane_id,
    tma::{TensorMap, cp_async_bulk_tensor_3d_g2s},
    warp::vote_any,
    wgmma::{wgmma_commit_group, wgmma_fence, wgmma_fence_operand, wgmma_wait_group},
};
use crate::util::opaque;
use crate::util::unroll::{unroll2, unroll4, unroll8, unroll16};
use layout::attention::{A6_BOX_BYTES as Q_BOX, A6_BQ as BQ, A24_D as D, A24_HALVES, PrefillDims, a6_q_bytes, a24_box_bytes_of, a24_half_bytes_of,
                        needs_mask_off};
use layout::hopper::WgmmaDesc;

/// Q (A of S) and K (B of S): K-major, 128-byte swizzled rows, 8-row groups 1024 bytes apart.
const K_MAJOR: WgmmaDesc = WgmmaDesc::K_MAJOR_SW128;
/// V (B of P·V) of `BKV`-key tiles: MN-major, boxes of `BKV` keys × 64 head dims (LBO: the next 64 head
/// dims' box, `BKV · 128` bytes on).
const fn v_mn_major(bkv: u32) -> WgmmaDesc {
    match WgmmaDesc::mn_major_sw128(0, bkv) {
        Ok(d) => d,
        Err(_) => panic!("MN-major descriptor"),
    }
}
/// 64-wide boxes along D.
const BOXES: u32 = D / 64;
/// O of one consumer thread: 64 rows × 256 columns of its warpgroup as four 64-column blocks.
type Out = [[f32; 32]; 4];
/// P of one tile as P·V's A fragments: K-step `kk` (16 keys) holds n-tiles `2kk`, `2kk + 1` — five
/// K-steps for a28's 80 keys, four for a24's and a25's 64 (the fifth never written nor read).
type P = [[u32; 4]; 5];

/// P's index of K-step `kk` (< 5 where the caller's guard holds; clamped so that rustc's const
/// propagation, which does not see a guard on a const-generic count, finds no out-of-bounds index in
/// the unrolled iterations the guard removes).
#[inline(always)]
const fn kstep(kk: u32) -> usize {
    if kk < 5 { kk as usize } else { 4 }
}

/// S of one warpgroup and key tile: the accumulator of `wgmma.m64nNk16` for N = the tile's keys, one
/// register per key pair a thread (`[f32; 32]`: 64 keys, a24 and a25; `[f32; 40]`: 80 keys, a28), in
/// the instruction's fragment order (n-tile `jj` of 8 keys in registers `4jj..4jj + 4`).
pub(super) trait ScoreTile: Sized {
    /// Issues the first K-step of S (D not read: scale-d 0).
    ///
    /// # Safety
    /// As the `wgmma` wrappers: all 128 threads of a warpgroup, after `wgmma_fence`, descriptors inside
    /// landed tiles.
    unsafe fn first<E: Elem16>(desc_a: u64, desc_b: u64) -> Self;
    /// Issues one more K-step of S (accumulating).
    ///
    /// # Safety
    /// As [`ScoreTile::first`], with `self` from it, not read until the group retires.
    unsafe fn step<E: Elem16>(&mut self, desc_a: u64, desc_b: u64);
    /// `wgmma_fence_operand` on every register (after the wait that retires S).
    fn fence(&mut self);
}

impl ScoreTile for [f32; 32] {
    #[inline(always)]
    unsafe fn first<E: Elem16>(desc_a: u64, desc_b: u64) -> Self {
        // SAFETY: forwarded to the caller.
        unsafe { E::wgmma_64_zero::<0, 0>(desc_a, desc_b) }
    }
    #[inline(always)]
    unsafe fn step<E: Elem16>(&mut self, desc_a: u64, desc_b: u64) {
        // SAFETY: forwarded to the caller.
        unsafe { E::wgmma_64::<0, 0>(self, desc_a, desc_b, true) }
    }
    #[inline(always)]
    fn fence(&mut self) {
        wgmma_fence_operand(self);
    }
}

impl ScoreTile for [f32; 40] {
    #[inline(always)]
    unsafe fn first<E: Elem16>(desc_a: u64, desc_b: u64) -> Self {
        let mut s = [0f32; 40];
        // SAFETY: forwarded to the caller (scale-d 0: the zeros are not read).
        unsafe { E::wgmma_flat::<0, 0, _>(&mut s, desc_a, desc_b, false) };
        s
    }
    #[inline(always)]
    unsafe fn step<E: Elem16>(&mut self, desc_a: u64, desc_b: u64) {
        // SAFETY: forwarded to the caller.
        unsafe { E::wgmma_flat::<0, 0, _>(self, desc_a, desc_b, true) }
    }
    #[inline(always)]
    fn fence(&mut self) {
        crate::prim::wgmma::FlatWgmma::fence_operand(self);
    }
}

/// [`wgmma_fence_operand`] on every block of O (constant indices keep the blocks in registers).
#[inline(always)]
fn pin_o(o: &mut Out) {
    let [a, b, c, d] = o;
    wgmma_fence_operand(a);
    wgmma_fence_operand(b);
    wgmma_fence_operand(c);
    wgmma_fence_operand(d);
}

/// Issues (and commits, without waiting) S = Q·Kᵀ for this warpgroup's 64 rows (`d_q`) and the K tile
/// of `BKV` keys at `s_k`: 16 `wgmma.m64nBKVk16`, one per 16 head dims, both operands K-major. Valid after
/// the `wgmma_wait_group` that retires the group.
///
/// # Safety
/// All 128 threads of a consumer warpgroup; Q and the K tile have landed, nobody writes them until the
/// group retires, and the result is not read before then.
#[inline(always)]
unsafe fn issue_scores<E: Elem16, const BKV: u32, const SN: usize>(d_q: WgmmaDesc, s_k: u32) -> [f32; SN]
where [f32; SN]: ScoreTile {
    // Step `ks` reads 32 bytes of every row of box `ks / 4` (Q's boxes are 128 rows apart, K's 64). Q's
    // 16 descriptors are the same every tile: LLVM hoisted them out of the key loop, 32 registers held
    // through it (ptxas spilled 292 bytes); from an opaque copy of the base they are rebuilt per tile.
    let d_q = WgmmaDesc(opaque64(d_q.0));
    let dq = |ks: u32| d_q.advance((ks / 4) * Q_BOX + 32 * (ks % 4)).0;
    let dk = |ks: u32| K_MAJOR.advance(s_k + (ks / 4) * a24_box_bytes_of(BKV) + 32 * (ks % 4)).0;
    // SAFETY: forwarded to the caller.
    unsafe {
        wgmma_fence();
        let mut s = <[f32; SN]>::first::<E>(dq(0), dk(0));
        unroll16!(ks => {
            if ks > 0 {
                s.step::<E>(dq(ks), dk(ks));
            }
        });
        wgmma_commit_group();
        s
    }
}

/// `x` unchanged, through an empty `asm!` LLVM cannot look into nor move (not `pure`).
#[inline(always)]
fn opaque64(mut x: u64) -> u64 {
    // SAFETY: emits no instruction (a PTX comment); `x` comes back unchanged.
    unsafe { core::arch::asm!("// opaque64 {0}", inout(reg64) x, options(nomem, nostack)) };
    x
}

/// Issues (and commits, without waiting) O += P·V for the V tile of `BKV` keys at `s_v`: `BKV / 16`
/// `wgmma.m64n256k16` of 16 keys, A = P from registers, B = V MN-major.
///
/// # Safety
/// All 128 threads of a consumer warpgroup; the V tile has landed and nobody writes it, nor `o` or `p`,
/// until the group retires.
#[inline(always)]
unsafe fn issue_pv<E: Elem16, const BKV: u32>(o: &mut Out, p: &P, s_v: u32) {
    pin_o(o);
    // SAFETY: forwarded to the caller.
    unsafe {
        wgmma_fence();
        unroll8!(kk => {
            if kk < BKV / 16 {
                E::wgmma_256_rs::<1>(o, p[kstep(kk)], v_mn_major(BKV).advance(s_v + 2048 * kk).0, 1);
            }
        });
        wgmma_commit_group();
    }
}

/// a24's softmax: `hopper.rs`'s `Softmax` (its rows, mask and scale) over tiles of `2 · SN` keys (`SN / 4`
/// n-tiles of 8 keys a thread; a24, a25: 64 keys, a28: 80).
impl Softmax {
    /// Tile `j`'s scores masked in place (keys past `l`; the causal mask on the tiles that need it), and
    /// the factor `c` of the exponent 2^(x·c − m); a scale ≤ 0 pre-scales the scores and returns 1 (as
    /// a19's, so that the mask's −∞ stays −∞).
    #[inline(always)]
    fn prepare_64<const SN: usize>(self, s: &mut [f32; SN], j: u32) -> f32 {
        let (bkv, nt) = (2 * SN as u32, SN as u32 / 4);
        let kv0 = j * bkv;
        let c = if self.scale2 > 0.0 {
            self.scale2
        } else {
            unroll16!(jj => {
                if jj < nt {
                    unroll4!(e => {
                        s[(4 * jj + e) as usize] *= self.scale2;
                    });
                }
            });
            1.0
        };
        // (a19's mask pass on one key block; a19's own is left as it is, its PTX unchanged.)
        if kv0 + bkv > self.l || (self.causal && needs_mask_off(BQ, bkv, self.qt, j, self.off)) {
            unroll16!(jj => {
                if jj < nt {
                    unroll4!(e => {
                        let col = kv0 + 8 * jj + 2 * self.t + e % 2;
                        if col >= self.l || (self.causal && col > self.row[(e / 2) as usize] + self.off) {
                            s[(4 * jj + e) as usize] = f32::NEG_INFINITY;
                        }
                    });
                }
            });
        }
        c
    }

    /// Tile `j`'s softmax with a9's lazy rescaling, the exponentials after the row max: the scores are
    /// masked, the rows' max taken; only where it exceeds the running max `r_m` by more than 2^8 does the
    /// warp move the max; then P = 2^(x·c − r_m) replaces the scores in `s` (f32, in place: one register
    /// set for S and P, where a9's exponentials ahead of the max need the raw scores and P at once — 16
    /// registers a thread more than a24's consumers have) and the row sums `r_l` take it. Returns O's
    /// correction when the max moved, `None` otherwise (the common case: O untouched).
    ///
    /// # Safety
    /// All 32 lanes of the warp, converged (quad shuffles, the vote).
    #[inline(always)]
    unsafe fn tile_64<const SN: usize>(self, s: &mut [f32; SN], j: u32, r_m: &mut [f32; 2], r_l: &mut [f32; 2]) -> Option<[f32; 2]> {
        let nt = SN as u32 / 4;
        let c = self.prepare_64(s, j);
        let mut mx = [[-1e30f32; 4]; 2];
        unroll16!(jj => {
            if jj < nt {
                unroll4!(e => {
                    let (h, k) = ((e / 2) as usize, (2 * (jj % 2) + e % 2) as usize);
                    mx[h][k] = mx[h][k].max(s[(4 * jj + e) as usize]);
                });
            }
        });
        let mx = [mx[0][0].max(mx[0][1]).max(mx[0][2].max(mx[0][3])), mx[1][0].max(mx[1][1]).max(mx[1][2].max(mx[1][3]))];
        // SAFETY: forwarded (converged warp).
        let row_max = unsafe { [quad_max(mx[0]) * c, quad_max(mx[1]) * c] };
        let jump = [row_max[0] > r_m[0] + LAZY_RESCALE_LOG2, row_max[1] > r_m[1] + LAZY_RESCALE_LOG2];
        let mut moved = None;
        // SAFETY: forwarded (converged warp).
        if unsafe { vote_any(jump[0] || jump[1]) } {
            let m_new = [if jump[0] { row_max[0] } else { r_m[0] }, if jump[1] { row_max[1] } else { r_m[1] }];
            let corr = [ex2_approx_f32(r_m[0] - m_new[0]), ex2_approx_f32(r_m[1] - m_new[1])];
            *r_m = m_new;
            *r_l = [r_l[0] * corr[0], r_l[1] * corr[1]];
            moved = Some(corr);
        }
        let m = *r_m;
        let mut sum = [[0f32; 2]; 2];
        unroll16!(jj => {
            if jj < nt {
                unroll4!(e => {
                    let x = &mut s[(4 * jj + e) as usize];
                    *x = ex2_approx_f32(fma_rn_f32(*x, c, -m[(e / 2) as usize]));
                    sum[(e / 2) as usize][(e % 2) as usize] += *x;
                });
            }
        });
        *r_l = [r_l[0] + (sum[0][0] + sum[0][1]), r_l[1] + (sum[1][0] + sum[1][1])];
        moved
    }
}

/// P (f32, from [`Softmax::tile_64`]) packed to `E` as P·V's A fragments: n-tile `jj` of 8 keys into K-step
/// `jj / 2`. Kept apart from the softmax so that P's registers are written only after the previous P·V,
/// which reads them, retired.
#[inline(always)]
fn pack_p<E: Elem16, const SN: usize>(s: &[f32; SN]) -> P {
    let mut p = [[0u32; 4]; 5];
    unroll16!(jj => {
        if jj < SN as u32 / 4 {
            let i = (4 * jj) as usize;
            p[kstep(jj / 2)][(2 * (jj % 2)) as usize] = E::pack(s[i], s[i + 1]);
            p[kstep(jj / 2)][(2 * (jj % 2) + 1) as usize] = E::pack(s[i + 2], s[i + 3]);
        }
    });
    p
}

/// O's rows times `corr` (row half 0, 1).
#[inline(always)]
fn rescale(o: &mut Out, corr: [f32; 2]) {
    unroll4!(b => {
        unroll8!(jj => {
            let x = &mut o[b as usize];
            let i = (4 * jj) as usize;
            x[i] *= corr[0];
            x[i + 1] *= corr[0];
            x[i + 2] *= corr[1];
            x[i + 3] *= corr[1];
        });
    });
}

/// The epilogue: the rows' full sums (across the quad), O / sum stored token-major for this thread's
/// rows of sequence `b` (rows `< q_len` only) and head `head`, and (lane `t = 0`) their natural
/// log-sum-exp.
///
/// # Safety
/// All 32 lanes of the warp, converged; `cu_q` as [`prefill`] read it, `b` a sequence of it; `g_o` and `g_lse` hold the packed
/// `[tokens][heads][256]` O and `[tokens][heads]` LSE, `head < heads`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn store_o<E: Elem16>(g_o: *mut u16, g_lse: *mut f32, cu_q: *const i32, b: u32, heads: u32, head: u32, row: [u32; 2], t: u32, o: &Out,
                             r_m: [f32; 2], r_l: [f32; 2]) {
    // SAFETY: forwarded (converged warp; stores only for rows < q_len of head `head`, columns < 256).
    unsafe {
        // The sequence's first query and its length, loaded again rather than kept through the key loop.
        let b = opaque(b) as usize;
        let (q_start, q_end) = (ld_global_nc_s32(cu_q.add(b)), ld_global_nc_s32(cu_q.add(b + 1)));
        let q_len = (q_end - q_start).max(0) as u32;
        let sum = [quad_sum(r_l[0]), quad_sum(r_l[1])];
        let inv = [1.0 / sum[0], 1.0 / sum[1]];
        unroll2!(h => {
            let h = h as usize;
            if row[h] < q_len {
                let token = (q_start as u32 + row[h]) as usize * heads as usize + head as usize;
                let go = g_o.add(token * D as usize);
                unroll4!(bb => {
                    unroll8!(jj => {
                        let i = (4 * jj) as usize + 2 * h;
                        let col = 64 * bb + 8 * jj + 2 * t;
                        *(go.add(col as usize) as *mut u32) = E::pack(o[bb as usize][i] * inv[h], o[bb as usize][i + 1] * inv[h]);
                    });
                });
                if t == 0 {
                    *g_lse.add(token) = (r_m[h] + lg2_approx_f32(sum[h])) * core::f32::consts::LN_2;
                }
            }
        });
    }
}

/// The body of a24 (`PERSISTENT = false`: one CTA a unit, its own from the grid) and a25 (`PERSISTENT`:
/// one CTA an SM walking the host's sorted units, [`Walk`]; the K/V ring runs on across units, and the
/// next unit's Q is loaded once every consumer warp released this one's), both with 64-key tiles, and
/// a28 (a25 with `BKV = 80`): a producer thread streams Q with K of key tile 0, and K and V of every key
/// tile as separate ring entries, while two consumer warpgroups (64 query rows each) run the pipelined
/// loop. `SN = BKV / 2` (S's registers a thread).
///
/// # Safety
/// As the a24, a25 and a28 entries ([`prefill_d256_entry!`]).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn prefill<E: Elem16, const PERSISTENT: bool, const BKV: u32, const SN: usize, const CROSS: bool>(tmap_q: *const TensorMap, tmap_k: *const TensorMap,
                                                                                                 tmap_v: *const TensorMap, g_o: *mut u16, g_lse: *mut f32,
                                                                                                 cu_q: *const i32, cu_k: *const i32, dims: PrefillDims,
                                                                                                 tiles: *const u32, units: u32)
where [f32; SN]: ScoreTile {
    const { assert!(2 * SN as u32 == BKV && BKV % 16 == 0 && BKV <= 80) }; // P holds five K-steps
    const { assert!(!CROSS || PERSISTENT) }; // a31: units follow each other in one CTA
    let (half, kv_box) = (a24_half_bytes_of(BKV), a24_box_bytes_of(BKV));
    let walk = Walk::<PERSISTENT, BKV>::new(tiles, units);
    if !PERSISTENT {
        // A CTA with nothing to do leaves before any barrier or load.
        let mut w = walk;
        // SAFETY: the entry's contract (the grid's block z < batch).
        if unsafe { w.next(cu_q, cu_k, dims) }.is_none() {
            return;
        }
    }
    let causal = dims.causal != 0;
    // SAFETY (the whole body): the ring protocol of a19's, with K of key tile j of a unit at running
    // index it0 + 2j and its V at it0 + 2j + 1 (it0 running on across a25's units): the producer waits
    // for an entry's release before refilling it and announces each fill by one expect_tx of its bytes
    // (Q's too with K of a unit's tile 0; a25: only once every consumer warp released the last unit's
    // Q on `q_empty`, after that unit's last S retired); every consumer warp waits for an entry's full
    // barrier before the `wgmma` that reads it is issued, and releases it once after that `wgmma`
    // retired (K after the `wait_group` that retires S, V after the one that retires P·V). Producer and
    // consumers walk the same units (the same `Walk` over the same unwritten inputs). The TMA boxes
    // stay inside the maps (coordinates below 2^31: host), rows past the tensor zero-filled. `wgmma`:
    // all 128 threads of a warpgroup, warpgroup-uniform descriptors inside the landed tiles;
    // accumulators pinned after each wait and before each fence; S of the next tile not read before
    // the wait that retires it, O not written while P·V is in flight. Stores only for rows < q_len.
    unsafe {
        warp_specialized! {
            ring: let (ring, s_q) = (A24_HALVES, half, a6_q_bytes(D) + if PERSISTENT { 8 } else { 0 });
            thread: tid, warpgroup: wg;
            setup: {
                // a25: Q's empty barrier, one arrival per consumer warp (initialized before the ring's
                // `fence.mbarrier_init` by the same thread, published by the same block barrier).
                let q_empty = s_q + a6_q_bytes(D);
                let _ = if PERSISTENT && tid == 0 { mbarrier_init(q_empty, CONSUMER_WARPS) };
            }
            tensor_maps: (tmap_k, tmap_v);
            producer: {
                let (mut walk, mut it0, mut k) = (walk, 0, 0);
                while let Some(w) = walk.next(cu_q, cu_k, dims) {
                    let q_row = (w.q_start + w.qt * BQ) as i32;
                    for j in 0..w.n_tiles {
                        let key0 = (w.k_start + j * BKV) as i32;
                        ring.wait_empty(it0 + 2 * j);
                        if PERSISTENT && j == 0 && k > 0 {
                            mbarrier_wait_parity(q_empty, (k - 1) & 1); // the last unit's consumers are done with Q
                        }
                        let (s_k, full_k, _, _) = ring.at(it0 + 2 * j);
                        mbarrier_arrive_expect_tx(full_k, half + if j == 0 { a6_q_bytes(D) } else { 0 });
                        for bx in 0..BOXES {
                            if j == 0 {
                                cp_async_bulk_tensor_3d_g2s(s_q + bx * Q_BOX, tmap_q, (64 * bx) as i32, w.head as i32, q_row, full_k);
                            }
                            cp_async_bulk_tensor_3d_g2s(s_k + bx * kv_box, tmap_k, (64 * bx) as i32, w.kv_head as i32, key0, full_k);
                        }
                        ring.wait_empty(it0 + 2 * j + 1);
                        let (s_v, full_v, _, _) = ring.at(it0 + 2 * j + 1);
                        mbarrier_arrive_expect_tx(full_v, half);
                        for bx in 0..BOXES {
                            cp_async_bulk_tensor_3d_g2s(s_v + bx * kv_box, tmap_v, (64 * bx) as i32, w.kv_head as i32, key0, full_v);
                        }
                    }
                    it0 += 2 * w.n_tiles;
                    k += 1;
                }
            }
            consumer(mh): {
                let (warp, lane) = ((tid / 32) % 4, lane_id());
                let (g, t) = (lane / 4, lane % 4);
                // This warpgroup's 64 rows of every Q box (128 rows of 128 bytes).
                let d_q = K_MAJOR.advance(s_q + mh * 64 * 128);
                // a25: this warp is done with Q once the unit's last S retired.
                let release_q = || {
                    if PERSISTENT && lane == 0 {
                        mbarrier_arrive(q_empty);
                    }
                };
                // Tile 0's S and softmax of a unit (O is zero: its correction is not needed): its P and the
                // rows' running max (base 2) and per-thread sum.
                macro_rules! first_tile {
                    ($softmax:expr, $n_tiles:expr, $it0:expr) => {{
                        let mut r_m = [-1e30f32; 2]; // running max (base 2) per row half
                        let mut r_l = [0f32; 2]; // running per-thread sum per row half
                        ring.wait_full($it0);
                        let mut s = issue_scores::<E, BKV, SN>(d_q, ring.at($it0).0);
                        wgmma_wait_group::<0>();
                        s.fence();
                        ring.release($it0);
                        if $n_tiles == 1 {
                            release_q();
                        }
                        let _ = $softmax.tile_64(&mut s, 0, &mut r_m, &mut r_l);
                        (pack_p::<E, SN>(&s), r_m, r_l)
                    }};
                }
                // Tile j < last: S of j + 1 and P·V of j in flight together; the softmax of j + 1 under P·V of
                // j; P of j + 1 packed, and O rescaled where a row's max moved, once P·V of j retired. The last
                // tile's P·V is the caller's, after the loop: with an `if` around the next S inside the loop
                // (a19's form), ptxas could not tell that the `wait_group 1` retires S on every path and
                // serialized every `wgmma` (C7514).
                macro_rules! key_tiles {
                    ($softmax:expr, $k_len:expr, $n_tiles:expr, $it0:expr, $o:ident, $p:ident, $r_m:ident, $r_l:ident) => {
                        for j in 0..$n_tiles - 1 {
                            ring.wait_full($it0 + 2 * j + 2);
                            let mut s_next = issue_scores::<E, BKV, SN>(d_q, ring.at($it0 + 2 * j + 2).0);
                            ring.wait_full($it0 + 2 * j + 1);
                            issue_pv::<E, BKV>(&mut $o, &$p, ring.at($it0 + 2 * j + 1).0);
                            wgmma_wait_group::<1>(); // S of tile j + 1 (committed first) retired
                            s_next.fence();
                            ring.release($it0 + 2 * j + 2);
                            if j + 2 == $n_tiles {
                                release_q();
                            }
                            let moved = $softmax.tile_64(&mut s_next, j + 1, &mut $r_m, &mut $r_l);
                            block_boundary($k_len);
                            wgmma_wait_group::<0>();
                            pin_o(&mut $o);
                            ring.release($it0 + 2 * j + 1);
                            $p = pack_p::<E, SN>(&s_next);
                            if let Some(corr) = moved {
                                rescale(&mut $o, corr);
                            }
                        }
                    };
                }
                // A unit's last P·V with nothing beside it (the V tile at ring index `$last` has landed).
                macro_rules! last_tile_alone {
                    ($o:ident, $p:ident, $last:expr) => {{
                        issue_pv::<E, BKV>(&mut $o, &$p, ring.at($last).0);
                        wgmma_wait_group::<0>();
                        pin_o(&mut $o);
                        ring.release($last);
                    }};
                }
                let softmax_of = |w: &crate::attention::units::Unit| {
                    let row_of = |h: u32| w.qt * BQ + 64 * mh + 16 * warp + g + 8 * h;
                    Softmax { l: w.k_len, causal, off: w.off, qt: w.qt, scale2: dims.scale * core::f32::consts::LOG2_E, row: [row_of(0), row_of(1)], t }
                };
                let (mut walk, mut it0) = (walk, 0);
                if !CROSS {
                    while let Some(w) = walk.next(cu_q, cu_k, dims) {
                        let n_tiles = w.n_tiles;
                        let softmax = softmax_of(&w);
                        let mut o: Out = [[0f32; 32]; 4];
                        let (mut p, mut r_m, mut r_l) = first_tile!(softmax, n_tiles, it0);
                        key_tiles!(softmax, w.k_len, n_tiles, it0, o, p, r_m, r_l);
                        let last = it0 + 2 * n_tiles - 1;
                        ring.wait_full(last);
                        last_tile_alone!(o, p, last);
                        store_o::<E>(g_o, g_lse, cu_q, w.b, dims.heads, w.head, softmax.row, t, &o, r_m, r_l);
                        it0 += 2 * n_tiles;
                    }
                } else {
                    let mut next = walk.next(cu_q, cu_k, dims);
                    // a31 (`CROSS`): P of the unit's first tile and its running max and sum, computed under the
                    // last unit's last P·V.
                    let mut carried: Option<(P, [f32; 2], [f32; 2])> = None;
                    while let Some(w) = next {
                        let n_tiles = w.n_tiles;
                        let softmax = softmax_of(&w);
                        let mut o: Out = [[0f32; 32]; 4];
                        let (mut p, mut r_m, mut r_l) = match carried.take() {
                            Some(c) => c,
                            None => first_tile!(softmax, n_tiles, it0),
                        };
                        key_tiles!(softmax, w.k_len, n_tiles, it0, o, p, r_m, r_l);
                        let last = it0 + 2 * n_tiles - 1;
                        next = walk.next(cu_q, cu_k, dims);
                        ring.wait_full(last);
                        match next {
                            Some(nw) => {
                                // a31: the next unit's first S issued with this unit's last P·V (its Q loaded once
                                // every consumer warp released this unit's, after this unit's last S), its softmax
                                // under that P·V, as a tile of the loop.
                                let n0 = it0 + 2 * n_tiles;
                                ring.wait_full(n0);
                                let mut s0 = issue_scores::<E, BKV, SN>(d_q, ring.at(n0).0);
                                issue_pv::<E, BKV>(&mut o, &p, ring.at(last).0);
                                wgmma_wait_group::<1>(); // the next unit's S (committed first) retired
                                s0.fence();
                                ring.release(n0);
                                if nw.n_tiles == 1 {
                                    release_q();
                                }
                                let (mut m0, mut l0) = ([-1e30f32; 2], [0f32; 2]);
                                let _ = softmax_of(&nw).tile_64(&mut s0, 0, &mut m0, &mut l0);
                                block_boundary(nw.k_len);
                                wgmma_wait_group::<0>();
                                pin_o(&mut o);
                                ring.release(last);
                                carried = Some((pack_p::<E, SN>(&s0), m0, l0));
                            }
                            _ => last_tile_alone!(o, p, last),
                        }
                        store_o::<E>(g_o, g_lse, cu_q, w.b, dims.heads, w.head, softmax.row, t, &o, r_m, r_l);
                        it0 += 2 * n_tiles;
                    }
                }
            }
        }
    }
}

/// Declares an a24 entry for one element type, `prefill_d256_entry!(attn_a24_d256_f16, F16, false, 64)`, an
/// a25 one (persistent), `…, true, 64)`, or an a28 one (persistent, 80-key tiles), `…, true, 80)`. All take
/// the same parameters; a24 ignores `tiles` and `units`.
macro_rules! prefill_d256_entry {
    ($name:ident, $e:ty, $persistent:literal, $bkv:literal) => {
        $crate::attention::hopper_wide::prefill_d256_entry!($name, $e, $persistent, $bkv, false);
    };
    // a31: with each unit's first S and softmax under the last unit's last P·V (`$cross`).
    ($name:ident, $e:ty, $persistent:literal, $bkv:literal, $cross:literal) => {
        /// Attention forward at head dim 256 over a packed batch of sequences of different lengths with
        /// grouped heads (a24/a25/a28, module docs): `o` (`[tokens][heads][256]`) and the natural
        /// log-sum-exp `lse` (`[tokens][heads]`) of sequence `b`'s queries `cu_q[b]..cu_q[b + 1]` against
        /// its keys `cu_k[b]..cu_k[b + 1]`.
        ///
        /// # Safety
        /// `tmap_q`: a 3-D tensor map (in global memory) of Q, dims (256, heads, tokens_q), boxes
        /// 64 × 1 × 128, `SWIZZLE_128B`; `tmap_k`, `tmap_v` the same of K and V with the K/V heads,
        /// tokens_k and boxes 64 × 1 × the entry's key tile (64; a28: 80); `o` and `lse` hold
        /// `tokens_q · heads · 256` and `tokens_q · heads` writable elements; `cu_q`, `cu_k`: `batch + 1`
        /// non-decreasing `i32` in global memory ending at tokens_q and tokens_k, unwritten during the
        /// kernel, every sequence with queries having keys (and, causal, at least as many);
        /// `dims.head_dim = 256`, `dims.heads = kv_heads · dims.group`; 384 threads,
        /// `layout::attention::a24_smem()` (a25: `a25_smem()`, a28: `a28_smem()`) bytes of dynamic shared
        /// memory. a24: grid `(⌈max q_len / 128⌉, heads, batch)`. a25, a28: grid `(n, 1, 1)`, `n ≥ 1`;
        /// `tiles` holds `3 · units` `u32` (sequence `< batch`, query tile, head `< heads`), unwritten
        /// during the kernel.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(tmap_q: *const $crate::prim::tma::TensorMap, tmap_k: *const $crate::prim::tma::TensorMap,
                                                tmap_v: *const $crate::prim::tma::TensorMap, o: *mut u16, lse: *mut f32, cu_q: *const i32, cu_k: *const i32,
                                                dims: layout::attention::PrefillDims, tiles: *const u32, units: u32) {
            // SAFETY: forwarded.
            unsafe {
                $crate::attention::hopper_wide::prefill::<$e, $persistent, $bkv, { $bkv as usize / 2 }, $cross>(tmap_q, tmap_k, tmap_v, o, lse, cu_q, cu_k,
                                                                                                                dims, tiles, units)
            }
        }
        // 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
        $crate::launch_bounds::launch_bounds!($name, 384, 1);
    };
}
pub(crate) use prefill_d256_entry;
