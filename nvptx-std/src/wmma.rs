//! PTX `wmma` (warp matrix multiply-accumulate, sm_70+) for m16n16k16 with f16 inputs and f16
//! accumulators: the API CUDA C++'s `nvcuda::wmma` wraps. Rust has no WMMA API; these wrappers are it.
//! Fragments are opaque (8 `u32` of f16 pairs for A and B, 4 for the f16 accumulator); only `wmma`
//! instructions may interpret them.
use core::arch::asm;

macro_rules! wmma_load {
    ($( $(#[$doc:meta])* $name:ident : $ptx:literal ; )*) => {$(
        $(#[$doc])*
        ///
        /// # Safety
        /// All 32 lanes execute it together with the same `p` and `stride`; `p` points to a 16×16 tile of
        /// f16 with rows `stride` elements apart in the named state space, 16-byte aligned (stride a
        /// multiple of 8).
        #[inline(always)]
        pub unsafe fn $name(p: u64, stride: u32) -> [u32; 8] {
            let r: [u32; 8];
            let (r0, r1, r2, r3, r4, r5, r6, r7);
            // SAFETY: forwarded to the caller. Not `pure`: collective.
            unsafe { asm!(concat!($ptx, " {{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}}}, [{8}], {9};"),
                out(reg32) r0, out(reg32) r1, out(reg32) r2, out(reg32) r3, out(reg32) r4, out(reg32) r5,
                out(reg32) r6, out(reg32) r7, in(reg64) p, in(reg32) stride, options(nostack, readonly)) };
            r = [r0, r1, r2, r3, r4, r5, r6, r7];
            r
        }
    )*};
}

wmma_load! {
    /// `wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {a0..a7}, [p], stride;` — A from global memory.
    wmma_load_a_row_m16n16k16_global_f16: "wmma.load.a.sync.aligned.row.m16n16k16.global.f16";
    /// `wmma.load.b.sync.aligned.row.m16n16k16.global.f16 {b0..b7}, [p], stride;` — B (K×N row-major) from global.
    wmma_load_b_row_m16n16k16_global_f16: "wmma.load.b.sync.aligned.row.m16n16k16.global.f16";
    /// `wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 {a0..a7}, [p], stride;` — `p` a shared-window address.
    wmma_load_a_row_m16n16k16_shared_f16: "wmma.load.a.sync.aligned.row.m16n16k16.shared.f16";
    /// `wmma.load.b.sync.aligned.row.m16n16k16.shared.f16 {b0..b7}, [p], stride;` — `p` a shared-window address.
    wmma_load_b_row_m16n16k16_shared_f16: "wmma.load.b.sync.aligned.row.m16n16k16.shared.f16";
}

/// `wmma.mma.sync.aligned.row.row.m16n16k16.f16.f16 {d0..d3}, {a0..a7}, {b0..b7}, {d0..d3};` —
/// `acc += A · B` with f16 accumulation.
///
/// # Safety
/// All 32 lanes execute it together with fragments from the matching `wmma.load`s.
#[inline(always)]
pub unsafe fn wmma_mma_row_row_m16n16k16_f16_f16(acc: &mut [u32; 4], a: [u32; 8], b: [u32; 8]) {
    // SAFETY: forwarded; register-only. Not `pure`: collective.
    unsafe { asm!("wmma.mma.sync.aligned.row.row.m16n16k16.f16.f16 {{{0}, {1}, {2}, {3}}}, {{{4}, {5}, {6}, {7}, {8}, {9}, {10}, {11}}}, {{{12}, {13}, {14}, {15}, {16}, {17}, {18}, {19}}}, {{{0}, {1}, {2}, {3}}};",
        inout(reg32) acc[0], inout(reg32) acc[1], inout(reg32) acc[2], inout(reg32) acc[3],
        in(reg32) a[0], in(reg32) a[1], in(reg32) a[2], in(reg32) a[3], in(reg32) a[4], in(reg32) a[5], in(reg32) a[6], in(reg32) a[7],
        in(reg32) b[0], in(reg32) b[1], in(reg32) b[2], in(reg32) b[3], in(reg32) b[4], in(reg32) b[5], in(reg32) b[6], in(reg32) b[7],
        options(nomem, nostack)) };
}

macro_rules! wmma_store {
    ($( $(#[$doc:meta])* $name:ident : $ptx:literal ; )*) => {$(
        $(#[$doc])*
        ///
        /// # Safety
        /// All 32 lanes execute it together; `p` points to a writable 16×16 f16 tile with rows `stride`
        /// elements apart in the named state space, 16-byte aligned.
        #[inline(always)]
        pub unsafe fn $name(p: u64, d: [u32; 4], stride: u32) {
            // SAFETY: forwarded to the caller.
            unsafe { asm!(concat!($ptx, " [{0}], {{{1}, {2}, {3}, {4}}}, {5};"), in(reg64) p, in(reg32) d[0],
                in(reg32) d[1], in(reg32) d[2], in(reg32) d[3], in(reg32) stride, options(nostack)) };
        }
    )*};
}

wmma_store! {
    /// `wmma.store.d.sync.aligned.row.m16n16k16.global.f16 [p], {d0..d3}, stride;`
    wmma_store_d_row_m16n16k16_global_f16: "wmma.store.d.sync.aligned.row.m16n16k16.global.f16";
    /// `wmma.store.d.sync.aligned.row.m16n16k16.shared.f16 [p], {d0..d3}, stride;` — `p` a shared-window address.
    wmma_store_d_row_m16n16k16_shared_f16: "wmma.store.d.sync.aligned.row.m16n16k16.shared.f16";
}
