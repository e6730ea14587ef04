//! The 16-bit input types of the HGEMM kernels. f16 and bf16 share fragments, tile layouts, `ldmatrix`,
//! TMA boxes and `wgmma` descriptors (both are 16 bits); they differ only in the tensor-core
//! instruction's type suffix and in the f32 → 16-bit conversion of the epilogue. A kernel generic over
//! [`Elem16`] is one source for both (`hgemm_decode_v2` / `_bf16`, `hgemm_tma_v6` / `_bf16`).
use crate::prim::mma::{mma_m16n8k16_f32_bf16, mma_m16n8k16_f32_f16, pack_bf16x2, pack_f16x2};

/// A 16-bit floating-point input type of the tensor cores.
pub(crate) trait Elem16 {
    /// `mma.sync.m16n8k16` with f32 accumulation on this type.
    ///
    /// # Safety
    /// As `mma_m16n8k16_f32_f16`.
    unsafe fn mma(acc: &mut [f32; 4], a: [u32; 4], b: [u32; 2]);
    /// Two f32 rounded to this type and packed (`lo` in the low half).
    fn pack(lo: f32, hi: f32) -> u32;
    /// The two values of a packed pair widened to f32, exactly (`lo` first).
    fn unpack(x: u32) -> [f32; 2];
    /// `wgmma.m64n256k16` with f32 accumulation on this type.
    ///
    /// # Safety
    /// As `wgmma_m64n256k16_f32_f16`.
    #[cfg(lab_sm90)]
    unsafe fn wgmma_256<const TA: u32, const TB: u32>(acc: &mut [[f32; 32]; 4], desc_a: u64, desc_b: u64, scale_d: bool);
    /// `wgmma.m64n192k16` with f32 accumulation on this type (h11's 192-column tiles).
    ///
    /// # Safety
    /// As `wgmma_m64n192k16_f32_f16`.
    #[cfg(lab_sm90)]
    unsafe fn wgmma_192<const TA: u32, const TB: u32>(acc: &mut [[f32; 32]; 3], desc_a: u64, desc_b: u64, scale_d: bool);
    /// `wgmma.m64n64k16`, both operands in shared memory (decode d3: weights as the transposed A).
    ///
    /// # Safety
    /// As `wgmma_m64n64k16_f32_f16`.
    #[cfg(lab_sm90)]
    unsafe fn wgmma_64<const TA: u32, const TB: u32>(acc: &mut [f32; 32], desc_a: u64, desc_b: u64, scale_d: bool);
    /// `wgmma.m64n16k16`, both operands in shared memory (decode d13: 16 activation rows).
    ///
    /// # Safety
    /// As `wgmma_m64n16k16_f32_f16`.
    #[cfg(lab_sm90)]
    unsafe fn wgmma_16<const TA: u32, const TB: u32>(acc: &mut [f32; 8], desc_a: u64, desc_b: u64, scale_d: bool);
    /// `wgmma.m64n128k16`, both operands in shared memory (attention a6: S = Q·Kᵀ).
    ///
    /// # Safety
    /// As `wgmma_m64n128k16_f32_f16`.
    #[cfg(lab_sm90)]
    unsafe fn wgmma_128<const TA: u32, const TB: u32>(acc: &mut [[f32; 32]; 2], desc_a: u64, desc_b: u64, scale_d: u32);
    /// `wgmma.m64n128k16` with `scale-d` = 0, the accumulators written only (attention: the first
    /// K-step of S = Q·Kᵀ).
    ///
    /// # Safety
    /// As `wgmma_m64n128k16_f32_f16_zero`.
    #[cfg(lab_sm90)]
    unsafe fn wgmma_128_zero<const TA: u32, const TB: u32>(desc_a: u64, desc_b: u64) -> [[f32; 32]; 2];
    /// `wgmma.m64nNk16` on a flat accumulator of any N that `FlatWgmma` has (d21's tile heights).
    ///
    /// # Safety
    /// As `FlatWgmma::mma_f16`.
    #[cfg(lab_sm90)]
    unsafe fn wgmma_flat<const TA: u32, const TB: u32, A: crate::prim::wgmma::FlatWgmma>(acc: &mut A, desc_a: u64, desc_b: u64, scale_d: bool);
    /// `wgmma.m64n64k16` with A in registers (attention a6: O += P·V at D = 64).
    ///
    /// # Safety
    /// As `wgmma_m64n64k16_f32_f16_rs`.
    #[cfg(lab_sm90)]
    unsafe fn wgmma_64_rs<const TB: u32>(acc: &mut [f32; 32], a: [u32; 4], desc_b: u64, scale_d: u32);
    /// `wgmma.m64n128k16` with A in registers (attention a6: O += P·V at D = 128).
    ///
    /// # Safety
    /// As `wgmma_m64n128k16_f32_f16_rs`.
    #[cfg(lab_sm90)]
    unsafe fn wgmma_128_rs<const TB: u32>(acc: &mut [[f32; 32]; 2], a: [u32; 4], desc_b: u64, scale_d: u32);
    /// `wgmma.m64n64k16` with `scale-d` = 0, the accumulators written only (attention a24: the first
    /// K-step of S = Q·Kᵀ over a 64-key tile).
    ///
    /// # Safety
    /// As `wgmma_m64n64k16_f32_f16_zero`.
    #[cfg(lab_sm90)]
    unsafe fn wgmma_64_zero<const TA: u32, const TB: u32>(desc_a: u64, desc_b: u64) -> [f32; 32];
    /// `wgmma.m64n256k16` with A in registers (attention a24: O += P·V at D = 256).
    ///
    /// # Safety
    /// As `wgmma_m64n256k16_f32_f16_rs`.
    #[cfg(lab_sm90)]
    unsafe fn wgmma_256_rs<const TB: u32>(acc: &mut [[f32; 32]; 4], a: [u32; 4], desc_b: u64, scale_d: u32);
}

/// IEEE half precision.
pub(crate) struct F16;
/// bfloat16.
pub(crate) struct Bf16;

impl Elem16 for F16 {
    #[inline(always)]
    unsafe fn mma(acc: &mut [f32; 4], a: [u32; 4], b: [u32; 2]) {
        // SAFETY: forwarded.
        unsafe { mma_m16n8k16_f32_f16(acc, a, b) }
    }
    #[inline(always)]
    fn pack(lo: f32, hi: f32) -> u32 {
        pack_f16x2(lo, hi)
    }
    #[inline(always)]
    fn unpack(x: u32) -> [f32; 2] {
        [crate::prim::mma::f16_to_f32(x as u16), crate::prim::mma::f16_to_f32((x >> 16) as u16)]
    }
    #[cfg(lab_sm90)]
    #[inline(always)]
    unsafe fn wgmma_256<const TA: u32, const TB: u32>(acc: &mut [[f32; 32]; 4], desc_a: u64, desc_b: u64, scale_d: bool) {
        // SAFETY: forwarded.
        unsafe { crate::prim::wgmma::wgmma_m64n256k16_f32_f16::<TA, TB>(acc, desc_a, desc_b, scale_d) }
    }
    #[cfg(lab_sm90)]
    #[inline(always)]
    unsafe fn wgmma_192<const TA: u32, const TB: u32>(acc: &mut [[f32; 32]; 3], desc_a: u64, desc_b: u64, scale_d: bool) {
        // SAFETY: forwarded.
        unsafe { crate::prim::wgmma::wgmma_m64n192k16_f32_f16::<TA, TB>(acc, desc_a, desc_b, scale_d) }
    }
    #[cfg(lab_sm90)]
    #[inline(always)]
    unsafe fn wgmma_128<const TA: u32, const TB: u32>(acc: &mut [[f32; 32]; 2], desc_a: u64, desc_b: u64, scale_d: u32) {
        // SAFETY: forwarded.
        unsafe { crate::prim::wgmma::wgmma_m64n128k16_f32_f16::<TA, TB>(acc, desc_a, desc_b, scale_d) }
    }
    #[cfg(lab_sm90)]
    #[inline(always)]
    unsafe fn wgmma_128_zero<const TA: u32, const TB: u32>(desc_a: u64, desc_b: u64) -> [[f32; 32]; 2] {
        // SAFETY: forwarded.
        unsafe { crate::prim::wgmma::wgmma_m64n128k16_f32_f16_zero::<TA, TB>(desc_a, desc_b) }
    }
    #[cfg(lab_sm90)]
    #[inline(always)]
    unsafe fn wgmma_flat<const TA: u32, const TB: u32, A: crate::prim::wgmma::FlatWgmma>(acc: &mut A, desc_a: u64, desc_b: u64, scale_d: bool) {
        // SAFETY: forwarded.
        unsafe { acc.mma_f16::<TA, TB>(desc_a, desc_b, scale_d) }
    }
    #[cfg(lab_sm90)]
    #[inline(always)]
    unsafe fn wgmma_64<const TA: u32, const TB: u32>(acc: &mut [f32; 32], desc_a: u64, desc_b: u64, scale_d: bool) {
        // SAFETY: forwarded.
        unsafe { crate::prim::wgmma::wgmma_m64n64k16_f32_f16::<TA, TB>(acc, desc_a, desc_b, scale_d) }
    }
    #[cfg(lab_sm90)]
    #[inline(always)]
    unsafe fn wgmma_16<const TA: u32, const TB: u32>(acc: &mut [f32; 8], desc_a: u64, desc_b: u64, scale_d: bool) {
        // SAFETY: forwarded.
        unsafe { crate::prim::wgmma::wgmma_m64n16k16_f32_f16::<TA, TB>(acc, desc_a, desc_b, scale_d) }
    }
    #[cfg(lab_sm90)]
    #[inline(always)]
    unsafe fn wgmma_64_rs<const TB: u32>(acc: &mut [f32; 32], a: [u32; 4], desc_b: u64, scale_d: u32) {
        // SAFETY: forwarded.
        unsafe { crate::prim::wgmma::wgmma_m64n64k16_f32_f16_rs::<TB>(acc, a, desc_b, scale_d) }
    }
    #[cfg(lab_sm90)]
    #[inline(always)]
    unsafe fn wgmma_128_rs<const TB: u32>(acc: &mut [[f32; 32]; 2], a: [u32; 4], desc_b: u64, scale_d: u32) {
        // SAFETY: forwarded.
        unsafe { crate::prim::wgmma::wgmma_m64n128k16_f32_f16_rs::<TB>(acc, a, desc_b, scale_d) }
    }
    #[cfg(lab_sm90)]
    #[inline(always)]
    unsafe fn wgmma_64_zero<const TA: u32, const TB: u32>(desc_a: u64, desc_b: u64) -> [f32; 32] {
        // SAFETY: forwarded.
        unsafe { crate::prim::wgmma::wgmma_m64n64k16_f32_f16_zero::<TA, TB>(desc_a, desc_b) }
    }
    #[cfg(lab_sm90)]
    #[inline(always)]
    unsafe fn wgmma_256_rs<const TB: u32>(acc: &mut [[f32; 32]; 4], a: [u32; 4], desc_b: u64, scale_d: u32) {
        // SAFETY: forwarded.
        unsafe { crate::prim::wgmma::wgmma_m64n256k16_f32_f16_rs::<TB>(acc, a, desc_b, scale_d) }
    }
}

impl Elem16 for Bf16 {
    #[inline(always)]
    unsafe fn mma(acc: &mut [f32; 4], a: [u32; 4], b: [u32; 2]) {
        // SAFETY: forwarded.
        unsafe { mma_m16n8k16_f32_bf16(acc, a, b) }
    }
    #[inline(always)]
    fn pack(lo: f32, hi: f32) -> u32 {
        pack_bf16x2(lo, hi)
    }
    #[inline(always)]
    fn unpack(x: u32) -> [f32; 2] {
        // A bf16 is the high half of the f32 with the same bits.
        [f32::from_bits(x << 16), f32::from_bits(x & 0xffff_0000)]
    }
    #[cfg(lab_sm90)]
    #[inline(always)]
    unsafe fn wgmma_256<const TA: u32, const TB: u32>(acc: &mut [[f32; 32]; 4], desc_a: u64, desc_b: u64, scale_d: bool) {
        // SAFETY: forwarded.
        unsafe { crate::prim::wgmma::wgmma_m64n256k16_f32_bf16::<TA, TB>(acc, desc_a, desc_b, scale_d) }
    }
    #[cfg(lab_sm90)]
    #[inline(always)]
    unsafe fn wgmma_192<const TA: u32, const TB: u32>(acc: &mut [[f32; 32]; 3], desc_a: u64, desc_b: u64, scale_d: bool) {
        // SAFETY: forwarded.
        unsafe { crate::prim::wgmma::wgmma_m64n192k16_f32_bf16::<TA, TB>(acc, desc_a, desc_b, scale_d) }
    }
    #[cfg(lab_sm90)]
    #[inline(always)]
    unsafe fn wgmma_128<const TA: u32, const TB: u32>(acc: &mut [[f32; 32]; 2], desc_a: u64, desc_b: u64, scale_d: u32) {
        // SAFETY: forwarded.
        unsafe { crate::prim::wgmma::wgmma_m64n128k16_f32_bf16::<TA, TB>(acc, desc_a, desc_b, scale_d) }
    }
    #[cfg(lab_sm90)]
    #[inline(always)]
    unsafe fn wgmma_128_zero<const TA: u32, const TB: u32>(desc_a: u64, desc_b: u64) -> [[f32; 32]; 2] {
        // SAFETY: forwarded.
        unsafe { crate::prim::wgmma::wgmma_m64n128k16_f32_bf16_zero::<TA, TB>(desc_a, desc_b) }
    }
    #[cfg(lab_sm90)]
    #[inline(always)]
    unsafe fn wgmma_flat<const TA: u32, const TB: u32, A: crate::prim::wgmma::FlatWgmma>(acc: &mut A, desc_a: u64, desc_b: u64, scale_d: bool) {
        // SAFETY: forwarded.
        unsafe { acc.mma_bf16::<TA, TB>(desc_a, desc_b, scale_d) }
    }
    #[cfg(lab_sm90)]
    #[inline(always)]
    unsafe fn wgmma_64<const TA: u32, const TB: u32>(acc: &mut [f32; 32], desc_a: u64, desc_b: u64, scale_d: bool) {
        // SAFETY: forwarded.
        unsafe { crate::prim::wgmma::wgmma_m64n64k16_f32_bf16::<TA, TB>(acc, desc_a, desc_b, scale_d) }
    }
    #[cfg(lab_sm90)]
    #[inline(always)]
    unsafe fn wgmma_16<const TA: u32, const TB: u32>(acc: &mut [f32; 8], desc_a: u64, desc_b: u64, scale_d: bool) {
        // SAFETY: forwarded.
        unsafe { crate::prim::wgmma::wgmma_m64n16k16_f32_bf16::<TA, TB>(acc, desc_a, desc_b, scale_d) }
    }
    #[cfg(lab_sm90)]
    #[inline(always)]
    unsafe fn wgmma_64_rs<const TB: u32>(acc: &mut [f32; 32], a: [u32; 4], desc_b: u64, scale_d: u32) {
        // SAFETY: forwarded.
        unsafe { crate::prim::wgmma::wgmma_m64n64k16_f32_bf16_rs::<TB>(acc, a, desc_b, scale_d) }
    }
    #[cfg(lab_sm90)]
    #[inline(always)]
    unsafe fn wgmma_128_rs<const TB: u32>(acc: &mut [[f32; 32]; 2], a: [u32; 4], desc_b: u64, scale_d: u32) {
        // SAFETY: forwarded.
        unsafe { crate::prim::wgmma::wgmma_m64n128k16_f32_bf16_rs::<TB>(acc, a, desc_b, scale_d) }
    }
    #[cfg(lab_sm90)]
    #[inline(always)]
    unsafe fn wgmma_64_zero<const TA: u32, const TB: u32>(desc_a: u64, desc_b: u64) -> [f32; 32] {
        // SAFETY: forwarded.
        unsafe { crate::prim::wgmma::wgmma_m64n64k16_f32_bf16_zero::<TA, TB>(desc_a, desc_b) }
    }
    #[cfg(lab_sm90)]
    #[inline(always)]
    unsafe fn wgmma_256_rs<const TB: u32>(acc: &mut [[f32; 32]; 4], a: [u32; 4], desc_b: u64, scale_d: u32) {
        // SAFETY: forwarded.
        unsafe { crate::prim::wgmma::wgmma_m64n256k16_f32_bf16_rs::<TB>(acc, a, desc_b, scale_d) }
    }
}
