//! `mma.sync.aligned.m16n8k16.row.col` on tensor cores: D(16×8) = A(16×16) · B(16×8) + C, one warp.
//!
//! Fragments: [`layout::fragment::MmaM16N8K16`] (`a_rc`, `b_rc`, `c_rc` and their inverses) — lane
//! `4g + t` holds row `g` (+8), columns `2t`, `2t + 1` (+8) of each 8×8 block; f16 pairs packed in one
//! `u32`, low half first; A 4 regs, B 2 regs, C/D 4 f32 or 2 f16x2 regs. These are exactly what
//! `ldmatrix_x4` (A, row-major tile) and `ldmatrix_x2_trans` / `ldmatrix_x4_trans` (B from a row-major
//! K×N tile) deliver.
use core::arch::asm;

/// `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {d0..d3}, {a0..a3}, {b0, b1}, {d0..d3};`
/// — f16 inputs, f32 accumulation in place: `acc += A · B`.
///
/// # Safety
/// All 32 lanes execute it together with fragments in the layout above (sm_80+).
#[inline(always)]
pub unsafe fn mma_m16n8k16_f32_f16(acc: &mut [f32; 4], a: [u32; 4], b: [u32; 2]) {
    // SAFETY: forwarded to the caller; register-only. Not `pure`: collective.
    unsafe {
        asm!("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {{{0}, {1}, {2}, {3}}}, {{{4}, {5}, {6}, {7}}}, {{{8}, {9}}}, {{{0}, {1}, {2}, {3}}};",
             inout(reg32) acc[0], inout(reg32) acc[1], inout(reg32) acc[2], inout(reg32) acc[3],
             in(reg32) a[0], in(reg32) a[1], in(reg32) a[2], in(reg32) a[3], in(reg32) b[0], in(reg32) b[1],
             options(nomem, nostack))
    }
}

/// `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {d0..d3}, {a0..a3}, {b0, b1}, {d0..d3};`
/// — [`mma_m16n8k16_f32_f16`] with bf16 inputs (same fragments: bf16 pairs packed as f16 pairs are).
///
/// # Safety
/// As [`mma_m16n8k16_f32_f16`].
#[inline(always)]
pub unsafe fn mma_m16n8k16_f32_bf16(acc: &mut [f32; 4], a: [u32; 4], b: [u32; 2]) {
    // SAFETY: forwarded to the caller; register-only. Not `pure`: collective.
    unsafe {
        asm!("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {{{0}, {1}, {2}, {3}}}, {{{4}, {5}, {6}, {7}}}, {{{8}, {9}}}, {{{0}, {1}, {2}, {3}}};",
             inout(reg32) acc[0], inout(reg32) acc[1], inout(reg32) acc[2], inout(reg32) acc[3],
             in(reg32) a[0], in(reg32) a[1], in(reg32) a[2], in(reg32) a[3], in(reg32) b[0], in(reg32) b[1],
             options(nomem, nostack))
    }
}

/// `mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {d0, d1}, {a0..a3}, {b0, b1}, {d0, d1};`
/// — f16 inputs, f16 accumulation in place (each `u32` of `acc` holds two f16).
///
/// # Safety
/// All 32 lanes execute it together with fragments in the layout above (sm_80+).
#[inline(always)]
pub unsafe fn mma_m16n8k16_f16_f16(acc: &mut [u32; 2], a: [u32; 4], b: [u32; 2]) {
    // SAFETY: forwarded to the caller; register-only. Not `pure`: collective.
    unsafe {
        asm!("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {{{0}, {1}}}, {{{2}, {3}, {4}, {5}}}, {{{6}, {7}}}, {{{0}, {1}}};",
             inout(reg32) acc[0], inout(reg32) acc[1],
             in(reg32) a[0], in(reg32) a[1], in(reg32) a[2], in(reg32) a[3], in(reg32) b[0], in(reg32) b[1],
             options(nomem, nostack))
    }
}

/// `cvt.rn.f16x2.f32 d, hi, lo;` — packs two f32 into one `u32` of two f16 (round to nearest even),
/// `lo` in the low half, as the f16 fragments and `stmatrix` expect.
#[inline(always)]
pub fn pack_f16x2(lo: f32, hi: f32) -> u32 {
    let r: u32;
    // SAFETY: register-only conversion; per-thread, so `pure` is fine.
    unsafe { asm!("cvt.rn.f16x2.f32 {0}, {1}, {2};", out(reg32) r, in(reg32) hi, in(reg32) lo,
                  options(pure, nomem, nostack)) };
    r
}

/// `cvt.rn.bf16x2.f32 d, hi, lo;` — packs two f32 into one `u32` of two bf16 (round to nearest even),
/// `lo` in the low half (sm_80+).
#[inline(always)]
pub fn pack_bf16x2(lo: f32, hi: f32) -> u32 {
    let r: u32;
    // SAFETY: register-only conversion; per-thread, so `pure` is fine.
    unsafe { asm!("cvt.rn.bf16x2.f32 {0}, {1}, {2};", out(reg32) r, in(reg32) hi, in(reg32) lo,
                  options(pure, nomem, nostack)) };
    r
}

/// `cvt.f32.f16 d, h;` — widens one f16 (its bits) to f32, exactly.
#[inline(always)]
pub fn f16_to_f32(h: u16) -> f32 {
    let r: f32;
    // SAFETY: register-only conversion; per-thread, so `pure` is fine.
    unsafe { asm!("cvt.f32.f16 {0}, {1};", out(reg32) r, in(reg16) h, options(pure, nomem, nostack)) };
    r
}
