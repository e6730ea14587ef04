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
use crate::attention::hopper::{LAZY_RESCALE_LOG2, Softmax, block_boundary, pin_p};
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
use layout::attention::{A6_BOX_BYTES as Q_BOX, A6_BQ as BQ, PrefillDims, a6_q_bytes, a24_box_bytes_of, needs_mask_off, wide_entries, wide_entries_kv1,
                        wide_half_bytes};
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
/// P's index of K-step `kk` in a P of `n` K-steps (`kk < n` where the caller's guard holds; clamped so
/// that rustc's const propagation, which does not see a guard on a const-generic count, finds no
/// out-of-bounds index in the unrolled iterations the guard removes).
#[inline(always)]
const fn kstep(kk: u32, n: usize) -> usize {
    if (kk as usize) < n { kk as usize } else { n - 1 }
}

/// O of one consumer thread: its warpgroup's 64 rows × the head's `HD` columns as `HD / 64` blocks of 64
/// columns (`wgmma` accumulator order) — `[[f32; 32]; 4]` at D = 256 (a24–a31), `[[f32; 32]; 2]` at 128
/// (a32) — and the P·V instruction of that width.
pub(super) trait OutTile: Sized {
    /// Head dims (O's columns).
    const HD: u32;
    /// All zeros.
    fn zero() -> Self;
    /// Block `b` (< `HD / 64`) of 64 columns.
    fn block(&mut self, b: usize) -> &mut [f32; 32];
    /// [`wgmma_fence_operand`] on every block (constant indices keep the blocks in registers).
    fn pin(&mut self);
    /// One K-step of O += P·V: `wgmma.m64nHDk16`, A = `a` from registers, B = V MN-major at `desc_b`.
    ///
    /// # Safety
    /// As the `wgmma` wrappers: all 128 threads of a warpgroup, after `wgmma_fence`, the descriptor inside
    /// a landed tile.
    unsafe fn pv_step<E: Elem16>(&mut self, a: [u32; 4], desc_b: u64);
}

impl OutTile for [[f32; 32]; 4] {
    const HD: u32 = 256;
    #[inline(always)]
    fn zero() -> Self {
        [[0f32; 32]; 4]
    }
    #[inline(always)]
    fn block(&mut self, b: usize) -> &mut [f32; 32] {
        &mut self[b]
    }
    #[inline(always)]
    fn pin(&mut self) {
        let [a, b, c, d] = self;
        wgmma_fence_operand(a);
        wgmma_fence_operand(b);
        wgmma_fence_operand(c);
        wgmma_fence_operand(d);
    }
    #[inline(always)]
    unsafe fn pv_step<E: Elem16>(&mut self, a: [u32; 4], desc_b: u64) {
        // SAFETY: forwarded to the caller.
        unsafe { E::wgmma_256_rs::<1>(self, a, desc_b, 1) }
    }
}

impl OutTile for [[f32; 32]; 2] {
    const HD: u32 = 128;
    #[inline(always)]
    fn zero() -> Self {
        [[0f32; 32]; 2]
    }
    #[inline(always)]
    fn block(&mut self, b: usize) -> &mut [f32; 32] {
        &mut self[if b < 2 { b } else { 1 }] // (clamped as `kstep`: the callers' guard keeps b < 2)
    }
    #[inline(always)]
    fn pin(&mut self) {
        let [a, b] = self;
        wgmma_fence_operand(a);
        wgmma_fence_operand(b);
    }
    #[inline(always)]
    unsafe fn pv_step<E: Elem16>(&mut self, a: [u32; 4], desc_b: u64) {
        // SAFETY: forwarded to the caller.
        unsafe { E::wgmma_128_rs::<1>(self, a, desc_b, 1) }
    }
}

/// S of one warpgroup and key tile: the accumulator of `wgmma.m64nNk16` for N = the tile's keys, one
/// register per key pair a thread (`[f32; 32]`: 64 keys, a24 and a25; `[f32; 40]`: 80 keys, a28), in
/// the instruction's fragment order (n-tile `jj` of 8 keys in registers `4jj..4jj + 4`).
pub(super) trait ScoreTile: Sized {
    /// P of the tile as P·V's A fragments: K-step `kk` (16 keys) holds n-tiles `2kk`, `2kk + 1` —
    /// `[[u32; 4]; 5]` for a28's and a31's 80 keys and a24's and a25's 64 (the fifth never written nor
    /// read), `[[u32; 4]; 8]` for a32's 128.
    type P: Copy + core::ops::IndexMut<usize, Output = [u32; 4]>;
    /// P's K-steps (its length).
    const P_STEPS: usize;
    /// A P of zeros (every entry written by [`pack_p`] before it is read).
    fn p_zero() -> Self::P;
    /// P's registers and the sums fixed at this point of the program (a33's exponentials kept ahead of the
    /// max's branch: [`hopper::pin_p`](crate::attention::hopper::pin_p) on a 128-key P; nothing for the
    /// narrower tiles, which a33 does not use).
    fn pin_p(_p: &mut Self::P, _sum: &mut [f32; 2]) {}
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
    type P = [[u32; 4]; 5];
    const P_STEPS: usize = 5;
    #[inline(always)]
    fn p_zero() -> Self::P {
        [[0u32; 4]; 5]
    }
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
    type P = [[u32; 4]; 5];
    const P_STEPS: usize = 5;
    #[inline(always)]
    fn p_zero() -> Self::P {
        [[0u32; 4]; 5]
    }
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

impl ScoreTile for [f32; 64] {
    type P = [[u32; 4]; 8];
    const P_STEPS: usize = 8;
    #[inline(always)]
    fn p_zero() -> Self::P {
        [[0u32; 4]; 8]
    }
    #[inline(always)]
    fn pin_p(p: &mut Self::P, sum: &mut [f32; 2]) {
        pin_p(p, sum);
    }
    #[inline(always)]
    unsafe fn first<E: Elem16>(desc_a: u64, desc_b: u64) -> Self {
        let mut s = [0f32; 64];
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

/// Issues (and commits, without waiting) S = Q·Kᵀ for this warpgroup's 64 rows (`d_q`) and the K tile
/// of `BKV` keys at `s_k`: `HD / 16` `wgmma.m64nBKVk16`, one per 16 head dims, both operands K-major. Valid
/// after the `wgmma_wait_group` that retires the group.
///
/// # Safety
/// All 128 threads of a consumer warpgroup; Q and the K tile have landed, nobody writes them until the
/// group retires, and the result is not read before then.
#[inline(always)]
unsafe fn issue_scores<E: Elem16, O: OutTile, const BKV: u32, const SN: usize>(d_q: WgmmaDesc, s_k: u32) -> [f32; SN]
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
            if ks > 0 && ks < O::HD / 16 {
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
/// `wgmma.m64nHDk16` of 16 keys, A = P from registers, B = V MN-major.
///
/// # Safety
/// All 128 threads of a consumer warpgroup; the V tile has landed and nobody writes it, nor `o` or `p`,
/// until the group retires.
#[inline(always)]
unsafe fn issue_pv<E: Elem16, O: OutTile, S: ScoreTile, const BKV: u32>(o: &mut O, p: &S::P, s_v: u32) {
    o.pin();
    // SAFETY: forwarded to the caller.
    unsafe {
        wgmma_fence();
        unroll8!(kk => {
            if kk < BKV / 16 {
                o.pv_step::<E>(p[kstep(kk, S::P_STEPS)], v_mn_major(BKV).advance(s_v + 2048 * kk).0);
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

/// a33: a9's softmax on the wide body's tiles ([`Softmax::tile_lazy`](crate::attention::hopper) over `2 · SN` keys).
impl Softmax {
    /// Tile `j`'s softmax against the running max `r_m` as it stands: P = 2^(x·c − r_m) exponentiated and
    /// packed into `p` (a second P set: the previous P·V still reads the first) while the rows' max is
    /// taken; only where a row's max exceeds `r_m` by more than 2^8 does the warp move the max and
    /// exponentiate again from the raw scores, which `s` still holds. Returns O's correction when the max
    /// moved, `None` otherwise.
    ///
    /// # Safety
    /// All 32 lanes of the warp, converged (quad shuffles, the vote).
    #[inline(always)]
    unsafe fn tile_lazy_wide<E: Elem16, const SN: usize>(self, s: &mut [f32; SN], j: u32, r_m: &mut [f32; 2], r_l: &mut [f32; 2],
                                                         p: &mut <[f32; SN] as ScoreTile>::P) -> Option<[f32; 2]>
    where [f32; SN]: ScoreTile {
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
        let mut sum = exp_pack::<E, SN>(s, c, *r_m, p);
        // The exponentials stay ahead of the branch below (LLVM would sink them into it, after the max).
        <[f32; SN]>::pin_p(p, &mut sum);
        // SAFETY: forwarded (converged warp).
        let row_max = unsafe { [quad_max(mx[0]) * c, quad_max(mx[1]) * c] };
        let jump = [row_max[0] > r_m[0] + LAZY_RESCALE_LOG2, row_max[1] > r_m[1] + LAZY_RESCALE_LOG2];
        // SAFETY: forwarded (converged warp).
        if unsafe { vote_any(jump[0] || jump[1]) } {
            let m_new = [if jump[0] { row_max[0] } else { r_m[0] }, if jump[1] { row_max[1] } else { r_m[1] }];
            let corr = [ex2_approx_f32(r_m[0] - m_new[0]), ex2_approx_f32(r_m[1] - m_new[1])];
            let sum = exp_pack::<E, SN>(s, c, m_new, p);
            *r_m = m_new;
            *r_l = [r_l[0] * corr[0] + sum[0], r_l[1] * corr[1] + sum[1]];
            Some(corr)
        } else {
            *r_l = [r_l[0] + sum[0], r_l[1] + sum[1]];
            None
        }
    }
}

/// P = 2^(x·c − m[row]) of the scores `s` (left as they are), packed into `p` as [`pack_p`] does; returns the
/// rows' sums of P (f32, before rounding).
#[inline(always)]
fn exp_pack<E: Elem16, const SN: usize>(s: &[f32; SN], c: f32, m: [f32; 2], p: &mut <[f32; SN] as ScoreTile>::P) -> [f32; 2]
where [f32; SN]: ScoreTile {
    let n = <[f32; SN] as ScoreTile>::P_STEPS;
    let mut sum = [[0f32; 2]; 2];
    unroll16!(jj => {
        if jj < SN as u32 / 4 {
            let i = (4 * jj) as usize;
            let e = [ex2_approx_f32(fma_rn_f32(s[i], c, -m[0])), ex2_approx_f32(fma_rn_f32(s[i + 1], c, -m[0])),
                     ex2_approx_f32(fma_rn_f32(s[i + 2], c, -m[1])), ex2_approx_f32(fma_rn_f32(s[i + 3], c, -m[1]))];
            sum[0][0] += e[0];
            sum[0][1] += e[1];
            sum[1][0] += e[2];
            sum[1][1] += e[3];
            p[kstep(jj / 2, n)][(2 * (jj % 2)) as usize] = E::pack(e[0], e[1]);
            p[kstep(jj / 2, n)][(2 * (jj % 2) + 1) as usize] = E::pack(e[2], e[3]);
        }
    });
    [sum[0][0] + sum[0][1], sum[1][0] + sum[1][1]]
}

/// P (f32, from [`Softmax::tile_64`]) packed to `E` as P·V's A fragments: n-tile `jj` of 8 keys into K-step
/// `jj / 2`. Kept apart from the softmax so that P's registers are written only after the previous P·V,
/// which reads them, retired.
#[inline(always)]
fn pack_p<E: Elem16, const SN: usize>(s: &[f32; SN]) -> <[f32; SN] as ScoreTile>::P
where [f32; SN]: ScoreTile {
    let n = <[f32; SN] as ScoreTile>::P_STEPS;
    let mut p = <[f32; SN]>::p_zero();
    unroll16!(jj => {
        if jj < SN as u32 / 4 {
            let i = (4 * jj) as usize;
            p[kstep(jj / 2, n)][(2 * (jj % 2)) as usize] = E::pack(s[i], s[i + 1]);
            p[kstep(jj / 2, n)][(2 * (jj % 2) + 1) as usize] = E::pack(s[i + 2], s[i + 3]);
        }
    });
    p
}

/// O's rows times `corr` (row half 0, 1).
#[inline(always)]
fn rescale<O: OutTile>(o: &mut O, corr: [f32; 2]) {
    unroll4!(b => {
        if b < O::HD / 64 {
            unroll8!(jj => {
                let x = o.block(b as usize);
                let i = (4 * jj) as usize;
                x[i] *= corr[0];
                x[i + 1] *= corr[0];
                x[i + 2] *= corr[1];
                x[i + 3] *= corr[1];
            });
        }
    });
}

/// The epilogue: the rows' full sums (across the quad), O / sum stored token-major for this thread's
/// rows of sequence `b` (rows `< q_len` only) and head `head`, and (lane `t = 0`) their natural
/// log-sum-exp.
///
/// # Safety
/// All 32 lanes of the warp, converged; `cu_q` as [`prefill`] read it, `b` a sequence of it; `g_o` and `g_lse` hold the packed
/// `[tokens][heads][HD]` O and `[tokens][heads]` LSE, `head < heads`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn store_o<E: Elem16, O: OutTile>(g_o: *mut u16, g_lse: *mut f32, cu_q: *const i32, b: u32, heads: u32, head: u32, row: [u32; 2], t: u32,
                                         o: &mut O, r_m: [f32; 2], r_l: [f32; 2]) {
    // SAFETY: forwarded (converged warp; stores only for rows < q_len of head `head`, columns < HD).
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
                let go = g_o.add(token * O::HD as usize);
                unroll4!(bb => {
                    if bb < O::HD / 64 {
                        unroll8!(jj => {
                            let i = (4 * jj) as usize + 2 * h;
                            let col = 64 * bb + 8 * jj + 2 * t;
                            let x = o.block(bb as usize);
                            *(go.add(col as usize) as *mut u32) = E::pack(x[i] * inv[h], x[i + 1] * inv[h]);
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
pub(super) unsafe fn prefill<E: Elem16, O: OutTile, const PERSISTENT: bool, const BKV: u32, const SN: usize, const CROSS: bool, const LAZY: bool,
                                 const KV1: bool>(
                                                                                                 tmap_q: *const TensorMap,
                                                                                                 tmap_k: *const TensorMap,
                                                                                                 tmap_v: *const TensorMap, g_o: *mut u16, g_lse: *mut f32,
                                                                                                 cu_q: *const i32, cu_k: *const i32, dims: PrefillDims,
                                                                                                 tiles: *const u32, units: u32)
where [f32; SN]: ScoreTile {
    const { assert!(2 * SN as u32 == BKV && BKV % 16 == 0 && BKV <= 128) }; // P holds eight K-steps
    const { assert!(!CROSS || PERSISTENT) }; // a31, a32: units follow each other in one CTA
    let (hd, boxes, entries) = (O::HD, const { O::HD / 64 }, const { if KV1 { wide_entries_kv1(O::HD, BKV) } else { wide_entries(O::HD, BKV) } });
    let (half, kv_box) = (const { wide_half_bytes(BKV, O::HD) }, a24_box_bytes_of(BKV));
    // x34 (`KV1`): K and V of a key tile in one ring entry (K, then V `half` bytes on), waited for once and
    // released once P·V retired (a26's stages); else K of tile j at running index 2j, its V at 2j + 1.
    // `ks`: ring entries a key tile; `vo`: V's entry past K's; `voff`: V's bytes into its entry.
    let (ks, vo, voff, entry) = if KV1 { (1u32, 0u32, half, 2 * half) } else { (2, 1, 0, half) };
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
            ring: let (ring, s_q) = (entries, entry, a6_q_bytes(hd) + if PERSISTENT { 8 } else { 0 });
            thread: tid, warpgroup: wg;
            setup: {
                // a25: Q's empty barrier, one arrival per consumer warp (initialized before the ring's
                // `fence.mbarrier_init` by the same thread, published by the same block barrier).
                let q_empty = s_q + a6_q_bytes(hd);
                let _ = if PERSISTENT && tid == 0 { mbarrier_init(q_empty, CONSUMER_WARPS) };
            }
            tensor_maps: (tmap_k, tmap_v);
            producer: {
                let (mut walk, mut it0, mut k) = (walk, 0, 0);
                while let Some(w) = walk.next(cu_q, cu_k, dims) {
                    let q_row = (w.q_start + w.qt * BQ) as i32;
                    for j in 0..w.n_tiles {
                        let key0 = (w.k_start + j * BKV) as i32;
                        ring.wait_empty(it0 + ks * j);
                        if PERSISTENT && j == 0 && k > 0 {
                            mbarrier_wait_parity(q_empty, (k - 1) & 1); // the last unit's consumers are done with Q
                        }
                        let (s_k, full_k, _, _) = ring.at(it0 + ks * j);
                        mbarrier_arrive_expect_tx(full_k, entry + if j == 0 { a6_q_bytes(hd) } else { 0 });
                        for bx in 0..boxes {
                            if j == 0 {
                                cp_async_bulk_tensor_3d_g2s(s_q + bx * Q_BOX, tmap_q, (64 * bx) as i32, w.head as i32, q_row, full_k);
                            }
                            cp_async_bulk_tensor_3d_g2s(s_k + bx * kv_box, tmap_k, (64 * bx) as i32, w.kv_head as i32, key0, full_k);
                        }
                        let (s_v, full_v) = if KV1 {
                            (s_k + half, full_k)
                        } else {
                            ring.wait_empty(it0 + 2 * j + 1);
                            let (s_v, full_v, _, _) = ring.at(it0 + 2 * j + 1);
                            mbarrier_arrive_expect_tx(full_v, half);
                            (s_v, full_v)
                        };
                        for bx in 0..boxes {
                            cp_async_bulk_tensor_3d_g2s(s_v + bx * kv_box, tmap_v, (64 * bx) as i32, w.kv_head as i32, key0, full_v);
                        }
                    }
                    it0 += ks * w.n_tiles;
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
                        let mut s = issue_scores::<E, O, BKV, SN>(d_q, ring.at($it0).0);
                        wgmma_wait_group::<0>();
                        s.fence();
                        if !KV1 {
                            ring.release($it0);
                        }
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
                // a33: key tile `$j` < last with P of tile j in `$pc`, tile j + 1's P packed into `$pn` (a9's
                // exponentials ahead of the max), O rescaled where a row's max moved, once P·V of j retired.
                macro_rules! lazy_step {
                    ($softmax:expr, $k_len:expr, $n_tiles:expr, $it0:expr, $o:ident, $r_m:ident, $r_l:ident, $j:expr, $pc:ident, $pn:ident) => {{
                        let j: u32 = $j;
                        ring.wait_full($it0 + ks * (j + 1));
                        let mut s_next = issue_scores::<E, O, BKV, SN>(d_q, ring.at($it0 + ks * (j + 1)).0);
                        if !KV1 { ring.wait_full($it0 + ks * j + vo); }
                        issue_pv::<E, O, [f32; SN], BKV>(&mut $o, &$pc, ring.at($it0 + ks * j + vo).0 + voff);
                        wgmma_wait_group::<1>(); // S of tile j + 1 (committed first) retired
                        s_next.fence();
                        if !KV1 { ring.release($it0 + ks * (j + 1)); }
                        if j + 2 == $n_tiles {
                            release_q();
                        }
                        let moved = $softmax.tile_lazy_wide::<E, SN>(&mut s_next, j + 1, &mut $r_m, &mut $r_l, &mut $pn);
                        block_boundary($k_len);
                        wgmma_wait_group::<0>();
                        $o.pin();
                        ring.release($it0 + ks * j + vo);
                        if let Some(corr) = moved {
                            rescale(&mut $o, corr);
                        }
                    }};
                }
                macro_rules! key_tiles {
                    ($softmax:expr, $k_len:expr, $n_tiles:expr, $it0:expr, $o:ident, $p:ident, $r_m:ident, $r_l:ident) => {
                        if !LAZY {
                            for j in 0..$n_tiles - 1 {
                                ring.wait_full($it0 + ks * (j + 1));
                                let mut s_next = issue_scores::<E, O, BKV, SN>(d_q, ring.at($it0 + ks * (j + 1)).0);
                                if !KV1 { ring.wait_full($it0 + ks * j + vo); }
                                issue_pv::<E, O, [f32; SN], BKV>(&mut $o, &$p, ring.at($it0 + ks * j + vo).0 + voff);
                                wgmma_wait_group::<1>(); // S of tile j + 1 (committed first) retired
                                s_next.fence();
                                if !KV1 { ring.release($it0 + ks * (j + 1)); }
                                if j + 2 == $n_tiles {
                                    release_q();
                                }
                                let moved = $softmax.tile_64(&mut s_next, j + 1, &mut $r_m, &mut $r_l);
                                block_boundary($k_len);
                                wgmma_wait_group::<0>();
                                $o.pin();
                                ring.release($it0 + ks * j + vo);
                                $p = pack_p::<E, SN>(&s_next);
                                if let Some(corr) = moved {
                                    rescale(&mut $o, corr);
                                }
                            }
                        } else {
                            // a33 (`LAZY`): tile j + 1's exponentials packed, ahead of its max, into the P set that
                            // P·V of tile j does not read — two sets taking turns, two tiles an iteration (a26's
                            // form: a copy from one set to the other at the loop's end, LLVM gave both the same
                            // registers and ptxas serialized every `wgmma`, C7513).
                            let mut p_b = <[f32; SN]>::p_zero();
                            let mut j = 0;
                            while j + 1 < $n_tiles {
                                lazy_step!($softmax, $k_len, $n_tiles, $it0, $o, $r_m, $r_l, j, $p, p_b);
                                if j + 2 < $n_tiles {
                                    lazy_step!($softmax, $k_len, $n_tiles, $it0, $o, $r_m, $r_l, j + 1, p_b, $p);
                                }
                                j += 2;
                            }
                            if $n_tiles % 2 == 0 {
                                $p = p_b; // an odd number of steps: the last P in the second set
                            }
                        }
                    };
                }
                // A unit's last P·V with nothing beside it (the V tile at ring index `$last` has landed).
                macro_rules! last_tile_alone {
                    ($o:ident, $p:ident, $last:expr) => {{
                        issue_pv::<E, O, [f32; SN], BKV>(&mut $o, &$p, ring.at($last).0 + voff);
                        wgmma_wait_group::<0>();
                        $o.pin();
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
                        let mut o = O::zero();
                        let (mut p, mut r_m, mut r_l) = first_tile!(softmax, n_tiles, it0);
                        key_tiles!(softmax, w.k_len, n_tiles, it0, o, p, r_m, r_l);
                        let last = it0 + ks * (n_tiles - 1) + vo;
                        if !KV1 {
                            ring.wait_full(last);
                        }
                        last_tile_alone!(o, p, last);
                        store_o::<E, O>(g_o, g_lse, cu_q, w.b, dims.heads, w.head, softmax.row, t, &mut o, r_m, r_l);
                        it0 += ks * n_tiles;
                    }
                } else {
                    let mut next = walk.next(cu_q, cu_k, dims);
                    // a31 (`CROSS`): P of the unit's first tile and its running max and sum, computed under the
                    // last unit's last P·V.
                    let mut carried: Option<(<[f32; SN] as ScoreTile>::P, [f32; 2], [f32; 2])> = None;
                    while let Some(w) = next {
                        let n_tiles = w.n_tiles;
                        let softmax = softmax_of(&w);
                        let mut o = O::zero();
                        let (mut p, mut r_m, mut r_l) = match carried.take() {
                            Some(c) => c,
                            None => first_tile!(softmax, n_tiles, it0),
                        };
                        key_tiles!(softmax, w.k_len, n_tiles, it0, o, p, r_m, r_l);
                        let last = it0 + ks * (n_tiles - 1) + vo;
                        next = walk.next(cu_q, cu_k, dims);
                        if !KV1 {
                            ring.wait_full(last);
                        }
                        match next {
                            Some(nw) => {
                                // a31: the next unit's first S issued with this unit's last P·V (its Q loaded once
                                // every consumer warp released this unit's, after this unit's last S), its softmax
                                // under that P·V, as a tile of the loop.
                                let n0 = it0 + ks * n_tiles;
                                ring.wait_full(n0);
                                let mut s0 = issue_scores::<E, O, BKV, SN>(d_q, ring.at(n0).0);
                                issue_pv::<E, O, [f32; SN], BKV>(&mut o, &p, ring.at(last).0 + voff);
                                wgmma_wait_group::<1>(); // the next unit's S (committed first) retired
                                s0.fence();
                                if !KV1 {
                                    ring.release(n0);
                                }
                                if nw.n_tiles == 1 {
                                    release_q();
                                }
                                let (mut m0, mut l0) = ([-1e30f32; 2], [0f32; 2]);
                                let _ = softmax_of(&nw).tile_64(&mut s0, 0, &mut m0, &mut l0);
                                block_boundary(nw.k_len);
                                wgmma_wait_group::<0>();
                                o.pin();
                                ring.release(last);
                                carried = Some((pack_p::<E, SN>(&s0), m0, l0));
                            }
                            _ => last_tile_alone!(o, p, last),
                        }
                        store_o::<E, O>(g_o, g_lse, cu_q, w.b, dims.heads, w.head, softmax.row, t, &mut o, r_m, r_l);
                        it0 += ks * n_tiles;
                    }
                }
            }
        }
    }
}

/// Declares an a24 entry for one element type, `prefill_d256_entry!(attn_a24_d256_f16, F16, false, 64)`, an
/// a25 one (persistent), `…, true, 64)`, an a28 one (persistent, 80-key tiles), `…, true, 80)`, or an a31 one
/// (a28 with `$cross`), `…, true, 80, true)`: [`prefill_wide_entry!`] at head dim 256.
macro_rules! prefill_d256_entry {
    ($name:ident, $e:ty, $persistent:literal, $bkv:literal) => {
        $crate::attention::hopper_wide::prefill_wide_entry!($name, $e, 256, $persistent, $bkv, false, false, false);
    };
    // a31: with each unit's first S and softmax under the last unit's last P·V (`$cross`).
    ($name:ident, $e:ty, $persistent:literal, $bkv:literal, $cross:literal) => {
        $crate::attention::hopper_wide::prefill_wide_entry!($name, $e, 256, $persistent, $bkv, $cross, false, false);
    };
}
pub(crate) use prefill_d256_entry;

/// Declares an entry of the wide body at head dim `$hd` (256: a24–a31; 128: a32, a33), `$persistent`, with
/// `$bkv`-key tiles, `$cross` (each unit's first S under the last unit's last P·V) and `$lazy` (a33: a9's
/// exponentials ahead of the max, two P sets). All take the same parameters; a24 (not persistent) ignores
/// `tiles` and `units`.
macro_rules! prefill_wide_entry {
    ($name:ident, $e:ty, $hd:literal, $persistent:literal, $bkv:literal, $cross:literal, $lazy:literal, $kv1:literal) => {
        /// Attention forward at the entry's head dim (256; a32: 128) over a packed batch of sequences of
        /// different lengths with grouped heads (a24/a25/a28/a31/a32, module docs): `o` (`[tokens][heads][D]`)
        /// and the natural log-sum-exp `lse` (`[tokens][heads]`) of sequence `b`'s queries
        /// `cu_q[b]..cu_q[b + 1]` against its keys `cu_k[b]..cu_k[b + 1]`.
        ///
        /// # Safety
        /// `tmap_q`: a 3-D tensor map (in global memory) of Q, dims (D, heads, tokens_q), boxes
        /// 64 × 1 × 128, `SWIZZLE_128B`; `tmap_k`, `tmap_v` the same of K and V with the K/V heads,
        /// tokens_k and boxes 64 × 1 × the entry's key tile (a24, a25: 64; a28, a31: 80; a32: 128); `o` and
        /// `lse` hold `tokens_q · heads · D` and `tokens_q · heads` writable elements; `cu_q`, `cu_k`:
        /// `batch + 1` non-decreasing `i32` in global memory ending at tokens_q and tokens_k, unwritten during
        /// the kernel, every sequence with queries having keys (and, causal, at least as many);
        /// `dims.head_dim = D`, `dims.heads = kv_heads · dims.group`; 384 threads,
        /// `layout::attention::a24_smem()` (persistent: `wide_smem(D, key tile)`) bytes of dynamic shared
        /// memory. a24: grid `(⌈max q_len / 128⌉, heads, batch)`. Persistent: grid `(n, 1, 1)`, `n ≥ 1`;
        /// `tiles` holds `3 · units` `u32` (sequence `< batch`, query tile, head `< heads`), unwritten
        /// during the kernel.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(tmap_q: *const $crate::prim::tma::TensorMap, tmap_k: *const $crate::prim::tma::TensorMap,
                                                tmap_v: *const $crate::prim::tma::TensorMap, o: *mut u16, lse: *mut f32, cu_q: *const i32, cu_k: *const i32,
                                                dims: layout::attention::PrefillDims, tiles: *const u32, units: u32) {
            // SAFETY: forwarded.
            unsafe {
                $crate::attention::hopper_wide::prefill::<$e, [[f32; 32]; { $hd / 64 }], $persistent, $bkv, { $bkv as usize / 2 }, $cross, $lazy, $kv1>(
                    tmap_q, tmap_k, tmap_v, o, lse, cu_q, cu_k, dims, tiles, units)
            }
        }
        // 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
        $crate::launch_bounds::launch_bounds!($name, 384, 1);
    };
}
pub(crate) use prefill_wide_entry;
