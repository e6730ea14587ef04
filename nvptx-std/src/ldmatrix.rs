//! `ldmatrix.sync.aligned.m8n8.{x1,x2,x4}[.trans].shared.b16`: warp-collective loads of 8×8 matrices of
//! 16-bit elements from shared memory into the register fragments `mma.sync` takes.
//!
//! Maps: [`layout::fragment::Ldmatrix`] — lanes `8·i ..` give the 16-byte, 16-byte-aligned row
//! addresses of matrix `i` (`addr_row`, `tile_addr_rc`; unused lanes' addresses are ignored), and matrix
//! `i` lands in register `i`, lane `l` holding row `l / 4`, columns `2·(l % 4)`, `+1` (`.trans`: the
//! transpose; `rc`, `tile_rc`), two f16 in one `u32`, low half first.
//!
//! Each 8×8 matrix is one shared-memory wavefront (8 rows × 16 B = 128 B, all 32 banks) when its 8 row
//! addresses fall in distinct bank groups; that is what padding and swizzling arrange.
use core::arch::asm;

macro_rules! ldmatrix_wrappers {
    ($( $(#[$doc:meta])* $name:ident : $ptx:literal, $n:literal => [$($r:ident),+] ),* $(,)?) => {$(
        $(#[$doc])*
        ///
        /// # Safety
        /// All 32 lanes execute it together (it is `.sync.aligned`); every used row address is a 16-byte
        /// aligned `.shared` address of 16 readable bytes of this block's shared memory.
        #[inline(always)]
        pub unsafe fn $name(addr: u32) -> [u32; $n] {
            $( let $r: u32; )+
            // SAFETY: forwarded to the caller. Not `pure`: collective (see `prim`).
            unsafe { asm!(concat!($ptx, " {{", ldmatrix_wrappers!(@regs $($r),+), "}}, [{addr}];"),
                          $( $r = out(reg32) $r, )+ addr = in(reg32) addr, options(nostack, readonly)) };
            [$($r),+]
        }
    )*};
    (@regs $a:ident) => { "{a}" };
    (@regs $a:ident, $b:ident) => { "{a}, {b}" };
    (@regs $a:ident, $b:ident, $c:ident, $d:ident) => { "{a}, {b}, {c}, {d}" };
}

ldmatrix_wrappers! {
    /// `ldmatrix.sync.aligned.m8n8.x1.shared.b16 {a}, [addr];` — one 8×8 matrix (rows from lanes 0–7).
    ldmatrix_x1: "ldmatrix.sync.aligned.m8n8.x1.shared.b16", 1 => [a],
    /// `ldmatrix.sync.aligned.m8n8.x2.shared.b16 {a, b}, [addr];` — two 8×8 matrices (lanes 0–15).
    ldmatrix_x2: "ldmatrix.sync.aligned.m8n8.x2.shared.b16", 2 => [a, b],
    /// `ldmatrix.sync.aligned.m8n8.x4.shared.b16 {a, b, c, d}, [addr];` — four 8×8 matrices (all lanes):
    /// with lanes 0–15 at rows 0–15 of columns 0–7 and lanes 16–31 at rows 0–15 of columns 8–15 of a
    /// row-major 16×16 tile, this is the A fragment of `mma.m16n8k16`.
    ldmatrix_x4: "ldmatrix.sync.aligned.m8n8.x4.shared.b16", 4 => [a, b, c, d],
    /// `ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {a}, [addr];`
    ldmatrix_x1_trans: "ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16", 1 => [a],
    /// `ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {a, b}, [addr];` — with the 16 rows k = 0..15 of a
    /// row-major K×N tile's 8 columns, this is the B fragment of `mma.m16n8k16`.
    ldmatrix_x2_trans: "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16", 2 => [a, b],
    /// `ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {a, b, c, d}, [addr];` — two B fragments (n 0–7
    /// and n 8–15) of a row-major 16×16 K×N tile in one instruction.
    ldmatrix_x4_trans: "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", 4 => [a, b, c, d],
}
