//! The stream-K tail of the persistent wide steps (introduced by h10, whose file explains the schedule;
//! used by h10 and FP8's f14 on 128×256 tiles, FP8's f16 on 128×192, FP8's f20 on 192×128 with three
//! consumers): the kernel body
//! [`stream_k_wide!`], where a consumer thread keeps its partial tile in a workspace slot, and the
//! stores and adds of those partials ([`Partial`]; a 128×192 partial fills 24 of a thread's 32 float4;
//! FP8 f20's three consumers use 16 float4 each, `partial_at_of::<16>`).
//!
//! ```text
//! slot (STREAM_K_SLOT_BYTES = 128·256·4):  [warpgroup mh: 2][float4 q: 32][thread i: 128] × 16 B
//! float4 q of a thread = accumulators 4·(q % 8) .. of its box q / 8 (64 columns each)
//! a warp's store of one q: 32 consecutive float4 = 512 contiguous bytes
//! ```
use crate::prim::global::{ld_global_cg_v4_f32, st_global_v4_f32};
use crate::util::unroll::{unroll4, unroll8};
use layout::hopper::tma_hgemm::STREAM_K_SLOT_BYTES;

/// f32 per workspace slot.
pub(crate) const SLOT_F32: usize = (STREAM_K_SLOT_BYTES / 4) as usize;

/// Where thread `i` (of 128) of consumer warpgroup `mh` keeps `float4` number `q` (0..QS: box `q / 8`,
/// accumulators `4·(q % 8) ..`) of its partial inside a workspace slot, in f32: consecutive threads
/// 16 bytes apart, a warpgroup's region `QS · 128` float4 — `QS` = 32 for up to four boxes (two
/// consumers), 16 for FP8 f20's two-box partials of three consumers, which with 32 would run past the
/// slot (`3 · 32 · 128` float4 > 8192).
#[inline(always)]
fn partial_at_of<const QS: u32>(mh: u32, q: u32, i: u32) -> usize {
    (((mh * QS + q) * 128 + i) * 4) as usize
}

/// A consumer thread's accumulators as a stream-K partial: `[[f32; 32]; 4]` (128×256 tiles: h10, f14),
/// `[[f32; 32]; 3]` (128×192: FP8's f16) or `[[f32; 32]; 2]` (192×128 with three consumers: FP8's f20),
/// the 64-column boxes in the slot layout above (box `nb` is float4s `8·nb ..`).
pub(crate) trait Partial {
    /// Writes the accumulators to this thread's places in `slot` ([`partial_at_of`]).
    ///
    /// # Safety
    /// As [`store_partial`].
    unsafe fn store(&self, slot: *mut f32, mh: u32, i: u32);
    /// Adds a contributor's partial from `slot` (the same places).
    ///
    /// # Safety
    /// As [`add_partial`].
    unsafe fn add(&mut self, slot: *const f32, mh: u32, i: u32);
}

impl Partial for [[f32; 32]; 4] {
    #[inline(always)]
    unsafe fn store(&self, slot: *mut f32, mh: u32, i: u32) {
        // SAFETY: forwarded to the caller.
        unsafe { store_partial(self, slot, mh, i) }
    }
    #[inline(always)]
    unsafe fn add(&mut self, slot: *const f32, mh: u32, i: u32) {
        // SAFETY: forwarded to the caller.
        unsafe { add_partial(self, slot, mh, i) }
    }
}

impl Partial for [[f32; 32]; 3] {
    #[inline(always)]
    unsafe fn store(&self, slot: *mut f32, mh: u32, i: u32) {
        // SAFETY: forwarded to the caller (q = 8·nb + j < 24 < 32: inside the slot).
        unsafe {
            let [acc0, acc1, acc2] = self;
            store_box(acc0, slot, mh, 0, i);
            store_box(acc1, slot, mh, 1, i);
            store_box(acc2, slot, mh, 2, i);
        }
    }
    #[inline(always)]
    unsafe fn add(&mut self, slot: *const f32, mh: u32, i: u32) {
        // SAFETY: forwarded to the caller.
        unsafe {
            let [acc0, acc1, acc2] = self;
            add_box(acc0, slot, mh, 0, i);
            add_box(acc1, slot, mh, 1, i);
            add_box(acc2, slot, mh, 2, i);
        }
    }
}

/// Two 64-column boxes of a three-consumer CTA (FP8 f20: 192×128 tiles), in the layout of
/// [`partial_at_of`]`::<16>`: warpgroup `mh`'s region is float4s `16·128·mh ..` (3 · 16 · 128 = 6144 of
/// the slot's 8192).
impl Partial for [[f32; 32]; 2] {
    #[inline(always)]
    unsafe fn store(&self, slot: *mut f32, mh: u32, i: u32) {
        // SAFETY: forwarded to the caller (mh < 3 here: (mh + 1) · 16 ≤ 48 ≤ 64).
        unsafe {
            let [acc0, acc1] = self;
            store_box_of::<16>(acc0, slot, mh, 0, i);
            store_box_of::<16>(acc1, slot, mh, 1, i);
        }
    }
    #[inline(always)]
    unsafe fn add(&mut self, slot: *const f32, mh: u32, i: u32) {
        // SAFETY: forwarded to the caller.
        unsafe {
            let [acc0, acc1] = self;
            add_box_of::<16>(acc0, slot, mh, 0, i);
            add_box_of::<16>(acc1, slot, mh, 1, i);
        }
    }
}

/// [`store_partial`] of one 64-column box `nb` (float4s `8·nb ..` of the thread).
///
/// # Safety
/// As [`store_partial`], `nb < 4`.
#[inline(always)]
unsafe fn store_box(acc: &[f32; 32], slot: *mut f32, mh: u32, nb: u32, i: u32) {
    // SAFETY: forwarded to the caller.
    unsafe { store_box_of::<32>(acc, slot, mh, nb, i) }
}

/// [`store_box`] in the layout of [`partial_at_of`]`::<QS>`.
///
/// # Safety
/// As [`store_box`], with `(mh + 1) · QS ≤ 64` (8192 float4 a slot, 128 a row of `q`) and `8 · (nb + 1) ≤ QS`.
#[inline(always)]
unsafe fn store_box_of<const QS: u32>(acc: &[f32; 32], slot: *mut f32, mh: u32, nb: u32, i: u32) {
    unroll8!(j => {
        let e = 4 * j as usize;
        // SAFETY: partial_at_of < SLOT_F32 ((mh · QS + q) < 64 with q < QS, i < 128), a multiple of 4:
        // aligned (caller).
        unsafe { st_global_v4_f32(slot.add(partial_at_of::<QS>(mh, 8 * nb + j, i)), [acc[e], acc[e + 1], acc[e + 2], acc[e + 3]]) };
    });
}

/// [`add_partial`] of one 64-column box `nb`: its 8 loads first, then the adds.
///
/// # Safety
/// As [`add_partial`], `nb < 4`.
#[inline(always)]
unsafe fn add_box(acc: &mut [f32; 32], slot: *const f32, mh: u32, nb: u32, i: u32) {
    // SAFETY: forwarded to the caller.
    unsafe { add_box_of::<32>(acc, slot, mh, nb, i) }
}

/// [`add_box`] in the layout of [`partial_at_of`]`::<QS>`.
///
/// # Safety
/// As [`add_box`], with [`store_box_of`]'s bounds.
#[inline(always)]
unsafe fn add_box_of<const QS: u32>(acc: &mut [f32; 32], slot: *const f32, mh: u32, nb: u32, i: u32) {
    let mut v = [[0f32; 4]; 8];
    unroll8!(j => {
        // SAFETY: as store_box_of.
        v[j as usize] = unsafe { ld_global_cg_v4_f32(slot.add(partial_at_of::<QS>(mh, 8 * nb + j, i))) };
    });
    unroll8!(j => {
        let (x, e) = (v[j as usize], 4 * j as usize);
        acc[e] += x[0];
        acc[e + 1] += x[1];
        acc[e + 2] += x[2];
        acc[e + 3] += x[3];
    });
}

/// Writes this thread's 128 accumulators to its places in `slot` ([`partial_at_of`]`::<32>`).
///
/// # Safety
/// `slot` is a 16-byte aligned workspace slot of [`SLOT_F32`] f32 that no other CTA reads before this
/// CTA's ticket; `mh < 2`, `i < 128`.
#[inline(always)]
pub(crate) unsafe fn store_partial(r_acc: &[[f32; 32]; 4], slot: *mut f32, mh: u32, i: u32) {
    // Unrolled with constant indices (`unroll4!`/`unroll8!`), so the accumulators stay in registers.
    // SAFETY: forwarded to the caller (nb < 4).
    unroll4!(nb => { unsafe { store_box(&r_acc[nb as usize], slot, mh, nb, i) } });
}

/// Adds another contributor's partial from `slot` (the same places) to this thread's accumulators, one
/// box at a time: its 8 loads first, then the adds.
///
/// # Safety
/// `slot` as [`store_partial`], written by its contributor before the ticket this CTA acquired.
#[inline(always)]
pub(crate) unsafe fn add_partial(r_acc: &mut [[f32; 32]; 4], slot: *const f32, mh: u32, i: u32) {
    // SAFETY: forwarded to the caller (nb < 4).
    unroll4!(nb => { unsafe { add_box(&mut r_acc[nb as usize], slot, mh, nb, i) } });
}

/// The kernel body of a 128×256 wide step with a stream-K tail (h10 on f16/bf16, FP8's f14 on e4m3),
/// written once: every CTA walks its whole tiles `g, g + G, … < tiles − tail` as the persistent wide
/// steps do, then its range of the tail's `tail · k_tiles` K iterations in one or two segments
/// (`layout::hopper::tma_hgemm::stream_k_*`); a segment's partial goes to its workspace slot
/// ([`store_partial`]), the two consumer warpgroups take a ticket on the tile's counter
/// (`split_k::last_split`), and the last contributor adds the other slots ([`add_partial`]), writes C
/// through the two-half TMA-store epilogue (`tma_store::store_wide_tile::<$elem>`) and resets the
/// counter. One launch; nobody waits for anybody. h10's file explains the schedule and its measurements.
///
/// What a step supplies: its stage count, stage bytes and tile (`BM`, `BN`, `BK` in its K units); how
/// the producer issues stage `$kt` of tile `($tm, $tn)` into `$s_stage` on barrier `$full`; how a
/// consumer warpgroup `$mh` (thread `$warp`, `$lane`) runs `$kts` K tiles of tile `($tm, $tn)` from the
/// ring, advancing `$it` — an expression giving its `[[f32; 32]; 4]` (scaled as the step's output
/// needs: the partials are summed as they are); the element type of C. The `@body` form (FP8 f16)
/// takes instead the C staging bytes per consumer, a `prefetch` whose value the producer computes
/// before waiting for each stage and hands to `issue`, the accumulator type (any [`Partial`]) and the
/// epilogue (`store`); `@body3 registers: (producer, consumer);` before `stages:` runs it in a CTA of
/// three consumer warpgroups (FP8 f20; 512 threads, the ticket on named barrier 4).
///
/// # Safety
/// Inside an `unsafe` block of a kernel whose contract is `hgemm_tma_v10`'s (tensor maps of A, B and
/// C; 384 threads; the step's dynamic shared memory with a 16-byte flag after the C staging; a 1-D
/// grid; `tail` ≤ the tiles and < the grid, `tail · k_tiles ≥` the grid when not 0; `ws` of `(grid +
/// tail)` slots and `count` of `tail` zeroed counters when `tail > 0`, used by no concurrent launch),
/// the issue and consume expressions as `warp_specialized!`'s producer and consumers require.
macro_rules! stream_k_wide {
    (
        stages: $stages:expr, stage_bytes: $stage_bytes:expr, tile: ($bm:expr, $bn:expr, $bk:expr);
        maps: ($tmap_a:expr, $tmap_b:expr, $tmap_c:expr); ws: $ws:expr, count: $count:expr; shape: ($m:expr, $n:expr, $k:expr), tail: $tail:expr;
        issue: |$s_stage:ident, $full:ident, $tm:ident, $tn:ident, $kt:ident| $issue:expr;
        consume: |$ring:ident, $it:ident, $kts:ident, $ctm:ident, $ctn:ident, $mh:ident, $warp:ident, $lane:ident| $consume:expr;
        elem: $elem:ty;
    ) => {{
        let staged = layout::hopper::tma_hgemm::wide_staged_boxes($stages);
        $crate::hgemm::stream_k::stream_k_wide! {
            @body stages: $stages, stage_bytes: $stage_bytes, tile: ($bm, $bn, $bk), staging: staged * layout::hopper::tma_hgemm::C_BOX_BYTES;
            maps: ($tmap_a, $tmap_b); ws: $ws, count: $count; shape: ($m, $n, $k), tail: $tail;
            prefetch: |_tm, _tn, _kt| ();
            issue: |$s_stage, $full, $tm, $tn, $kt, _pre| $issue;
            acc: [[f32; 32]; 4];
            consume: |$ring, $it, $kts, $ctm, $ctn, $mh, $warp, $lane| $consume;
            store: |r_acc, s_c, row0, n0, mh, leader, warp, lane| $crate::hgemm::tma_store::store_wide_tile::<$elem>(&r_acc, $tmap_c, s_c, staged, row0, n0, mh, leader, warp, lane);
        }
    }};
    // The general body: `staging` bytes of C staging per consumer; `prefetch` runs before the producer
    // waits for a stage (its value is `issue`'s last argument: loads whose latency the wait hides);
    // the consumers' accumulators are `$acc` (a `stream_k::Partial`), stored by `store`.
    (
        @body stages: $($rest:tt)*
    ) => {
        $crate::hgemm::stream_k::stream_k_wide! {
            @skeleton [] consumers: 2, ticket: (3, 256);
            stages: $($rest)*
        }
    };
    // `@body` in a CTA of three consumer warpgroups (FP8 f20: 192-row tiles): `warp_specialized!`'s
    // `consumers:` arm with the producer's and consumers' registers, the ticket on named barrier 4 over
    // the 384 consumer threads (1–3 are their epilogues').
    (
        @body3 registers: ($pr:expr, $cr:expr); stages: $($rest:tt)*
    ) => {
        $crate::hgemm::stream_k::stream_k_wide! {
            @skeleton [consumers: 3, registers: ($pr, $cr);] consumers: 3, ticket: (4, 384);
            stages: $($rest)*
        }
    };
    (
        @skeleton [$($head:tt)*] consumers: $nc:expr, ticket: ($bar:expr, $threads:expr);
        stages: $stages:expr, stage_bytes: $stage_bytes:expr, tile: ($bm:expr, $bn:expr, $bk:expr), staging: $staging:expr;
        maps: ($tmap_a:expr, $tmap_b:expr); ws: $ws:expr, count: $count:expr; shape: ($m:expr, $n:expr, $k:expr), tail: $tail:expr;
        prefetch: |$ptm:ident, $ptn:ident, $pkt:ident| $prefetch:expr;
        issue: |$s_stage:ident, $full:ident, $tm:ident, $tn:ident, $kt:ident, $pre:ident| $issue:expr;
        acc: $acc:ty;
        consume: |$ring:ident, $it:ident, $kts:ident, $ctm:ident, $ctn:ident, $mh:ident, $warp:ident, $lane:ident| $consume:expr;
        store: |$sr:ident, $s_c:ident, $row0:ident, $n0:ident, $smh:ident, $sleader:ident, $swarp:ident, $slane:ident| $store:expr;
    ) => {{
        let staging = $staging;
        $crate::hgemm::tma_warp_specialized::warp_specialized! {
            $($head)*
            // The stages, the consumers' C staging, a 16-byte flag, the barrier rings.
            ring: let ($ring, s_cstage) = ($stages, $stage_bytes, $nc * staging + 16);
            thread: tid, warpgroup: wg;
            setup: {
                let s_flag = s_cstage + $nc * staging;
                let (tiles_m, tiles_n) = ($m.div_ceil($bm), $n.div_ceil($bn));
                let tiles = tiles_m * tiles_n;
                let k_tiles = $k.div_ceil($bk);
                let (g, ctas) = ($crate::prim::thread::block_idx_x(), $crate::prim::thread::grid_dim_x());
                let iters = $tail as u64 * k_tiles as u64;
                let tail = if $tail < ctas && $tail <= tiles && iters >= ctas as u64 && iters <= u32::MAX as u64 { $tail } else { 0 };
                let whole = tiles - tail;
                let (lo, hi) = layout::hopper::tma_hgemm::stream_k_range(g, ctas, tail, k_tiles);
            }
            tensor_maps: ($tmap_a, $tmap_b);
            producer: {
                let mut it = 0u32;
                let mut t = g;
                while t < whole {
                    let ($tm, $tn) = $crate::hgemm::tma_persistent::persistent_tile(t, tiles_m, tiles_n);
                    for $kt in 0..k_tiles {
                        let ($s_stage, $full, _, _) = $ring.at(it);
                        let $pre = { let ($ptm, $ptn, $pkt) = ($tm, $tn, $kt); $prefetch };
                        $ring.wait_empty(it);
                        $issue;
                        it += 1;
                    }
                    t += ctas;
                }
                let mut i = lo;
                while i < hi {
                    let (t, kt0, kt1) = layout::hopper::tma_hgemm::stream_k_segment(i, hi, k_tiles);
                    let ($tm, $tn) = $crate::hgemm::tma_persistent::persistent_tile(whole + t, tiles_m, tiles_n);
                    for $kt in kt0..kt1 {
                        let ($s_stage, $full, _, _) = $ring.at(it);
                        let $pre = { let ($ptm, $ptn, $pkt) = ($tm, $tn, $kt); $prefetch };
                        $ring.wait_empty(it);
                        $issue;
                        it += 1;
                    }
                    i += kt1 - kt0;
                }
            }
            consumer($mh): {
                let ($warp, $lane) = ((tid / 32) % 4, $crate::prim::thread::lane_id());
                let leader = tid % 128 == 0;
                let s_c = s_cstage + $mh * staging;
                let mut $it = 0u32;
                let mut t = g;
                while t < whole {
                    let ($ctm, $ctn) = $crate::hgemm::tma_persistent::persistent_tile(t, tiles_m, tiles_n);
                    let $kts = k_tiles;
                    let $sr: $acc = $consume;
                    let ($s_c, $row0, $n0, $smh, $sleader, $swarp, $slane) = (s_c, $ctm * $bm + 64 * $mh, $ctn * $bn, $mh, leader, $warp, $lane);
                    $store;
                    t += ctas;
                }
                let mut i = lo;
                while i < hi {
                    let (t, kt0, kt1) = layout::hopper::tma_hgemm::stream_k_segment(i, hi, k_tiles);
                    let ($ctm, $ctn) = $crate::hgemm::tma_persistent::persistent_tile(whole + t, tiles_m, tiles_n);
                    let $kts = kt1 - kt0;
                    let mut r_acc: $acc = $consume;
                    let own = layout::hopper::tma_hgemm::stream_k_slot(g, ctas, t, kt0);
                    $crate::hgemm::stream_k::Partial::store(&r_acc, $ws.add(own as usize * $crate::hgemm::stream_k::SLOT_F32), $mh, tid % 128);
                    let (first, end) = layout::hopper::tma_hgemm::stream_k_inner_ctas(t, ctas, tail, k_tiles);
                    let counter = $count.add(t as usize);
                    if $crate::hgemm::split_k::last_split_of::<{ $bar }, { $threads }>(counter, end - first + 1, s_flag, tid, 128) {
                        let start = ctas + t;
                        if start != own {
                            $crate::hgemm::stream_k::Partial::add(&mut r_acc, $ws.add(start as usize * $crate::hgemm::stream_k::SLOT_F32), $mh, tid % 128);
                        }
                        let mut c = first;
                        while c < end {
                            if c != own {
                                $crate::hgemm::stream_k::Partial::add(&mut r_acc, $ws.add(c as usize * $crate::hgemm::stream_k::SLOT_F32), $mh, tid % 128);
                            }
                            c += 1;
                        }
                        let $sr = r_acc;
                        let ($s_c, $row0, $n0, $smh, $sleader, $swarp, $slane) = (s_c, $ctm * $bm + 64 * $mh, $ctn * $bn, $mh, leader, $warp, $lane);
                        $store;
                        if tid == 128 {
                            $crate::hgemm::split_k::reset_counter(counter);
                        }
                    }
                    // Not needed for the flag (the next ticket writes it only after its first barrier 3,
                    // which every thread reaches after reading it); kept as measured, h7's shape.
                    $crate::prim::sync::sync_named($bar, $threads);
                    i += kt1 - kt0;
                }
                if leader {
                    $crate::prim::tma::cp_async_bulk_wait_group0();
                }
            }
        }
    }};
}
pub(crate) use stream_k_wide;
