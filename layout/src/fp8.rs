//! FP8 GEMM layout math (issue 16), shared by the kernels (`kernels-gpu/src/fp8/`) and the host: the
//! e4m3 format as exact host functions, the two scaling schemes' scale-array layouts, and the Hopper FP8
//! steps' tiles and shared-memory budgets.
//!
//! # e4m3
//!
//! ```text
//! bit  7 | 6 5 4 3  | 2 1 0
//!   sign | exponent | mantissa       bias 7; exponent 0: subnormal (m · 2^-9); 0x7F / 0xFF: NaN;
//!                                    no infinities; largest finite ±448 (0x7E: 1.75 · 2^8)
//! ```
//!
//! # Scaling
//!
//! A quantized matrix stores `q = e4m3(x / s)` and a scale `s` per group of elements; `x ≈ q · s`.
//!
//! * **Per tensor**: one `s = amax / 448` per matrix.
//! * **Block** (DeepGEMM's): A (M×K, activations) one `s` per 1×128 row segment along K, B (stored N×K,
//!   weights) one per 128×128 block. Layouts ([`scale_a_index`], [`scale_b_index`]):
//!
//! ```text
//! sa: ⌈K/128⌉ rows of M scales        sa[kb · M + m]      (kb = k / 128: a K block's scales of all
//!                                                          rows are contiguous, what a CTA reads per K tile)
//! sb: ⌈N/128⌉ rows of ⌈K/128⌉ scales  sb[nb · ⌈K/128⌉ + kb]
//! ```
//!
//! The GEMM computes `C[m][n] = Σ_kb sa[kb][m] · sb[nb][kb] · Σ_{k in kb} qa[m][k] · qb[n][k]`: inside a
//! K block the scales are constant, so the tensor cores sum the raw e4m3 products and the block's scale
//! product multiplies that partial sum once ("promotion" into f32 registers, `steps/f2_block_scaled.rs`).

/// The largest finite e4m3 value.
pub const E4M3_MAX: f32 = 448.0;

/// Elements of K per scale (both operands' scale blocks along K), and rows of B per scale block.
pub const SCALE_BLOCK: u32 = 128;

/// The exact value of the e4m3 byte `q` (NaN for `0x7F`/`0xFF`).
pub fn e4m3_to_f32(q: u8) -> f32 {
    let sign = if q & 0x80 != 0 { -1.0 } else { 1.0 };
    let (e, m) = ((q >> 3) & 0xF, q & 7);
    if e == 0xF && m == 7 {
        return f32::NAN;
    }
    let mag = if e == 0 { m as f32 / 512.0 } else { (8 + m) as f32 * pow2(e as i32 - 10) };
    sign * mag
}

/// `2^e` for a small `e`, exactly (no_std: no `powi`).
const fn pow2(e: i32) -> f32 {
    if e >= 0 { (1u32 << e) as f32 } else { 1.0 / (1u32 << -e) as f32 }
}

/// `x` rounded to the nearest e4m3 (ties to even), saturated to ±448 (NaN → `0x7F`): the model of
/// `cvt.rn.satfinite.e4m3x2.f32`.
pub fn f32_to_e4m3(x: f32) -> u8 {
    if x.is_nan() {
        return 0x7F;
    }
    let sign = if x.is_sign_negative() { 0x80u8 } else { 0 };
    let a = if x < 0.0 { -x } else { x };
    // Every non-negative e4m3 value in order: the codes 0..=0x7E are increasing in value.
    let mut best = 0u8;
    let mut code = 0u8;
    while code <= 0x7E {
        let v = e4m3_to_f32(code);
        let b = e4m3_to_f32(best);
        let (dv, db) = ((v - a).abs(), (b - a).abs());
        if dv < db || (dv == db && code & 1 == 0 && best & 1 == 1) {
            best = code;
        }
        code += 1;
    }
    sign | best
}

/// Where the scale of A's element `(m, k)` lives in the block-scaled `sa` (M rows of A).
pub const fn scale_a_index(m: u32, k: u32, rows: u32) -> u32 {
    (k / SCALE_BLOCK) * rows + m
}

/// Where the scale of B's element `(n, k)` (B stored N×K) lives in the block-scaled `sb` (K columns).
pub const fn scale_b_index(n: u32, k: u32, k_cols: u32) -> u32 {
    (n / SCALE_BLOCK) * k_cols.div_ceil(SCALE_BLOCK) + k / SCALE_BLOCK
}

/// Lengths of the block-scaled `sa` and `sb` for `m × n × k`.
pub const fn block_scale_lens(m: u32, n: u32, k: u32) -> (u32, u32) {
    (k.div_ceil(SCALE_BLOCK) * m, n.div_ceil(SCALE_BLOCK) * k.div_ceil(SCALE_BLOCK))
}

/// The Hopper FP8 steps' tiles (f1: 128×256, f2: 128×128; both 128 K = 128 bytes per stage row, one
/// `SWIZZLE_128B` span) and shared-memory budgets.
pub mod tiles {
    use crate::hopper::tma_hgemm::{C_STAGE_BYTES, dyn_smem};

    /// Rows of C per CTA (two consumer warpgroups of 64 rows).
    pub const BM: u32 = 128;
    /// K per stage: 128 e4m3 = 128 bytes, the 128B swizzle span; also the scale block.
    pub const BK: u32 = 128;
    /// f1's columns of C per CTA.
    pub const F1_BN: u32 = 256;
    /// f2's columns of C per CTA (one scale block of B: the promotion multiplies by one `sb`).
    pub const F2_BN: u32 = 128;
    /// Bytes of A in a stage (128 rows × 128 B: one TMA box).
    pub const A_BYTES: u32 = BM * BK;
    /// f1's stage: A and B's 256 rows × 128 B (one box: 256 rows is the TMA's largest box).
    pub const F1_STAGE_BYTES: u32 = A_BYTES + F1_BN * BK;
    /// f2's stage: A and B's 128 rows × 128 B.
    pub const F2_STAGE_BYTES: u32 = A_BYTES + F2_BN * BK;
    /// f1's stages (h6's ring: 3 × 48 KiB beside the two 32 KiB C staging tiles).
    pub const F1_STAGES: u32 = 3;
    /// f2's stages (6 × 32 KiB beside two 16 KiB C staging tiles).
    pub const F2_STAGES: u32 = 6;
    /// f1's C staging per consumer: 64 × 256 bf16 (as h6).
    pub const F1_C_STAGE_BYTES: u32 = C_STAGE_BYTES;
    /// f2's C staging per consumer: 64 × 128 bf16 (two 64×64 boxes).
    pub const F2_C_STAGE_BYTES: u32 = 64 * F2_BN * 2;
    /// f1's dynamic shared memory.
    pub const F1_DYN_SMEM: u32 = dyn_smem(F1_STAGES, F1_STAGE_BYTES, 2 * F1_C_STAGE_BYTES, 2);
    /// f12's and f13's stages: f1's and f5's with a fourth (HGEMM h6s4's change: 1.03–1.06× h6 on an
    /// H100), each consumer's C staged in two halves to make room
    /// (`crate::hopper::tma_hgemm::wide_staged_boxes`).
    pub const F12_STAGES: u32 = 4;
    /// f12's dynamic shared memory: an f1 stage is an h6 stage's bytes, so this is h6s4's.
    pub const F12_DYN_SMEM: u32 = crate::hopper::tma_hgemm::wide_dyn_smem(F12_STAGES);
    const _: () = assert!(F1_STAGE_BYTES == crate::hopper::tma_hgemm::WIDE_STAGE_BYTES && F12_DYN_SMEM <= crate::hopper::tma_hgemm::MAX_DYN_SMEM
        && F1_DYN_SMEM == crate::hopper::tma_hgemm::wide_dyn_smem(F1_STAGES));
    /// f14's dynamic shared memory: f12's and a 16-byte flag for the stream-K ticket (HGEMM h10's layout).
    pub const F14_DYN_SMEM: u32 = F12_DYN_SMEM + 16;
    const _: () = assert!(F14_DYN_SMEM == crate::hopper::tma_hgemm::H10_DYN_SMEM);
    /// f21's stages and dynamic shared memory: HGEMM h8's (an f1 stage is an h6 stage's bytes), the
    /// ring's first 128 KiB holding the CTA's f32 partial tile after the K loop.
    pub const F21_STAGES: u32 = crate::hopper::tma_hgemm::H8_STAGES;
    /// f21's dynamic shared memory (h8's: the ring and its barriers, no C staging).
    pub const F21_DYN_SMEM: u32 = crate::hopper::tma_hgemm::H8_DYN_SMEM;
    const _: () = assert!(F21_STAGES * F1_STAGE_BYTES >= crate::hopper::tma_hgemm::H8_PARTIAL_BYTES && F1_BN == crate::hopper::tma_hgemm::BN_WIDE && BM == crate::hopper::tma_hgemm::BM);
    /// f22's tile of C: 64 rows (tokens) × 64 columns (weight rows), computed transposed (the weights on
    /// `wgmma`'s M side).
    pub const F22_TILE: u32 = 64;
    /// f22's stage: 64 weight rows and 64 activation rows × 128 B (16 KiB).
    pub const F22_STAGE_BYTES: u32 = 2 * F22_TILE * BK;
    /// f22's stages: 8 × 16 KiB, as many bytes in flight as f12's 4 × 48 KiB less one stage's worth.
    pub const F22_STAGES: u32 = 8;
    /// f22's dynamic shared memory: the ring and one 8 KiB C staging box.
    pub const F22_DYN_SMEM: u32 = dyn_smem(F22_STAGES, F22_STAGE_BYTES, crate::hopper::tma_hgemm::C_BOX_BYTES, 2);
    const _: () = assert!(F22_STAGE_BYTES % 1024 == 0 && F22_DYN_SMEM <= crate::hopper::tma_hgemm::MAX_DYN_SMEM);
    /// f25's activation rows per tile (`wgmma`'s N: the tile is computed transposed).
    pub const F25_ROWS: u32 = 32;
    /// f25's weight rows per tile (two 64-row halves on `wgmma`'s M side).
    pub const F25_WEIGHT_ROWS: u32 = 128;
    /// f25's stage: 128 weight rows and 32 activation rows × 128 B (20 KiB).
    pub const F25_STAGE_BYTES: u32 = (F25_WEIGHT_ROWS + F25_ROWS) * BK;
    /// f25's stages: 10 (cuBLASLt's at 32 rows: 160 KiB of weights in flight).
    pub const F25_STAGES: u32 = 10;
    /// f25's dynamic shared memory: the ring and its barriers (C leaves by global stores).
    pub const F25_DYN_SMEM: u32 = dyn_smem(F25_STAGES, F25_STAGE_BYTES, 0, 2);
    const _: () = assert!(F25_STAGE_BYTES % 1024 == 0 && (F25_WEIGHT_ROWS * BK) % 1024 == 0 && F25_DYN_SMEM <= crate::hopper::tma_hgemm::MAX_DYN_SMEM);
    /// f26's activation rows per tile (f25 on `m64n64k32`).
    pub const F26_ROWS: u32 = 64;
    /// f26's stage: 128 weight rows and 64 activation rows × 128 B (24 KiB).
    pub const F26_STAGE_BYTES: u32 = (F25_WEIGHT_ROWS + F26_ROWS) * BK;
    /// f26's stages: 9 (as many as fit: 216 KiB, 144 KiB of weights in flight).
    pub const F26_STAGES: u32 = 9;
    /// f26's dynamic shared memory: the ring and its barriers.
    pub const F26_DYN_SMEM: u32 = dyn_smem(F26_STAGES, F26_STAGE_BYTES, 0, 2);
    const _: () = assert!(F26_STAGE_BYTES % 1024 == 0 && F26_DYN_SMEM <= crate::hopper::tma_hgemm::MAX_DYN_SMEM);
    /// f28's tile of C: 64 activation rows × 128 weight columns (cuBLASLt's at 128–256-row few-tile shapes,
    /// `ncu` in session 111), in cluster pairs of vertically adjacent tiles sharing the weight box.
    pub const F28_ROWS: u32 = 64;
    /// f28's tile columns (weight rows): 64 a consumer warpgroup.
    pub const F28_BN: u32 = 128;
    /// f28's stage: 64 activation rows, then the 128 weight rows (half loaded by each CTA of the pair, multicast
    /// to both) × 128 B (24 KiB).
    pub const F28_STAGE_BYTES: u32 = (F28_ROWS + F28_BN) * BK;
    /// f28's stages: 8 (cuBLASLt's at 256×4096×4096).
    pub const F28_STAGES: u32 = 8;
    /// f28's dynamic shared memory: the ring, one 8 KiB C staging box a consumer warpgroup, the barriers.
    pub const F28_DYN_SMEM: u32 = dyn_smem(F28_STAGES, F28_STAGE_BYTES, 2 * crate::hopper::tma_hgemm::C_BOX_BYTES, 2);
    const _: () = assert!(F28_STAGE_BYTES % 1024 == 0 && (F28_ROWS * BK) % 1024 == 0 && (F28_BN / 2 * BK) % 1024 == 0
        && F28_DYN_SMEM <= crate::hopper::tma_hgemm::MAX_DYN_SMEM);
    /// f23's scale slot per stage, after the C staging box: the 64 A scales of the stage's K block for
    /// the tile's rows, then B's one (`F23_SLOT_B`), padded to 512 bytes.
    pub const F23_SLOT_BYTES: u32 = 512;
    /// Offset of B's scale in an f23 slot.
    pub const F23_SLOT_B: u32 = 4 * F22_TILE;
    /// f23's dynamic shared memory: f22's ring and C box, and one scale slot per stage.
    pub const F23_DYN_SMEM: u32 = dyn_smem(F22_STAGES, F22_STAGE_BYTES, crate::hopper::tma_hgemm::C_BOX_BYTES + F22_STAGES * F23_SLOT_BYTES, 2);
    const _: () = assert!(F23_SLOT_B + 4 <= F23_SLOT_BYTES && F23_DYN_SMEM <= crate::hopper::tma_hgemm::MAX_DYN_SMEM);
    /// f2's dynamic shared memory.
    pub const F2_DYN_SMEM: u32 = dyn_smem(F2_STAGES, F2_STAGE_BYTES, 2 * F2_C_STAGE_BYTES, 2);
    const _: () = assert!(F1_DYN_SMEM <= crate::hopper::tma_hgemm::MAX_DYN_SMEM && F2_DYN_SMEM <= crate::hopper::tma_hgemm::MAX_DYN_SMEM
        && F1_STAGE_BYTES % 1024 == 0 && F2_STAGE_BYTES % 1024 == 0 && BK == super::SCALE_BLOCK && F2_BN == super::SCALE_BLOCK);

    /// f9's columns of C per CTA: 1.5 scale blocks of B, so a tile's columns straddle two B scale
    /// blocks (see [`f9_mid_block_is_first`]).
    pub const F9_BN: u32 = 192;
    /// The block-scaled kernel body's stage for `bn` columns: A and B's `bn` rows × 128 B.
    pub const fn block_stage_bytes(bn: u32) -> u32 {
        A_BYTES + bn * BK
    }
    /// Its C staging per consumer: 64 × `bn` bf16.
    pub const fn block_c_stage_bytes(bn: u32) -> u32 {
        64 * bn * 2
    }
    /// Its stages: as many as fit beside the two C staging tiles, at most 6 (f2: 6 × 32 KiB; f9: 4 ×
    /// 40 KiB beside two 24 KiB staging tiles — 5 would need 245 KiB).
    pub const fn block_stages(bn: u32) -> u32 {
        fit_stages(block_stage_bytes(bn), 2 * block_c_stage_bytes(bn))
    }
    /// Its dynamic shared memory.
    pub const fn block_dyn_smem(bn: u32) -> u32 {
        dyn_smem(block_stages(bn), block_stage_bytes(bn), 2 * block_c_stage_bytes(bn), 2)
    }
    /// Stages of `stage_bytes` that fit beside `extra_bytes` (and a full and an empty barrier each), at most 6.
    /// f27's tile widths: 128 rows × 192, 320 or 384 columns (3, 5, 6 boxes of 64), f12's CTA on the
    /// width whose tile count fits the SMs' rounds best (f12's 256 is the fourth); then 128 (f27n128, session
    /// 106, in the few-tile choice since session 108: twice f12's tiles where 128×256 ones leave most SMs idle).
    pub const F27_WIDTHS: [u32; 4] = [192, 320, 384, 128];
    /// f27's stage for `bn` columns: A and B's `bn` rows × 128 B (B by one TMA box up to 256 rows, by two
    /// of `bn / 2` rows beyond: 256 rows is the TMA's largest box).
    pub const fn f27_stage_bytes(bn: u32) -> u32 {
        A_BYTES + bn * BK
    }
    /// f27's C staging per consumer: two 8 KiB boxes (f12's halves; the tile's boxes go out in pairs).
    pub const F27_STAGED_BOXES: u32 = 2;
    /// f27's stages for `bn` columns: as many as fit (128: 6, 192: 4, 320 and 384: 3).
    pub const fn f27_stages(bn: u32) -> u32 {
        fit_stages(f27_stage_bytes(bn), 2 * F27_STAGED_BOXES * crate::hopper::tma_hgemm::C_BOX_BYTES)
    }
    /// f27's dynamic shared memory for `bn` columns.
    pub const fn f27_dyn_smem(bn: u32) -> u32 {
        dyn_smem(f27_stages(bn), f27_stage_bytes(bn), 2 * F27_STAGED_BOXES * crate::hopper::tma_hgemm::C_BOX_BYTES, 2)
    }
    /// B's TMA box rows of an f27 tile `bn` wide: the whole tile up to 256 rows, else half of it.
    pub const fn f27_b_box_rows(bn: u32) -> u32 {
        if bn > 256 { bn / 2 } else { bn }
    }
    const _: () = {
        let mut i = 0;
        while i < F27_WIDTHS.len() {
            let bn = F27_WIDTHS[i];
            assert!(bn % 64 == 0 && f27_dyn_smem(bn) <= crate::hopper::tma_hgemm::MAX_DYN_SMEM && f27_stages(bn) >= 3);
            assert!(f27_stage_bytes(bn) % 1024 == 0 && (f27_b_box_rows(bn) * BK) % 1024 == 0 && f27_b_box_rows(bn) <= 256);
            i += 1;
        }
    };

    const fn fit_stages(stage_bytes: u32, extra_bytes: u32) -> u32 {
        let mut s = 6;
        while s > 1 && dyn_smem(s, stage_bytes, extra_bytes, 2) > crate::hopper::tma_hgemm::MAX_DYN_SMEM {
            s -= 1;
        }
        s
    }

    /// f15's scale slot at the end of each stage: the K block's A scales of the tile's 128 rows (one
    /// TMA box of 128 f32 from `sa`'s row `kb`, 512 bytes), then its two B scales (the scale blocks of
    /// the tile's first and second 128 columns, written by the producer thread), padded so that the next
    /// stage stays 1024-aligned:
    ///
    /// ```text
    /// stage: | A 128 × 128 B | B bn × 128 B | sa[kb][m0 .. m0+128] (512 B) | sb first, second (8 B) | pad |
    ///                                        ^ block_stage_bytes(bn)        ^ + SCALE_SLOT_B
    /// ```
    pub const SCALE_SLOT_BYTES: u32 = 1024;
    /// Offset of the two B scales in the slot.
    pub const SCALE_SLOT_B: u32 = BM * 4;
    /// A stage that carries its scales: [`block_stage_bytes`] and the slot.
    pub const fn staged_stage_bytes(bn: u32) -> u32 {
        block_stage_bytes(bn) + SCALE_SLOT_BYTES
    }
    /// Stages of that size beside the two C staging tiles.
    pub const fn staged_stages(bn: u32) -> u32 {
        fit_stages(staged_stage_bytes(bn), 2 * block_c_stage_bytes(bn))
    }
    /// Dynamic shared memory of the block-scaled body whose stages carry their scales.
    pub const fn staged_dyn_smem(bn: u32) -> u32 {
        dyn_smem(staged_stages(bn), staged_stage_bytes(bn), 2 * block_c_stage_bytes(bn), 2)
    }
    /// f9's dynamic shared memory.
    pub const F9_DYN_SMEM: u32 = block_dyn_smem(F9_BN);
    const _: () = assert!(block_stages(F2_BN) == F2_STAGES && block_dyn_smem(F2_BN) == F2_DYN_SMEM && block_stages(F9_BN) == 4
        && F9_DYN_SMEM <= crate::hopper::tma_hgemm::MAX_DYN_SMEM && block_stage_bytes(F9_BN) % 1024 == 0);
    /// f15's dynamic shared memory: f9's four stages, each with its scale slot.
    pub const F15_DYN_SMEM: u32 = staged_dyn_smem(F9_BN);
    /// f16's dynamic shared memory: f15's and a 16-byte flag for the stream-K ticket (h10's layout).
    pub const F16_DYN_SMEM: u32 = dyn_smem(staged_stages(F9_BN), staged_stage_bytes(F9_BN), 2 * block_c_stage_bytes(F9_BN) + 16, 2);
    const _: () = assert!(F16_DYN_SMEM == F15_DYN_SMEM + 16 && F16_DYN_SMEM <= crate::hopper::tma_hgemm::MAX_DYN_SMEM);
    const _: () = assert!(staged_stages(F9_BN) == 4 && F15_DYN_SMEM <= crate::hopper::tma_hgemm::MAX_DYN_SMEM
        && staged_stage_bytes(F9_BN) % 1024 == 0 && SCALE_SLOT_B + 8 <= SCALE_SLOT_BYTES);

    /// f17's tile: 192 × 192 (three consumer warpgroups of 64 rows, each `m64n192k32`), cuBLASLt's own
    /// per-tensor FP8 tile at 2048×11008×4096 on an H100 (`nvjet_sm90_qqtst_192x192_128x4_2x1`,
    /// `results/2026-11-25-h100-session18`).
    pub const F17_BM: u32 = 192;
    /// f17's columns of C per CTA.
    pub const F17_BN: u32 = 192;
    /// f17's consumer warpgroups (64 rows each) and the registers each of their threads gets with
    /// `setmaxnreg` at 512 threads per CTA: the launch gives 128 a thread (65536 / 512); the producer
    /// warpgroup drops to 40, which frees 88 · 128 = 11264, of which the 384 consumer threads take 24
    /// each (32 would need 12288; f19 takes them with a producer of 24).
    pub const F17_CONSUMERS: u32 = 3;
    /// See [`F17_CONSUMERS`].
    pub const F17_CONSUMER_REGS: u32 = 152;
    /// The producer warpgroup's registers under f17 and f18.
    pub const F17_PRODUCER_REGS: u32 = 40;
    /// f19's (block scales: 64 fresh + 64 promoted accumulators a consumer thread, which spilled 24
    /// bytes at 152): the producer drops to 24, which frees 104 · 128 = 13312, of which the consumers
    /// take 32 each (12288).
    pub const F19_PRODUCER_REGS: u32 = 24;
    /// f19's consumer registers.
    pub const F19_CONSUMER_REGS: u32 = 160;
    const _: () = assert!(128 * (128 - F19_PRODUCER_REGS) >= 3 * 128 * (F19_CONSUMER_REGS - 128) && F19_CONSUMER_REGS % 8 == 0);
    const _: () = assert!(128 * (128 - F17_PRODUCER_REGS) >= 3 * 128 * (F17_CONSUMER_REGS - 128) && F17_CONSUMER_REGS % 8 == 0
        && F17_BM == 64 * F17_CONSUMERS && 65536 / (128 * (F17_CONSUMERS + 1)) == 128);
    /// f17's stage: A's 192 rows and B's 192 rows × 128 B (48 KiB, as f1's).
    pub const F17_STAGE_BYTES: u32 = (F17_BM + F17_BN) * BK;
    /// f17's C staging per consumer: 64 × 192 bf16 (three 64×64 boxes, staged at once).
    pub const F17_C_STAGE_BYTES: u32 = 64 * F17_BN * 2;
    /// f17's stages: three fit beside the three consumers' C staging (4 × 48 KiB + 72 KiB is 264 KiB).
    pub const F17_STAGES: u32 = 3;
    /// f17's dynamic shared memory.
    pub const F17_DYN_SMEM: u32 = dyn_smem(F17_STAGES, F17_STAGE_BYTES, F17_CONSUMERS * F17_C_STAGE_BYTES, 2);
    /// f18's stages: f17's with a fourth, each consumer's C staged one 64×64 box at a time to make room.
    pub const F18_STAGES: u32 = 4;
    /// f18's C staging per consumer: one 64×64 bf16 box.
    pub const F18_C_STAGE_BYTES: u32 = crate::hopper::tma_hgemm::C_BOX_BYTES;
    /// f18's dynamic shared memory.
    pub const F18_DYN_SMEM: u32 = dyn_smem(F18_STAGES, F17_STAGE_BYTES, F17_CONSUMERS * F18_C_STAGE_BYTES, 2);
    const _: () = assert!(F18_DYN_SMEM <= crate::hopper::tma_hgemm::MAX_DYN_SMEM
        && dyn_smem(F18_STAGES, F17_STAGE_BYTES, 2 * F17_CONSUMERS * F18_C_STAGE_BYTES, 2) > crate::hopper::tma_hgemm::MAX_DYN_SMEM);
    const _: () = assert!(F17_DYN_SMEM <= crate::hopper::tma_hgemm::MAX_DYN_SMEM && F17_STAGE_BYTES % 1024 == 0 && (F17_BM * BK) % 1024 == 0
        && dyn_smem(F17_STAGES + 1, F17_STAGE_BYTES, F17_CONSUMERS * F17_C_STAGE_BYTES, 2) > crate::hopper::tma_hgemm::MAX_DYN_SMEM);

    /// f19's tile: 192 × 128 with block scales (three consumer warpgroups of 64 rows, each
    /// `m64n128k32` into 64 fresh and 64 promoted registers: one B scale block per tile).
    pub const F19_BN: u32 = 128;
    /// Offset of f19's B scale in its stage's scale slot, after the 192 A scales:
    ///
    /// ```text
    /// stage: | A 192 × 128 B | B 128 × 128 B | sa[kb][m0 .. m0+192] (768 B) | sb (4 B) | pad to 1 KiB |
    /// ```
    pub const F19_SCALE_SLOT_B: u32 = F17_BM * 4;
    /// f19's stage: A, B and the scale slot (41 KiB).
    pub const F19_STAGE_BYTES: u32 = (F17_BM + F19_BN) * BK + SCALE_SLOT_BYTES;
    /// f19's C staging per consumer: 64 × 128 bf16 (two boxes, staged at once).
    pub const F19_C_STAGE_BYTES: u32 = 64 * F19_BN * 2;
    /// f19's stages: four fit beside the three consumers' C staging (five would need 254 KiB).
    pub const F19_STAGES: u32 = 4;
    /// f19's dynamic shared memory.
    pub const F19_DYN_SMEM: u32 = dyn_smem(F19_STAGES, F19_STAGE_BYTES, F17_CONSUMERS * F19_C_STAGE_BYTES, 2);
    const _: () = assert!(F19_DYN_SMEM <= crate::hopper::tma_hgemm::MAX_DYN_SMEM && F19_STAGE_BYTES % 1024 == 0 && F19_SCALE_SLOT_B + 4 <= SCALE_SLOT_BYTES
        && F19_BN == super::SCALE_BLOCK
        && dyn_smem(F19_STAGES + 1, F19_STAGE_BYTES, F17_CONSUMERS * F19_C_STAGE_BYTES, 2) > crate::hopper::tma_hgemm::MAX_DYN_SMEM);

    /// f20's dynamic shared memory: f19's and a 16-byte flag for the stream-K ticket (h10's layout).
    pub const F20_DYN_SMEM: u32 = dyn_smem(F19_STAGES, F19_STAGE_BYTES, F17_CONSUMERS * F19_C_STAGE_BYTES + 16, 2);
    const _: () = assert!(F20_DYN_SMEM == F19_DYN_SMEM + 16 && F20_DYN_SMEM <= crate::hopper::tma_hgemm::MAX_DYN_SMEM
        && F17_CONSUMERS * 64 * F19_BN * 4 <= crate::hopper::tma_hgemm::STREAM_K_SLOT_BYTES);

    /// Whether columns 64…127 of the f9 tile at column `n0` (a multiple of 192) take the tile's first
    /// B scale block (`true` where `n0` starts a block) or its second (`n0 ≡ 64 mod 128`). Columns 0…63
    /// always take the first, 128…191 always the second:
    ///
    /// ```text
    /// n0 % 128 == 0:   | 0 ─ 63 | 64 ─ 127 | 128 ─ 191 |    scale blocks  n0/128 | n0/128 | n0/128 + 1
    /// n0 % 128 == 64:  | 0 ─ 63 | 64 ─ 127 | 128 ─ 191 |    scale blocks  n0/128 | n0/128 + 1 | n0/128 + 1
    /// ```
    pub const fn f9_mid_block_is_first(n0: u32) -> bool {
        n0 % super::SCALE_BLOCK == 0
    }
}


/// FP8 **weight-only** decode (`kernels-gpu/src/fp8/steps/w1_weight_only.rs`): `Y (M×N) = X (M×K) ·
/// Wᵀ` with W stored N×K in e4m3 and one **power-of-two** scale per 128×128 block (`sb`, in
/// [`scale_b_index`]'s layout), X and Y in 16 bits (bf16 or f16). A power of two times an e4m3 value is
/// exact in bf16 and f16, so a kernel widens each weight byte with integer operations ([`widen_lo`](weights::widen_lo),
/// [`widen_hi`](weights::widen_hi)) and one 16-bit multiply by `2^(bias + e)` ([`multiplier`](weights::multiplier)), and the tensor cores sum
/// exactly the products of the dequantized weights — no f32 scale left for the epilogue.
pub mod weights {
    use super::E4M3_MAX;

    /// Rows of W (columns of Y) per block: two m16 tiles per warp, all warps of a block on the same rows.
    pub const ROWS: u32 = 32;
    /// Warps per block; each takes every `WARPS`-th step of the block's part of K.
    pub const WARPS: u32 = 8;
    /// Threads per block.
    pub const THREADS: u32 = 32 * WARPS;
    /// K per warp step: each lane loads 16 bytes of two rows of each m16 tile (4 lanes a row).
    pub const STEP_K: u32 = 64;
    /// Bit of the w1 and w5 kernels' `flags`: the weights and their scales are not written by the grid
    /// launched just before on the stream (a model's weights), so a kernel launched with PDL reads its
    /// first step's weights before `griddepcontrol.wait` (HGEMM d2's `DECODE_B_AT_LAUNCH`, for w1).
    pub const W1_W_AT_LAUNCH: u32 = 1;
    /// The most token rows (M) a launch takes: `8 · TOKEN_TILES` for its n8 tiles (1, 2 or 4).
    pub const MAX_TOKENS: u32 = 32;

    /// Dynamic shared memory of the kernel with `nt` token tiles: the warps' accumulators for the
    /// block's reduction (`WARPS · 32 lanes · 2 row tiles · nt · 4` f32) and a word for the last split's flag.
    pub const fn smem_bytes(nt: u32) -> u32 {
        WARPS * 32 * 2 * nt * 4 * 4 + 16
    }

    /// **The packed layout** (step w5): W's bytes in the order a warp loads them. A warp step (32 rows ×
    /// 64 of K, [`ROWS`] × [`STEP_K`]) is 2 KiB contiguous, tile by tile and step by step along K; inside it,
    /// load `i = 2·rt + h` (row tile `rt`, half `h`) is 512 contiguous bytes, lane `l = 4g + t` holding
    /// bytes `16t .. 16t + 16` of the step's row `16·rt + 8·h + g`. So every load instruction of a warp
    /// reads four whole 128-byte lines, where the natural N×K layout gives each of its eight rows half a
    /// line. Rows are padded to a multiple of [`ROWS`] and K to one of [`STEP_K`], with zero bytes.
    ///
    /// ```text
    /// W (N×K)          packed: [tile][step][load i][lane][16 bytes]
    /// rows 0..32  ─┐   tile 0: step 0 (2 KiB) │ step 1 │ … │ step ⌈K/64⌉−1
    /// rows 32..64 ─┘   tile 1: …
    /// ```
    pub const PACKED_STEP_BYTES: u32 = ROWS * STEP_K;

    /// Bytes of `n × k` weights in the packed layout (rows padded to [`ROWS`], K to [`STEP_K`]).
    pub const fn packed_len(n: u32, k: u32) -> usize {
        n.div_ceil(ROWS) as usize * ROWS as usize * k.div_ceil(STEP_K) as usize * STEP_K as usize
    }

    /// Offset in the packed layout of the 16 bytes lane `lane` loads for load `i` (`2·rt + h`) of warp
    /// step `step` (K `64·step ..`) of row tile `tile`, for weights of `k` columns.
    pub const fn packed_chunk(tile: u32, step: u32, i: u32, lane: u32, k: u32) -> usize {
        ((tile as usize * k.div_ceil(STEP_K) as usize + step as usize) * 4 + i as usize) * 512 + 16 * lane as usize
    }

    /// Offset in the packed layout of `W[r][c]` (`k` columns).
    pub const fn packed_index(r: u32, c: u32, k: u32) -> usize {
        let rr = r % ROWS;
        let i = 2 * (rr / 16) + (rr % 16) / 8;
        let lane = 4 * (rr % 8) + (c % STEP_K) / 16;
        packed_chunk(r / ROWS, c / STEP_K, i, lane, k) + (c % 16) as usize
    }

    /// The 16-bit type an e4m3 pair is widened into.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Wide {
        /// bfloat16 (8 exponent bits, 7 mantissa bits).
        Bf16,
        /// IEEE half (5 exponent bits, 10 mantissa bits).
        F16,
    }

    impl Wide {
        /// The left shift that puts e4m3's four exponent bits under the low four of the type's exponent.
        pub const fn shift(self) -> u32 {
            match self {
                Wide::Bf16 => 4,
                Wide::F16 => 7,
            }
        }
        /// `b` such that the widened bits, read as this type, are the e4m3 value times `2^-b` (the
        /// exponent biases' difference).
        pub const fn bias(self) -> i32 {
            match self {
                Wide::Bf16 => 120,
                Wide::F16 => 8,
            }
        }
        const fn exp_bias(self) -> i32 {
            match self {
                Wide::Bf16 => 127,
                Wide::F16 => 15,
            }
        }
        const fn mant_bits(self) -> u32 {
            match self {
                Wide::Bf16 => 7,
                Wide::F16 => 10,
            }
        }
        /// The scale exponents `e` (scale `2^e`) the weights may carry: `2^(bias + e)` a normal number
        /// of the type. In bf16 every `q · 2^e` (`|q| ≥ 2^-9`) is then normal too, so the multiply is
        /// exact; in f16 a product below 2^-14 (f16's subnormals: only where `e < -5`) is rounded to
        /// f16's subnormal grid, an absolute error of at most 2^-25.
        pub const fn scale_exp_range(self) -> (i32, i32) {
            match self {
                Wide::Bf16 => (-117, 7),
                Wide::F16 => (-22, 7),
            }
        }
    }

    /// Bytes 0 and 2 of `w` (four e4m3) widened into a pair of 16-bit values (byte 0 in the low half),
    /// each `2^-bias` times the byte's value; exact, subnormal codes included.
    pub const fn widen_lo(w: u32, t: Wide) -> u32 {
        ((w & 0x007F_007F) << t.shift()) | ((w << 8) & 0x8000_8000)
    }

    /// Bytes 1 and 3 of `w` widened as [`widen_lo`] does (byte 1 in the low half).
    pub const fn widen_hi(w: u32, t: Wide) -> u32 {
        ((w >> (8 - t.shift())) & (0x7F00_7F00 >> (8 - t.shift()))) | (w & 0x8000_8000)
    }

    /// The pair `(2^(bias + e), 2^(bias + e))` in the 16-bit type for the scale `2^e` whose f32 bits
    /// are `scale_bits` (a power of two in [`Wide::scale_exp_range`]).
    pub const fn multiplier(scale_bits: u32, t: Wide) -> u32 {
        let e = ((scale_bits >> 23) & 0xFF) as i32 - 127;
        let h = ((t.bias() + e + t.exp_bias()) as u32) << t.mant_bits();
        h | h << 16
    }

    /// The pair `(2^e, 2^e)` in f16 for the scale `2^e` whose f32 bits are `scale_bits` (`e` in
    /// [`Wide::F16`]'s [`Wide::scale_exp_range`]; below `2^-14` an f16 subnormal): the multiplier of weights
    /// widened by `cvt.rn.f16x2.e4m3x2`, which gives the e4m3 values themselves (step w5 and w1 on f16
    /// activations since session 74). The product `q · 2^e` rounds once, as `2^-bias q · 2^(bias + e)` did.
    pub const fn f16_pow2_pair(scale_bits: u32) -> u32 {
        let e = ((scale_bits >> 23) & 0xFF) as i32 - 127;
        let h = if e >= -14 { ((e + 15) as u32) << 10 } else { 1u32 << (e + 24) };
        h | h << 16
    }

    /// The f32 bits of the scale of a block whose largest magnitude is `amax`: the smallest power of
    /// two `s` with `amax / s ≤ 448`, raised to the range's floor (an all-zero block gets the floor);
    /// `+inf` where the block needs more than the range's top, NaN where `amax` is NaN (the host's scale
    /// check then names the block).
    pub fn pow2_scale_bits(amax: f32, t: Wide) -> u32 {
        let r = amax / E4M3_MAX;
        if r.is_nan() {
            return f32::NAN.to_bits();
        }
        if r.is_infinite() {
            return f32::INFINITY.to_bits();
        }
        let b = r.to_bits();
        let exp = ((b >> 23) & 0xFF) as i32 - 127;
        let e = if b & 0x7F_FFFF == 0 { exp } else { exp + 1 };
        let (lo, hi) = t.scale_exp_range();
        if e > hi {
            return f32::INFINITY.to_bits();
        }
        let e = if e < lo { lo } else { e };
        ((e + 127) as u32) << 23
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f9_tiles_take_the_scale_block_of_each_column() {
        use tiles::{F9_BN, f9_mid_block_is_first};
        for tn in 0..64u32 {
            let n0 = tn * F9_BN;
            let first = n0 / SCALE_BLOCK;
            for c in 0..F9_BN {
                let block = (n0 + c) / SCALE_BLOCK;
                // The kernel's rule: 64-column block c/64 takes the first scale block, the second, or
                // (the middle one) as f9_mid_block_is_first says.
                let kernel = match c / 64 {
                    0 => first,
                    1 => if f9_mid_block_is_first(n0) { first } else { first + 1 },
                    _ => first + 1,
                };
                assert_eq!(block, kernel, "tile {tn} column {c}");
            }
        }
    }

    #[test]
    fn e4m3_decodes_the_documented_points() {
        assert_eq!(e4m3_to_f32(0x00), 0.0);
        assert_eq!(e4m3_to_f32(0x01), 1.0 / 512.0); // smallest subnormal 2^-9
        assert_eq!(e4m3_to_f32(0x08), 1.0 / 64.0); // smallest normal 2^-6
        assert_eq!(e4m3_to_f32(0x38), 1.0); // exponent 7 = bias
        assert_eq!(e4m3_to_f32(0x7E), 448.0);
        assert_eq!(e4m3_to_f32(0xFE), -448.0);
        assert!(e4m3_to_f32(0x7F).is_nan() && e4m3_to_f32(0xFF).is_nan());
        // Increasing over the non-negative codes (f32_to_e4m3's search relies on it).
        for c in 0..0x7Eu8 {
            assert!(e4m3_to_f32(c) < e4m3_to_f32(c + 1), "code {c:#x}");
        }
    }

    #[test]
    fn e4m3_rounds_to_nearest_even_and_saturates() {
        for c in 0..=0x7Eu8 {
            assert_eq!(f32_to_e4m3(e4m3_to_f32(c)), c);
            assert_eq!(f32_to_e4m3(-e4m3_to_f32(c)), c | 0x80);
        }
        assert_eq!(f32_to_e4m3(1e6), 0x7E);
        assert_eq!(f32_to_e4m3(-1e6), 0xFE);
        assert_eq!(f32_to_e4m3(f32::NAN), 0x7F);
        // 1.0625 is halfway between 1.0 (0x38, even) and 1.125 (0x39): ties to even.
        assert_eq!(f32_to_e4m3(1.0625), 0x38);
        assert_eq!(f32_to_e4m3(1.0626), 0x39);
        assert_eq!(f32_to_e4m3(1.1875), 0x3A); // halfway 1.125 / 1.25: to 1.25 (0x3A, even)
    }

    #[test]
    fn scale_indices_cover_their_arrays_once() {
        let (m, n, k) = (5u32, 300u32, 384u32);
        let (la, lb) = block_scale_lens(m, n, k);
        assert_eq!((la, lb), (3 * 5, 3 * 3));
        let mut seen = [0u32; 64];
        for r in 0..m {
            for kk in (0..k).step_by(SCALE_BLOCK as usize) {
                seen[scale_a_index(r, kk, m) as usize] += 1;
            }
        }
        assert!(seen[..la as usize].iter().all(|&c| c == 1));
        assert_eq!(scale_a_index(4, 383, m), 2 * 5 + 4);
        assert_eq!(scale_b_index(299, 0, k), 2 * 3);
        assert_eq!(scale_b_index(128, 256, k), 3 + 2);
        assert_eq!(scale_b_index(127, 127, k), 0);
    }

    #[test]
    fn widened_pairs_times_the_multiplier_are_the_e4m3_values() {
        use super::weights::{Wide, multiplier, pow2_scale_bits, widen_hi, widen_lo};
        // 2^e as an f32 for -149 <= e <= 127, exactly.
        fn p2(e: i32) -> f32 {
            if e >= -126 { f32::from_bits(((e + 127) as u32) << 23) } else { f32::from_bits(1 << (149 + e)) }
        }
        // f16 bits as f32, exactly (no half crate here).
        fn f16_value(h: u32) -> f32 {
            let (s, e, m) = ((h >> 15) & 1, ((h >> 10) & 0x1F) as i32, (h & 0x3FF) as f32);
            let v = if e == 0 { m * p2(-24) } else { (1024.0 + m) * p2(e - 25) };
            if s == 1 { -v } else { v }
        }
        let value = |bits: u32, t: Wide| match t {
            Wide::Bf16 => f32::from_bits(bits << 16),
            Wide::F16 => f16_value(bits),
        };
        for t in [Wide::Bf16, Wide::F16] {
            for q in 0..=255u32 {
                if q & 0x7F == 0x7F {
                    continue; // NaN codes: the quantizer never writes them
                }
                let want = e4m3_to_f32(q as u8);
                // Byte q in each of the four positions.
                for pos in 0..4 {
                    let w = q << (8 * pos) | 0x5A5A_5A5A & !(0xFF << (8 * pos));
                    let pair = if pos % 2 == 0 { widen_lo(w, t) } else { widen_hi(w, t) };
                    let half = if pos < 2 { pair & 0xFFFF } else { pair >> 16 };
                    let got = value(half, t) * p2(t.bias());
                    assert_eq!(got.to_bits(), want.to_bits(), "{t:?} q {q:#04x} in byte {pos}: {got} against {want}");
                }
            }
            // The multiplier of a scale 2^e is 2^(bias + e) in both halves; the range's ends included.
            let (lo, hi) = t.scale_exp_range();
            for e in [lo, -12, 0, hi] {
                let m = multiplier(((e + 127) as u32) << 23, t);
                assert_eq!(m >> 16, m & 0xFFFF);
                assert_eq!(value(m & 0xFFFF, t), p2(t.bias() + e), "{t:?} e {e}");
            }
            // Scales: the smallest power of two that keeps amax / s ≤ 448, floor and overflow.
            assert_eq!(f32::from_bits(pow2_scale_bits(448.0, t)), 1.0);
            assert_eq!(f32::from_bits(pow2_scale_bits(448.5, t)), 2.0);
            assert_eq!(f32::from_bits(pow2_scale_bits(1.0, t)), p2(-8), "1/448 is between 2^-9 and 2^-8");
            assert_eq!(f32::from_bits(pow2_scale_bits(0.0, t)), p2(lo));
            assert!(f32::from_bits(pow2_scale_bits(448.0 * p2(hi) * 1.01, t)).is_infinite());
            assert!(f32::from_bits(pow2_scale_bits(f32::NAN, t)).is_nan());
        }
    }

    #[test]
    fn the_f16_multiplier_is_the_scale_itself_subnormals_included() {
        use weights::{Wide, f16_pow2_pair};
        let f16_value = |h: u32| {
            let (e, m) = ((h >> 10) & 0x1F, h & 0x3FF);
            if e == 0 { m as f64 * 2f64.powi(-24) } else { (1.0 + m as f64 / 1024.0) * 2f64.powi(e as i32 - 15) }
        };
        let (lo, hi) = Wide::F16.scale_exp_range();
        for e in lo..=hi {
            let pair = f16_pow2_pair(((e + 127) as u32) << 23);
            assert_eq!(pair >> 16, pair & 0xFFFF, "e {e}: both halves");
            assert_eq!(f16_value(pair & 0xFFFF), 2f64.powi(e), "e {e}");
        }
    }

    #[test]
    fn the_packed_weight_layout_is_a_bijection_onto_whole_lines() {
        extern crate std;
        use weights::{PACKED_STEP_BYTES, packed_chunk, packed_index, packed_len};
        // Ragged rows and K (a partial tile and a partial step), and an exact fit.
        for (n, k) in [(45u32, 80u32), (64, 128), (7, 16), (33, 208)] {
            let len = packed_len(n, k);
            assert_eq!(len % PACKED_STEP_BYTES as usize, 0);
            assert_eq!(len, n.div_ceil(32) as usize * 32 * k.div_ceil(64) as usize * 64);
            let mut seen = std::vec![false; len];
            for r in 0..n {
                for c in 0..k {
                    let o = packed_index(r, c, k);
                    assert!(o < len && !seen[o], "{n}x{k}: ({r}, {c}) at {o}");
                    seen[o] = true;
                    // Four consecutive columns from a multiple of 4 stay contiguous (the dequantizer's u32 reads).
                    if c % 4 == 0 && c + 3 < k {
                        assert_eq!(packed_index(r, c + 3, k), o + 3);
                    }
                }
            }
            // The lane's chunk of a load holds the row and K positions the kernel's fragment wants: row
            // 16·rt + 8·h + g of the tile, K 64·step + 16·t ..
            for tile in 0..n.div_ceil(32) {
                for step in 0..k.div_ceil(64) {
                    for i in 0..4 {
                        for lane in 0..32 {
                            let (r, c) = (32 * tile + 16 * (i / 2) + 8 * (i % 2) + lane / 4, 64 * step + 16 * (lane % 4));
                            if r < n && c < k {
                                assert_eq!(packed_index(r, c, k), packed_chunk(tile, step, i, lane, k));
                            }
                        }
                        // One load of the warp: 512 contiguous bytes.
                        assert_eq!(packed_chunk(tile, step, i, 31, k) + 16 - packed_chunk(tile, step, i, 0, k), 512);
                    }
                }
            }
        }
    }
}
