//! The block-scaled CTA of the FP8 steps f2–f4, f6, f8, f9 and f15 (introduced by f2, whose file explains
//! it): the warp-specialized persistent kernel over 128×`BN` tiles (128; f9: 192) with the bf16
//! TMA-store epilogue, written once for one CTA or a cluster sharing B (f6); a step supplies its consumers' K loop
//! ([`ConsumeTile`]), the part in which the steps differ. The loops that two steps run live here: f3's
//! ([`ScalesAhead`], which f8 runs with turns), f4's ([`Overlapped`], which f6 runs too) and f9's
//! ([`Wide192`], which f10 runs in clusters).
pub(super) use super::tile::Accumulators;
use super::tile::{TileWalk, a_desc, b_desc_after, produce};
use crate::hgemm::tma_warp_specialized::Ring;
use crate::prim::{
    sync::{arrive_named, sync_named},
    thread::lane_id,
    tma::{TensorMap, cp_async_bulk_wait_group0},
    wgmma::{wgmma_commit_group, wgmma_fence, wgmma_wait_group},
};
use layout::fp8::{scale_a_index, scale_b_index, tiles::{BK, BM, block_c_stage_bytes, block_stage_bytes, block_stages, f9_mid_block_is_first, staged_stage_bytes, staged_stages}};

/// Where one thread's scales come from: the arrays, the shape, its first accumulator row, the tile's
/// first column. (Per-tensor steps pass their two one-element arrays the same way.)
#[derive(Clone, Copy)]
pub(crate) struct Scales {
    sa: *const f32,
    sb: *const f32,
    m: u32,
    n: u32,
    k: u32,
    row: u32,
    n0: u32,
}

impl Scales {
    /// The scales of the thread with accumulator rows `row`, `row + 8` in the tile at column `n0`.
    #[inline(always)]
    pub(super) fn new(sa: *const f32, sb: *const f32, m: u32, n: u32, k: u32, row: u32, n0: u32) -> Scales {
        Scales { sa, sb, m, n, k, row, n0 }
    }

    /// The tile's first column.
    #[inline(always)]
    pub(super) fn n0(self) -> u32 {
        self.n0
    }

    /// The same scales for the tile at column `n0` (the producer's, whose `row` is unused).
    #[inline(always)]
    pub(super) fn at_column(self, n0: u32) -> Scales {
        Scales { n0, ..self }
    }

    /// The thread's first accumulator row inside its 128-row tile (`row` minus the tile's first row).
    #[inline(always)]
    pub(super) fn tile_row(self) -> u32 {
        self.row % BM
    }

    /// `sa[0] · sb[0]`: the per-tensor scale.
    ///
    /// # Safety
    /// Both arrays hold at least one f32.
    #[inline(always)]
    pub(super) unsafe fn per_tensor(self) -> f32 {
        // SAFETY: forwarded to the caller.
        unsafe { *self.sa * *self.sb }
    }

    /// `(sa[row] · sb, sa[row + 8] · sb)` of K block `kb` (0 for rows ≥ M: those rows are clipped by the
    /// TMA store): [`Scales::load`] and [`BlockScales::rows`] at once.
    ///
    /// # Safety
    /// The arrays have the lengths the kernels state; `kb < ⌈k/128⌉`; `n0 < n`.
    #[inline(always)]
    pub(super) unsafe fn of_block(self, kb: u32) -> (f32, f32) {
        // SAFETY: forwarded to the caller.
        unsafe { self.load(kb, 0).rows() }
    }

    /// The three scales of K block `kb` for the columns `n0 + dn ..` (a 128-aligned offset into a wider
    /// tile: its own B scale block; a `dn` whose columns start past N reads the tile's first block —
    /// B's rows past N are zero-filled, so those products are zero, and their stores are clipped),
    /// loaded and **not yet used**: in-order issue stalls a warp at the first instruction that reads a
    /// loaded register, so multiplying them here would wait out the load's latency right here.
    ///
    /// # Safety
    /// As [`Scales::of_block`].
    #[inline(always)]
    pub(super) unsafe fn load(self, kb: u32, dn: u32) -> BlockScales {
        let k0 = kb * BK;
        let dn = if self.n0 + dn < self.n { dn } else { 0 };
        let ld = |r: u32| if r < self.m {
            // SAFETY: r < m and k0 < k: inside `sa` (caller).
            unsafe { *self.sa.add(scale_a_index(r, k0, self.m) as usize) }
        } else {
            0.0
        };
        // SAFETY: n0 + dn < n and k0 < k: inside `sb` (caller).
        let b = unsafe { *self.sb.add(scale_b_index(self.n0 + dn, k0, self.k) as usize) };
        BlockScales { a_lo: ld(self.row), a_hi: ld(self.row + 8), b }
    }

    /// The B scale of K block `kb` for the tile's **second** scale block of columns (the one after the
    /// block holding column `n0`: f9's 192-wide tiles straddle two), loaded and not yet used, as
    /// [`Scales::load`]; the first block's where the second starts past N (its columns are zero and
    /// clipped).
    ///
    /// # Safety
    /// As [`Scales::of_block`].
    #[inline(always)]
    pub(super) unsafe fn load_second_b(self, kb: u32) -> f32 {
        let next = (self.n0 / BK + 1) * BK;
        let col = if next < self.n { next } else { self.n0 };
        // SAFETY: col < n and kb · 128 < k: inside `sb` (caller).
        unsafe { *self.sb.add(scale_b_index(col, kb * BK, self.k) as usize) }
    }

    /// The B scales of K block `kb` for the tile's first and second scale block of columns
    /// ([`Scales::load`]'s `b` at `dn = 0` and [`Scales::load_second_b`]), loaded and not yet used.
    ///
    /// # Safety
    /// As [`Scales::of_block`].
    #[inline(always)]
    pub(super) unsafe fn load_b_pair(self, kb: u32) -> (f32, f32) {
        // SAFETY: n0 < n and kb · 128 < k: inside `sb` (caller); the second as `load_second_b`.
        unsafe { (*self.sb.add(scale_b_index(self.n0, kb * BK, self.k) as usize), self.load_second_b(kb)) }
    }
}

/// One thread's scales of one K block, as loaded: its two rows' A scales and the block's B scale.
#[derive(Clone, Copy)]
pub(super) struct BlockScales {
    a_lo: f32,
    a_hi: f32,
    b: f32,
}

impl BlockScales {
    /// `(sa[row] · sb, sa[row + 8] · sb)`: the first use of the loaded values (call it where the
    /// promotion needs them).
    #[inline(always)]
    pub(super) fn rows(self) -> (f32, f32) {
        (self.a_lo * self.b, self.a_hi * self.b)
    }

    /// `(sa[row] · b, sa[row + 8] · b)` for another B scale `b` (f9's second scale block).
    #[inline(always)]
    pub(super) fn rows_with(self, b: f32) -> (f32, f32) {
        (self.a_lo * b, self.a_hi * b)
    }
}

/// `r_acc += r_blk · scale` per row: fragment element `i` is in row g for `i % 4 < 2`, in row g + 8
/// otherwise. One FFMA each (a plain `a * b + c` stays a separate mul and add: Rust does not contract).
#[inline(always)]
pub(super) fn promote(r_acc: &mut [[f32; 32]; 2], r_blk: &[[f32; 32]; 2], scale: (f32, f32)) {
    let [acc0, acc1] = r_acc;
    promote_pair(acc0, acc1, r_blk, scale);
}

/// [`promote`] into two accumulator blocks given separately (two of a wider tile's four). One call per
/// block with constant references: iterating over an array of the two references put the accumulators
/// in local memory (576–832-byte stack frames).
#[inline(always)]
pub(super) fn promote_pair(acc0: &mut [f32; 32], acc1: &mut [f32; 32], r_blk: &[[f32; 32]; 2], scale: (f32, f32)) {
    let [blk0, blk1] = r_blk;
    promote_block(acc0, blk0, scale);
    promote_block(acc1, blk1, scale);
}

/// `acc += blk · scale` for one 64×64 block of the fragment.
#[inline(always)]
pub(super) fn promote_block(acc: &mut [f32; 32], blk: &[f32; 32], (s_lo, s_hi): (f32, f32)) {
    for i in 0..32 {
        acc[i] = core::intrinsics::fmaf32(blk[i], if i % 4 < 2 { s_lo } else { s_hi }, acc[i]);
    }
}

/// A consumer warpgroup's K loop over one tile: returns rows `64·mh ..` × `64·Acc::BOXES` columns of the tile,
/// promoted and scaled, having released every stage use it consumed (in every CTA of a cluster of
/// `CLUSTER`: `Ring::release_cluster`); advances `it` by `k_tiles`.
pub(super) trait ConsumeTile {
    /// The tile's accumulators (their width is the tile's).
    type Acc: Accumulators;

    /// # Safety
    /// All 128 threads of a consumer warpgroup; the ring initialized; the producer issues the same
    /// tiles; `sc` as [`Scales::of_block`] requires; `CLUSTER` as `Ring::release_cluster` requires;
    /// between this warpgroup's [`ConsumeTile::begin`] and [`ConsumeTile::end`].
    unsafe fn consume<const CLUSTER: u32>(ring: Ring, it: &mut u32, k_tiles: u32, mh: u32, sc: Scales) -> Self::Acc;

    /// Whether each stage carries its K block's scales after A and B
    /// ([`layout::fp8::tiles::SCALE_SLOT_BYTES`], filled by [`ConsumeTile::produce`]: f15); the body
    /// sizes its ring by it.
    const STAGED_SCALES: bool = false;

    /// The producer thread's loop: [`produce`] (A and B by TMA, nothing else), unless the K loop wants
    /// more in each stage (f15 overrides it with its scales).
    ///
    /// # Safety
    /// As [`produce`] (one CTA or a cluster of `CLUSTER`); `sc` as [`Scales::of_block`] requires;
    /// `tmap_sa` as the kernel that passes it states (not read here).
    #[inline(always)]
    unsafe fn produce<const BN: u32, const CLUSTER: u32>(ring: Ring, tmap_a: *const TensorMap, tmap_b: *const TensorMap, _tmap_sa: *const TensorMap,
                                                         _sc: Scales, tiles_m: u32, tiles_n: u32, k_tiles: u32) {
        // SAFETY: forwarded to the caller.
        unsafe { produce::<BN, CLUSTER>(ring, tmap_a, tmap_b, tiles_m, tiles_n, k_tiles) }
    }

    /// Called once by consumer warpgroup `mh` before its first tile (nothing unless the loop
    /// synchronizes the two consumers: f8's turns).
    ///
    /// # Safety
    /// All 128 threads of consumer warpgroup `mh`, once, before any `consume`.
    #[inline(always)]
    unsafe fn begin(_mh: u32) {}

    /// Called once by consumer warpgroup `mh` after its last tile.
    ///
    /// # Safety
    /// All 128 threads of consumer warpgroup `mh`, once, after every `consume`.
    #[inline(always)]
    unsafe fn end(_mh: u32) {}
}

/// f3's K loop (its file explains it), and with `PINGPONG` f8's (ditto): per stage, four `m64n128k32`
/// into a fresh `r_blk`, block `kt + 1`'s scales loaded meanwhile, `wait_group 0`, the stage released,
/// `r_acc += r_blk · scale`. With `PINGPONG` the two consumer warpgroups take turns to issue: warpgroup
/// `mh` waits for its turn before its four `wgmma`s and passes the turn right after committing them.
pub(super) struct ScalesAhead<const PINGPONG: bool>;

/// Waits until it is consumer warpgroup `mh`'s turn to issue: named barrier 3 is warpgroup 0's turn,
/// 4 warpgroup 1's (1 and 2 are the epilogue's, `tma_store::consumer_barrier_of`), 256 threads each: 128
/// syncing (the warpgroup whose turn it is) and 128 arriving ([`pass_turn`], the other one). Ids as
/// immediates, one arm per warpgroup.
///
/// # Safety
/// All 128 threads of consumer warpgroup `mh` (0 or 1), converged; every phase completed by exactly one
/// `pass_turn` of the other warpgroup (the protocol of [`ScalesAhead`]).
#[inline(always)]
unsafe fn wait_turn(mh: u32) {
    // SAFETY: forwarded to the caller; `mh` is uniform across the warpgroup.
    unsafe {
        if mh == 0 { sync_named(3, 256) } else { sync_named(4, 256) }
    }
}

/// Gives the turn to the other consumer warpgroup (arrives on its barrier without waiting).
///
/// # Safety
/// As [`wait_turn`], for the other warpgroup's barrier.
#[inline(always)]
unsafe fn pass_turn(mh: u32) {
    // SAFETY: forwarded to the caller.
    unsafe {
        if mh == 0 { arrive_named(4, 256) } else { arrive_named(3, 256) }
    }
}

impl<const PINGPONG: bool> ConsumeTile for ScalesAhead<PINGPONG> {
    type Acc = [[f32; 32]; 2];
    #[inline(always)]
    unsafe fn consume<const CLUSTER: u32>(ring: Ring, it: &mut u32, k_tiles: u32, mh: u32, sc: Scales) -> [[f32; 32]; 2] {
        let mut r_acc = [[0f32; 32]; 2];
        let mut r_blk = [[0f32; 32]; 2];
        // SAFETY: forwarded to the caller (block 0's scales are read before the loop only because the
        // consumer is called with k_tiles ≥ 1 — `k` ≥ 1 — and block kt + 1's only while kt + 1 < k_tiles);
        // `r_blk` is pinned around the fence and the wait. Turns: both warpgroups issue the same
        // number of K blocks (same tiles, same `k_tiles`), so the turns alternate 0, 1, 0, 1, … across
        // tiles; warpgroup 1 opens the first turn in `begin`, warpgroup 0 takes the last pass in `end`.
        unsafe {
            // Block kt's scales as loaded (multiplied only at its promotion: see `Scales::load`).
            let mut scale = sc.load(0, 0);
            for kt in 0..k_tiles {
                issue(ring, *it, mh, &mut r_blk, || if PINGPONG { wait_turn(mh) });
                if PINGPONG {
                    pass_turn(mh);
                }
                let next = if kt + 1 < k_tiles { sc.load(kt + 1, 0) } else { scale };
                retire_all::<_, CLUSTER>(ring, *it, &mut r_blk);
                *it += 1;
                promote(&mut r_acc, &r_blk, scale.rows());
                scale = next;
            }
        }
        r_acc
    }

    #[inline(always)]
    unsafe fn begin(mh: u32) {
        if PINGPONG && mh == 1 {
            // SAFETY: warpgroup 1 opens warpgroup 0's first turn (caller: all its threads, once).
            unsafe { pass_turn(1) }
        }
    }

    #[inline(always)]
    unsafe fn end(mh: u32) {
        if PINGPONG && mh == 0 {
            // SAFETY: takes warpgroup 1's pass after its last issue (caller: all of warpgroup 0, once).
            unsafe { wait_turn(0) }
        }
    }
}

/// Waits for stage `it`, then issues its four `wgmma`s (K = 32 each) into `r_blk` (the first with
/// `scale-d = 0`) as one committed group, not waited for; `turn` runs after the operands are pinned,
/// right before the `wgmma` fence (f8 waits for its turn there; every other loop passes `|| ()`).
/// Every block-scaled K loop issues through here.
///
/// # Safety
/// All 128 threads of a consumer warpgroup; `r_blk` not read until a wait retires this group.
#[inline(always)]
pub(super) unsafe fn issue<A: Accumulators>(ring: Ring, it: u32, mh: u32, r_blk: &mut A, turn: impl FnOnce()) {
    // SAFETY: forwarded to the caller (A's tile is BM rows).
    unsafe { issue_rows::<A, BM>(ring, it, mh, r_blk, turn) }
}

/// [`issue`] from stages whose A tile has `ROWS` rows (f19: 192), B right after it.
///
/// # Safety
/// As [`issue`].
#[inline(always)]
pub(super) unsafe fn issue_rows<A: Accumulators, const ROWS: u32>(ring: Ring, it: u32, mh: u32, r_blk: &mut A, turn: impl FnOnce()) {
    // SAFETY: forwarded to the caller.
    unsafe {
        ring.wait_full(it);
        let s_stage = ring.at(it).0;
        let (d_a, d_b) = (a_desc(s_stage, mh), b_desc_after::<ROWS>(s_stage));
        r_blk.pin();
        turn();
        wgmma_fence();
        for ks in 0..BK / 32 {
            r_blk.mma_k32(d_a.advance(32 * ks).0, d_b.advance(32 * ks).0, ks > 0);
        }
        wgmma_commit_group();
    }
}

/// Waits for every pending group (the one that wrote `r_blk` from stage `it`), pins `r_blk` and
/// releases the stage (in every CTA of the cluster): the serial loops' retirement, before their
/// promotion.
///
/// # Safety
/// All 128 threads of a consumer warpgroup; `CLUSTER` as `Ring::release_cluster` requires.
#[inline(always)]
pub(super) unsafe fn retire_all<A: Accumulators, const CLUSTER: u32>(ring: Ring, it: u32, r_blk: &mut A) {
    // SAFETY: forwarded to the caller.
    unsafe {
        wgmma_wait_group::<0>();
        r_blk.pin();
        ring.release_cluster::<CLUSTER>(it);
    }
}

/// Retires the older of (at most) two pending groups — the one that wrote `r_blk` from stage `it` —
/// releases that stage and promotes `r_blk` with its block's `scale`. With `LAST`, waits for all groups.
///
/// # Safety
/// All 128 threads of a consumer warpgroup; `r_blk`'s group is the older pending one (or the only one
/// with `LAST`); `CLUSTER` as `Ring::release_cluster` requires.
#[inline(always)]
unsafe fn retire<const LAST: bool, const CLUSTER: u32>(ring: Ring, it: u32, r_acc: &mut [[f32; 32]; 2], r_blk: &mut [[f32; 32]; 2], scale: (f32, f32)) {
    // SAFETY: forwarded to the caller; `r_blk` is pinned after the wait.
    unsafe {
        if LAST { wgmma_wait_group::<0>() } else { wgmma_wait_group::<1>() }
        r_blk.pin();
        ring.release_cluster::<CLUSTER>(it);
    }
    promote(r_acc, r_blk, scale);
}

/// f4's K loop (its file explains it): two block-accumulator sets in turn, each block promoted while
/// the next one's MMAs run.
pub(super) struct Overlapped;

impl ConsumeTile for Overlapped {
    type Acc = [[f32; 32]; 2];
    #[inline(always)]
    unsafe fn consume<const CLUSTER: u32>(ring: Ring, it: &mut u32, k_tiles: u32, mh: u32, sc: Scales) -> [[f32; 32]; 2] {
        let mut r_acc = [[0f32; 32]; 2];
        let (mut r_blk0, mut r_blk1) = ([[0f32; 32]; 2], [[0f32; 32]; 2]);
        // The scales of the block in each set, loaded and multiplied when the block is issued (the
        // products, not the raw loads, carried to its retirement: measured 1.1–1.2× faster here than
        // carrying the three loaded values, unlike f3 — see the ladder README).
        let (mut s0, mut s1): ((f32, f32), (f32, f32));
        let base = *it;
        // SAFETY: forwarded to the caller; the scales of block kt < k_tiles only; at most two groups
        // pending, each set rewritten only after its group retired and it was promoted. Block kt lives
        // in set kt % 2; every branch below is uniform across the warpgroup (k_tiles is).
        unsafe {
            if k_tiles > 0 {
                issue(ring, base, mh, &mut r_blk0, || ());
                s0 = sc.of_block(0);
                let mut kt = 1;
                while kt + 1 < k_tiles {
                    issue(ring, base + kt, mh, &mut r_blk1, || ());
                    s1 = sc.of_block(kt);
                    retire::<false, CLUSTER>(ring, base + kt - 1, &mut r_acc, &mut r_blk0, s0);
                    issue(ring, base + kt + 1, mh, &mut r_blk0, || ());
                    s0 = sc.of_block(kt + 1);
                    retire::<false, CLUSTER>(ring, base + kt, &mut r_acc, &mut r_blk1, s1);
                    kt += 2;
                }
                if kt < k_tiles {
                    issue(ring, base + kt, mh, &mut r_blk1, || ());
                    s1 = sc.of_block(kt);
                    retire::<false, CLUSTER>(ring, base + kt - 1, &mut r_acc, &mut r_blk0, s0);
                    retire::<true, CLUSTER>(ring, base + kt, &mut r_acc, &mut r_blk1, s1);
                } else {
                    retire::<true, CLUSTER>(ring, base + kt - 1, &mut r_acc, &mut r_blk0, s0);
                }
            }
        }
        *it = base + k_tiles;
        r_acc
    }
}

/// f9's K loop: f3's, 192 columns wide, with the two B scales of each K block.
pub(super) struct Wide192;

impl ConsumeTile for Wide192 {
    type Acc = [[f32; 32]; 3];
    #[inline(always)]
    unsafe fn consume<const CLUSTER: u32>(ring: Ring, it: &mut u32, k_tiles: u32, mh: u32, sc: Scales) -> [[f32; 32]; 3] {
        let mut r_acc = [[0f32; 32]; 3];
        let mut r_blk = [[0f32; 32]; 3];
        let mid_first = f9_mid_block_is_first(sc.n0());
        // SAFETY: forwarded to the caller (scales of block kt + 1 read only while kt + 1 < k_tiles, and
        // block 0's because k_tiles ≥ 1); `r_blk` is pinned around the fence and the wait.
        unsafe {
            // Block kt's scales as loaded (used only at its promotion, as f3): rows' A scales with the
            // first B scale, and the second B scale.
            let (mut scale, mut b_second) = (sc.load(0, 0), sc.load_second_b(0));
            for kt in 0..k_tiles {
                // Four `m64n192k32` (the accumulators' width picks the instruction).
                issue(ring, *it, mh, &mut r_blk, || ());
                let next = if kt + 1 < k_tiles { (sc.load(kt + 1, 0), sc.load_second_b(kt + 1)) } else { (scale, b_second) };
                retire_all::<_, CLUSTER>(ring, *it, &mut r_blk);
                *it += 1;
                let (first, second) = (scale.rows(), scale.rows_with(b_second));
                let [acc0, acc1, acc2] = &mut r_acc;
                let [blk0, blk1, blk2] = &r_blk;
                promote_block(acc0, blk0, first);
                promote_block(acc1, blk1, if mid_first { first } else { second });
                promote_block(acc2, blk2, second);
                (scale, b_second) = next;
            }
        }
        r_acc
    }
}

/// The block-scaled kernel body over `128 × BN` tiles with K loop `C` (whose accumulators are `BN`
/// wide), in clusters of `CLUSTER` CTAs: tensor maps and scales as `fp8_gemm_v2` states, B's box `BN`
/// rows; `layout::fp8::tiles::block_dyn_smem(BN)` bytes of dynamic shared memory.
///
/// # Safety
/// As `fp8_gemm_v2`; with `CLUSTER > 1`, a cluster launch of that size, a grid that is a multiple of
/// it, and `tmap_b`'s box `BN / CLUSTER` rows.
#[inline(always)]
pub(super) unsafe fn block_scaled<C: ConsumeTile, const BN: u32, const CLUSTER: u32>(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap,
                                                  sa: *const f32, sb: *const f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded; a loop without staged scales never reads the scale map.
    unsafe { block_scaled_staged::<C, BN, CLUSTER>(tmap_a, tmap_b, tmap_c, core::ptr::null(), sa, sb, m, n, k) }
}

/// [`block_scaled`] with a tensor map over `sa` for the loops whose stages carry their scales
/// ([`ConsumeTile::STAGED_SCALES`]: f15, whose file states the map); their ring's stages are
/// `layout::fp8::tiles::staged_stage_bytes(BN)` and the dynamic shared memory `staged_dyn_smem(BN)`.
///
/// # Safety
/// As [`block_scaled`], with those sizes and `tmap_sa` for a loop with staged scales.
#[inline(always)]
pub(super) unsafe fn block_scaled_staged<C: ConsumeTile, const BN: u32, const CLUSTER: u32>(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap,
                                                  tmap_sa: *const TensorMap, sa: *const f32, sb: *const f32, m: u32, n: u32, k: u32) {
    const { assert!(C::Acc::BOXES * 64 == BN, "the K loop's accumulators are the tile's width") };
    let c_stage_bytes = block_c_stage_bytes(BN);
    let (stages, stage_bytes) = if C::STAGED_SCALES { (staged_stages(BN), staged_stage_bytes(BN)) } else { (block_stages(BN), block_stage_bytes(BN)) };
    // SAFETY: the ring protocol and the epilogue as f1 (same proof: every stage use is issued once by
    // the producer and released once by each consumer warp after its `wgmma`s retired; a staging tile is
    // rewritten only after its previous TMA store finished reading it); scale reads as `Scales` states;
    // the cluster barriers of `warp_specialized!` bracket every remote access.
    unsafe {
        crate::hgemm::tma_warp_specialized::warp_specialized! {
            cluster: CLUSTER;
            ring: let (ring, s_cstage) = (stages, stage_bytes, 2 * c_stage_bytes);
            thread: tid, warpgroup: wg;
            setup: {
                let (tiles_m, tiles_n) = (m.div_ceil(BM), n.div_ceil(BN));
                let k_tiles = k.div_ceil(BK);
            }
            tensor_maps: (tmap_a, tmap_b);
            producer: {
                C::produce::<BN, CLUSTER>(ring, tmap_a, tmap_b, tmap_sa, Scales::new(sa, sb, m, n, k, 0, 0), tiles_m, tiles_n, k_tiles);
            }
            consumer(mh): {
                let (warp, lane) = ((tid / 32) % 4, lane_id());
                let mut it = 0u32;
                C::begin(mh);
                for (tm, tn) in TileWalk::<CLUSTER>::new(tiles_m, tiles_n) {
                    let (row0, n0) = (tm * BM + 64 * mh, tn * BN);
                    // This thread's two accumulator rows (fragment rows g and g + 8 of its warp's 16).
                    let row = row0 + 16 * warp + lane / 4;
                    let r_acc = C::consume::<CLUSTER>(ring, &mut it, k_tiles, mh, Scales::new(sa, sb, m, n, k, row, n0));
                    r_acc.store(tmap_c, s_cstage + mh * c_stage_bytes, row0, n0, mh, tid % 128 == 0, warp, lane);
                }
                C::end(mh);
                if tid % 128 == 0 {
                    cp_async_bulk_wait_group0();
                }
            }
        }
    }
}
