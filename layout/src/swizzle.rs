//! XOR swizzles: `Swizzle<S, B, M>` in the seeds' parameter order.
//!
//! ```text
//! swizzle(a) = ((a >> S) & (((1 << B) - 1) << M)) ^ a
//!
//!  bit:    … | M+S+B-1 … M+S | … | M+B-1 … M |  M-1 … 0
//!  a   =   … |  yyy (B bits) | … |  zzz      |  kept as is (2^M-unit blocks stay contiguous)
//!  out =   … |  yyy          | … |  zzz ^ yyy|  kept
//! ```
//!
//! B bits starting at bit `M + S` (the "switch", e.g. a row number) are XORed into the B bits starting
//! at bit `M` (the "target", e.g. which 16-byte chunk of a row). The low `M` bits never change, so a
//! block of `2^M` units stays contiguous (and aligned) after swizzling; the switch bits never change
//! either, which is why applying the swizzle twice gives back the address (an involution) and why it is
//! a bijection on every aligned block of `2^(M+S+B)` units.
//!
//! **CuTe equivalent:** `Swizzle<BBits = B, MBase = M, SShift = S>`, i.e. our `Swizzle<S, B, M>` is CuTe's
//! `Swizzle<B, M, S>` (seed 001's `swizzle<3,1,3>` is CuTe's `Swizzle<1,3,3>`).
//!
//! **Unit:** the function is unit-agnostic; a layout states what it applies it to. In this crate
//! [`crate::tile::Swizzled`] applies it to *element* offsets (as seed 001 does on `half` indices). The same
//! permutation on *byte* addresses of `2^k`-byte elements is `Swizzle<S, B, M + k>` ([`SwizzleFn::in_bytes`]).
//!
//! **Alignment:** a swizzled buffer must start at a multiple of `2^(M+S+B)` units (so the XOR sees the
//! same bits the layout does) and span a whole number of such blocks (so every address stays inside it).
//! The parameters need `S >= B` (the switch bits must not overlap the target bits); otherwise it is not
//! an involution.

/// The swizzle function on a `u32` address, shared by the type-level [`Swizzle`] (used in kernels)
/// and the run-time [`SwizzleFn`] (used by the solver and the bank model): one source of truth.
#[inline(always)]
pub const fn xor_swizzle(addr: u32, s: u32, b: u32, m: u32) -> u32 {
    ((addr >> s) & (((1u32 << b) - 1) << m)) ^ addr
}

/// `Swizzle<S, B, M>` as a zero-sized type, for kernels: `Swizzle::<3, 1, 3>::apply(a)` compiles to a
/// shift, an `and` and an `xor` (or folds away on constants).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Swizzle<const S: u32, const B: u32, const M: u32>;

impl<const S: u32, const B: u32, const M: u32> Swizzle<S, B, M> {
    /// Compile-time check of the parameters: `S >= B` and everything inside 32 bits.
    pub const VALID: () = assert!(S >= B && M + S + B <= 32 && B > 0, "Swizzle<S, B, M> needs S >= B > 0 and M + S + B <= 32");

    /// The swizzled address (see the module docs for the bit diagram).
    #[inline(always)]
    pub const fn apply(addr: u32) -> u32 {
        #[allow(clippy::let_unit_value)]
        let () = Self::VALID;
        xor_swizzle(addr, S, B, M)
    }

    /// The same swizzle as a run-time value.
    pub const fn as_fn() -> SwizzleFn {
        SwizzleFn { s: S, b: B, m: M }
    }
}

/// Why a swizzle or layout parameter set is rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayoutError {
    /// `S < B`: the switch bits overlap the target bits.
    SwizzleBitsOverlap { s: u32, b: u32 },
    /// `B == 0` or the bits do not fit in 32.
    SwizzleOutOfRange { s: u32, b: u32, m: u32 },
    /// A layout mapped a coordinate outside its own storage.
    OutsideTile { row: u32, col: u32, offset: u32, size: u32 },
    /// A padding or stride that cannot hold the row.
    BadStride { cols: u32, stride: u32 },
}

/// A swizzle chosen at run time (solver, bank maps, command line). Same math as [`Swizzle`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SwizzleFn {
    /// Shift from target to switch bits.
    pub s: u32,
    /// Number of bits XORed.
    pub b: u32,
    /// Lowest target bit (the `2^M`-unit blocks that stay intact).
    pub m: u32,
}

impl SwizzleFn {
    /// Checks `S >= B > 0` and `M + S + B <= 32`.
    pub const fn new(s: u32, b: u32, m: u32) -> Result<Self, LayoutError> {
        if b == 0 || m + s + b > 32 {
            return Err(LayoutError::SwizzleOutOfRange { s, b, m });
        }
        if s < b {
            return Err(LayoutError::SwizzleBitsOverlap { s, b });
        }
        Ok(SwizzleFn { s, b, m })
    }

    /// The swizzled address.
    #[inline(always)]
    pub const fn apply(self, addr: u32) -> u32 {
        xor_swizzle(addr, self.s, self.b, self.m)
    }

    /// Units in the aligned block the swizzle permutes within: `2^(M+S+B)`.
    pub const fn period(self) -> u32 {
        1 << (self.m + self.s + self.b)
    }

    /// The same permutation acting on byte addresses of elements of `2^elem_log2` bytes:
    /// `Swizzle<S, B, M + elem_log2>`.
    pub const fn in_bytes(self, elem_log2: u32) -> SwizzleFn {
        SwizzleFn { s: self.s, b: self.b, m: self.m + elem_log2 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_001_t0_to_t15_table() {
        // Seed 001: thread t stores 8 halves at element gAddr = 8t; swizzle<3,1,3> flips bit 3 when bit 6
        // is set: T8 <-> T9 (64 <-> 72), T10 <-> T11, T12 <-> T13, T14 <-> T15; T0..T7 unchanged.
        let want = [0, 8, 16, 24, 32, 40, 48, 56, 72, 64, 88, 80, 104, 96, 120, 112];
        for (t, &w) in want.iter().enumerate() {
            assert_eq!(Swizzle::<3, 1, 3>::apply(8 * t as u32), w, "T{t}");
        }
    }

    #[test]
    fn every_valid_swizzle_is_an_involution_and_a_block_bijection() {
        for s in 1..=5 {
            for b in 1..=s {
                for m in 0..=4 {
                    let f = SwizzleFn::new(s, b, m).unwrap();
                    let p = f.period();
                    for block in 0..3u32 {
                        let base = block * p;
                        let mut seen = [false; 1 << 14];
                        for a in base..base + p {
                            let y = f.apply(a);
                            assert_eq!(f.apply(y), a, "{f:?} not an involution at {a}");
                            assert!((base..base + p).contains(&y), "{f:?} leaves its block at {a}");
                            assert!(!seen[(y - base) as usize], "{f:?} not injective at {a}");
                            seen[(y - base) as usize] = true;
                            assert_eq!(y & ((1 << m) - 1), a & ((1 << m) - 1), "{f:?} moved low bits");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn bad_parameters_are_rejected() {
        assert_eq!(SwizzleFn::new(1, 2, 3), Err(LayoutError::SwizzleBitsOverlap { s: 1, b: 2 }));
        assert!(matches!(SwizzleFn::new(3, 0, 3), Err(LayoutError::SwizzleOutOfRange { .. })));
        assert!(matches!(SwizzleFn::new(20, 10, 4), Err(LayoutError::SwizzleOutOfRange { .. })));
    }

    #[test]
    fn element_and_byte_forms_agree() {
        let e = SwizzleFn::new(3, 1, 3).unwrap();
        let by = e.in_bytes(1); // f16
        for a in 0..512u32 {
            assert_eq!(2 * e.apply(a), by.apply(2 * a));
        }
        assert_eq!(Swizzle::<3, 1, 3>::as_fn(), e);
    }
}
