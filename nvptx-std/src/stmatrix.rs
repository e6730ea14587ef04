//! `stmatrix.sync.aligned.m8n8.{x1,x2,x4}[.trans].shared.b16` (sm_90+): the inverse of `ldmatrix`, storing
//! register fragments to 8×8 matrices in shared memory. Same address and fragment maps as
//! [`crate::ldmatrix`]: [`layout::fragment::Stmatrix`]. PTX for `sm_80` may contain these wrappers only if no sm_80 kernel calls
//! them (ptxas rejects `stmatrix` below sm_90); kernels that use them are built under `cfg(lab_sm90)`.
use core::arch::asm;

macro_rules! stmatrix_wrappers {
    ($( $(#[$doc:meta])* $name:ident : $ptx:literal, $n:literal => [$($i:literal : $r:ident),+] ),* $(,)?) => {$(
        $(#[$doc])*
        ///
        /// # Safety
        /// sm_90 or later; all 32 lanes execute it together; every used row address is a 16-byte aligned
        /// `.shared` address of 16 writable bytes of this block's shared memory that no other thread
        /// accesses without a barrier in between.
        #[inline(always)]
        pub unsafe fn $name(addr: u32, v: [u32; $n]) {
            // SAFETY: forwarded to the caller. Not `pure`: collective and writes memory.
            unsafe { asm!(concat!($ptx, " [{addr}], {{", stmatrix_wrappers!(@regs $($r),+), "}};"),
                          addr = in(reg32) addr, $( $r = in(reg32) v[$i], )+ options(nostack)) };
        }
    )*};
    (@regs $a:ident) => { "{a}" };
    (@regs $a:ident, $b:ident) => { "{a}, {b}" };
    (@regs $a:ident, $b:ident, $c:ident, $d:ident) => { "{a}, {b}, {c}, {d}" };
}

stmatrix_wrappers! {
    /// `stmatrix.sync.aligned.m8n8.x1.shared.b16 [addr], {a};`
    stmatrix_x1: "stmatrix.sync.aligned.m8n8.x1.shared.b16", 1 => [0: a],
    /// `stmatrix.sync.aligned.m8n8.x2.shared.b16 [addr], {a, b};`
    stmatrix_x2: "stmatrix.sync.aligned.m8n8.x2.shared.b16", 2 => [0: a, 1: b],
    /// `stmatrix.sync.aligned.m8n8.x4.shared.b16 [addr], {a, b, c, d};` — e.g. a 16×16 f16 accumulator
    /// tile (two m16n8 C fragments converted to f16) back to a row-major shared tile.
    stmatrix_x4: "stmatrix.sync.aligned.m8n8.x4.shared.b16", 4 => [0: a, 1: b, 2: c, 3: d],
    /// `stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [addr], {a};`
    stmatrix_x1_trans: "stmatrix.sync.aligned.m8n8.x1.trans.shared.b16", 1 => [0: a],
    /// `stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [addr], {a, b};`
    stmatrix_x2_trans: "stmatrix.sync.aligned.m8n8.x2.trans.shared.b16", 2 => [0: a, 1: b],
    /// `stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [addr], {a, b, c, d};`
    stmatrix_x4_trans: "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16", 4 => [0: a, 1: b, 2: c, 3: d],
}
