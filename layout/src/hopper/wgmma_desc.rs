//! `wgmma`'s 64-bit shared-memory matrix descriptor ([`WgmmaDesc`]): encoding with checked fields, and
//! the byte addresses `wgmma` reads through it for K-major and MN-major operands as the TMA writes them.
use super::tma::TmaSwizzle;
use crate::swizzle::SwizzleFn;

/// A `wgmma` shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format"):
///
/// ```text
///  63 62 | 61 … 52 | 51 50 49 | 48 … 46 | 45 ……… 32 | 31 30 | 29 ……… 16 | 15 14 | 13 ……… 0
///  layout|    0    | base off |    0    | SBO >> 4   |   0   | LBO >> 4   |   0   | addr >> 4
///  type  |         | (3 bits) |         | (14 bits)  |       | (14 bits)  |       | (14 bits)
/// ```
///
/// * `addr`: shared-memory (`.shared::cta`) byte address of the operand tile, 16-byte aligned.
/// * `LBO` (leading dimension byte offset) and `SBO` (stride dimension byte offset): for a K-major
///   operand, `SBO` is the distance between consecutive groups of 8 rows (M or N); `LBO` is the distance
///   between consecutive 16-byte core-matrix columns along K when unswizzled, and is not used by the
///   swizzled K-major modes as long as one `wgmma` K step (32 bytes of f16) fits inside the span.
/// * `base off`: only needed when a swizzled tile does not start on a pattern-period boundary; this crate
///   requires period alignment and keeps it 0.
/// * `layout type`: [`TmaSwizzle::wgmma_layout_type`].
///
/// Advancing along K inside a swizzled tile is adding `k_bytes >> 4` to the address field (the hardware
/// swizzles absolute address bits, so the XOR still sees the row's line bits): [`WgmmaDesc::advance`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WgmmaDesc(pub u64);

/// Why a descriptor cannot encode a layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DescError {
    /// A field is not a multiple of 16 bytes (`field` is "addr", "LBO" or "SBO").
    Unaligned { field: &'static str, value: u32 },
    /// A field does not fit in 14 bits after `>> 4` (256 KiB).
    TooLarge { field: &'static str, value: u32 },
    /// A swizzled operand's start is not aligned to the mode's period.
    SwizzleBase { addr: u32, period: u32 },
}

const fn field14(field: &'static str, value: u32) -> Result<u64, DescError> {
    if value % 16 != 0 {
        return Err(DescError::Unaligned { field, value });
    }
    if value >> 4 >= 1 << 14 {
        return Err(DescError::TooLarge { field, value });
    }
    Ok((value >> 4) as u64)
}

impl WgmmaDesc {
    /// Encodes a descriptor; every field is checked (see the type's bit diagram).
    pub const fn new(addr: u32, lbo: u32, sbo: u32, mode: TmaSwizzle) -> Result<WgmmaDesc, DescError> {
        let a = match field14("addr", addr) {
            Ok(v) => v,
            Err(e) => return Err(e),
        };
        let l = match field14("LBO", lbo) {
            Ok(v) => v,
            Err(e) => return Err(e),
        };
        let s = match field14("SBO", sbo) {
            Ok(v) => v,
            Err(e) => return Err(e),
        };
        if mode.span_bytes().is_some() && addr % mode.period_bytes() != 0 {
            return Err(DescError::SwizzleBase { addr, period: mode.period_bytes() });
        }
        Ok(WgmmaDesc(a | l << 16 | s << 32 | mode.wgmma_layout_type() << 62))
    }

    /// The descriptor of a K-major operand tile as the TMA writes it: `rows` rows of `row_bytes` (the
    /// box's inner extent, equal to the span when swizzled), stored at `addr`. `SBO = 8 · row_bytes`;
    /// unswizzled (`row_bytes` = 16, the core-matrix layout), `LBO` = bytes between K-adjacent core
    /// matrices = `rows · 16`.
    pub const fn k_major(addr: u32, rows: u32, row_bytes: u32, mode: TmaSwizzle) -> Result<WgmmaDesc, DescError> {
        match mode.span_bytes() {
            Some(_) => WgmmaDesc::new(addr, 16, 8 * row_bytes, mode),
            None => WgmmaDesc::new(addr, rows * 16, 8 * row_bytes, mode),
        }
    }

    /// The descriptor of a K-major operand at shared address 0 with 128-byte `SWIZZLE_128B` rows (64
    /// f16 or 128 FP8 elements of K), as the TMA writes every such tile: `SBO = 1024` between 8-row
    /// groups; the row count is not in a swizzled descriptor. Kernels [`advance`](Self::advance) it to
    /// a tile's address and along K. One constant for the HGEMM, FP8 and attention kernels.
    pub const K_MAJOR_SW128: WgmmaDesc = match WgmmaDesc::k_major(0, 8, 128, TmaSwizzle::B128) {
        Ok(d) => d,
        Err(_) => panic!("K-major SWIZZLE_128B descriptor"),
    };

    /// Start address field, in bytes.
    pub const fn addr(self) -> u32 {
        ((self.0 & 0x3fff) << 4) as u32
    }
    /// Leading dimension byte offset.
    pub const fn lbo(self) -> u32 {
        ((self.0 >> 16 & 0x3fff) << 4) as u32
    }
    /// Stride dimension byte offset.
    pub const fn sbo(self) -> u32 {
        ((self.0 >> 32 & 0x3fff) << 4) as u32
    }
    /// Base offset field (bits 49–51).
    pub const fn base_offset(self) -> u32 {
        (self.0 >> 49 & 7) as u32
    }
    /// Swizzle mode.
    pub const fn mode(self) -> TmaSwizzle {
        TmaSwizzle::from_wgmma_layout_type(self.0 >> 62)
    }

    /// The descriptor `bytes` further along K (a multiple of 16): adds `bytes >> 4` to the address field,
    /// as kernels do between the `wgmma`s of one tile. The address field wraps at 14 bits like the hardware's.
    pub const fn advance(self, bytes: u32) -> WgmmaDesc {
        let a = (self.0 & 0x3fff) + (bytes >> 4) as u64;
        WgmmaDesc(self.0 & !0x3fff | a & 0x3fff)
    }

    /// Byte address `wgmma` reads for byte `k_byte` of row `row` (M or N) of a K-major operand,
    /// modelled from the PTX ISA's canonical layouts:
    ///
    /// * swizzled (span `P`): `swizzle(addr + (row / 8) · SBO + (row % 8) · P + k_byte)`, with the mode's
    ///   swizzle on the absolute byte address (`k_byte < P`);
    /// * unswizzled: core matrices of 8 rows × 16 bytes: `addr + (row / 8) · SBO + (k_byte / 16) · LBO +
    ///   (row % 8) · 16 + k_byte % 16`.
    pub const fn k_major_byte(self, row: u32, k_byte: u32) -> u32 {
        match self.mode().byte_swizzle() {
            Some(f) => {
                let span = 16 << f.b;
                f.apply(self.addr() + (row / 8) * self.sbo() + (row % 8) * span + k_byte)
            }
            None => self.addr() + (row / 8) * self.sbo() + (k_byte / 16) * self.lbo() + (row % 8) * 16 + k_byte % 16,
        }
    }
}

impl WgmmaDesc {
    /// The descriptor of an **MN-major** 16-bit operand (e.g. `B` of a row-major `K×N` matrix, N
    /// contiguous, read by `wgmma` with `imm-trans-b = 1`) as the TMA writes it with `SWIZZLE_128B`: boxes
    /// of 64 MN elements (128 bytes) × `k_rows` rows of K, one after another along MN.
    ///
    /// ```text
    /// one box (64 MN × k_rows K), 128 B per K row:    swizzle atom = 8 K rows × 128 B = 1024 B
    ///   k = 0  | mn 0 … 63 |                          SBO = 1024: next group of 8 K rows
    ///   k = 1  | mn 0 … 63 |                          LBO = box_bytes: next 64-wide MN box
    ///   …                                              (read when one wgmma's N > 64: h4–h6's
    ///                                                   m64n256k16 spans four boxes)
    /// ```
    pub const fn mn_major_sw128(addr: u32, k_rows: u32) -> Result<WgmmaDesc, DescError> {
        WgmmaDesc::new(addr, k_rows * 128, 1024, TmaSwizzle::B128)
    }

    /// Byte address `wgmma` reads for element `(mn, k)` of a 16-bit MN-major operand under
    /// `SWIZZLE_128B` (PTX ISA canonical MN-major layout): `swizzle(addr + (mn / 64) · LBO + (k / 8) · SBO +
    /// (k % 8) · 128 + (mn % 64) · 2)`.
    pub const fn mn_major_sw128_byte(self, mn: u32, k: u32) -> u32 {
        let f = SwizzleFn { s: 3, b: 3, m: 4 };
        f.apply(self.addr() + (mn / 64) * self.lbo() + (k / 8) * self.sbo() + (k % 8) * 128 + (mn % 64) * 2)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_shared_k_major_constant_is_every_tma_tile_of_128_byte_rows() {
        use super::*;
        let d = WgmmaDesc::K_MAJOR_SW128;
        assert_eq!((d.addr(), d.sbo(), d.base_offset(), d.mode()), (0, 1024, 0, TmaSwizzle::B128));
        // The row count is not part of a swizzled descriptor: HGEMM's A (64 rows), FP8's B (256) and
        // attention's K (128) tiles are all this one.
        for rows in [8, 64, 128, 256] {
            assert_eq!(WgmmaDesc::k_major(0, rows, 128, TmaSwizzle::B128), Ok(d));
        }
    }

    use super::*;
    use crate::hopper::TmaTile2d;

    #[test]
    fn descriptor_fields_round_trip_and_reject_bad_values() {
        let d = WgmmaDesc::new(0x1_0400, 16, 1024, TmaSwizzle::B128).unwrap();
        assert_eq!((d.addr(), d.lbo(), d.sbo(), d.base_offset(), d.mode()), (0x1_0400, 16, 1024, 0, TmaSwizzle::B128));
        assert_eq!(d.0 >> 62, 1);
        assert_eq!(d.0 & 0x3fff, 0x1_0400 >> 4);
        for mode in TmaSwizzle::ALL {
            assert_eq!(TmaSwizzle::from_wgmma_layout_type(mode.wgmma_layout_type()), mode);
        }
        assert_eq!(WgmmaDesc::new(8, 16, 16, TmaSwizzle::None), Err(DescError::Unaligned { field: "addr", value: 8 }));
        assert_eq!(WgmmaDesc::new(0, 24, 16, TmaSwizzle::None), Err(DescError::Unaligned { field: "LBO", value: 24 }));
        assert_eq!(WgmmaDesc::new(0, 16, 1 << 18, TmaSwizzle::None), Err(DescError::TooLarge { field: "SBO", value: 1 << 18 }));
        assert_eq!(WgmmaDesc::new(512, 16, 1024, TmaSwizzle::B128), Err(DescError::SwizzleBase { addr: 512, period: 1024 }));
        assert!(WgmmaDesc::new(512, 16, 512, TmaSwizzle::B64).is_ok());
        assert_eq!(d.advance(32).addr(), 0x1_0420);
        assert_eq!(d.advance(32).sbo(), 1024);
    }

    /// The descriptor built for a TMA box reads, for every (row, k), the byte the TMA wrote there — for
    /// each swizzle mode, each K step of 16 f16 (32 bytes) inside the box, and rows spanning several
    /// 8-row groups.
    #[test]
    fn descriptor_reads_what_the_tma_wrote() {
        for mode in [TmaSwizzle::B32, TmaSwizzle::B64, TmaSwizzle::B128] {
            let span = mode.span_bytes().unwrap();
            let base = 3 * 1024; // period-aligned for every mode
            let tma = TmaTile2d { elem_bytes: 2, rows: 1024, cols: 1024, stride_bytes: 2048, box_rows: 64, box_cols: span / 2, swizzle: mode };
            assert!(tma.check(0).is_ok());
            let desc = WgmmaDesc::k_major(base, 64, span, mode).unwrap();
            for k_step in 0..span / 32 {
                let d = desc.advance(32 * k_step);
                for row in 0..64 {
                    for kb in (0..32).step_by(2) {
                        let col = (32 * k_step + kb) / 2;
                        assert_eq!(d.k_major_byte(row, kb), base + tma.smem_byte(row, col), "{mode:?} step {k_step} row {row} k byte {kb}");
                    }
                }
            }
        }
    }

    #[test]
    fn unswizzled_descriptor_walks_core_matrices() {
        // 64 rows × 16 f16 stored as core matrices: [k chunk][row group][8 rows × 16 B].
        let desc = WgmmaDesc::k_major(0, 64, 16, TmaSwizzle::None).unwrap();
        assert_eq!((desc.lbo(), desc.sbo()), (1024, 128));
        assert_eq!(desc.k_major_byte(0, 0), 0);
        assert_eq!(desc.k_major_byte(1, 0), 16);
        assert_eq!(desc.k_major_byte(8, 0), 128);
        assert_eq!(desc.k_major_byte(0, 16), 1024);
        assert_eq!(desc.k_major_byte(63, 31), 1024 + 7 * 128 + 7 * 16 + 15);
    }

    /// B as `K×N` row-major (N contiguous): a TMA box of 64 N × 64 K rows, read by `wgmma` MN-major one
    /// K step (16 rows = 2 swizzle atoms) at a time by advancing the start 2048 bytes.
    #[test]
    fn mn_major_descriptor_reads_what_the_tma_wrote() {
        let base = 5 * 1024;
        let tma = TmaTile2d { elem_bytes: 2, rows: 4096, cols: 4096, stride_bytes: 8192, box_rows: 64, box_cols: 64, swizzle: TmaSwizzle::B128 };
        let desc = WgmmaDesc::mn_major_sw128(base, 64).unwrap();
        assert_eq!((desc.sbo(), desc.lbo(), desc.mode()), (1024, 8192, TmaSwizzle::B128));
        for k_step in 0..4 {
            let d = desc.advance(16 * 128 * k_step);
            for k in 0..16 {
                for n in 0..64 {
                    assert_eq!(d.mn_major_sw128_byte(n, k), base + tma.smem_byte(16 * k_step + k, n), "step {k_step} k {k} n {n}");
                }
            }
        }
    }

    /// The wide HGEMM steps (h4–h6): B's stage is four TMA boxes of 64 N × 64 K rows one after another
    /// (8 KiB each), read by one `wgmma.m64n256k16` per K step through a single descriptor whose LBO
    /// (8192) steps from box to box.
    #[test]
    fn n256_descriptor_spans_four_boxes() {
        let base = 3 * 1024;
        let tma = TmaTile2d { elem_bytes: 2, rows: 4096, cols: 4096, stride_bytes: 8192, box_rows: 64, box_cols: 64, swizzle: TmaSwizzle::B128 };
        let desc = WgmmaDesc::mn_major_sw128(base, 64).unwrap();
        for k_step in 0..4 {
            let d = desc.advance(2048 * k_step);
            for k in 0..16 {
                for n in 0..256 {
                    let box_start = base + (n / 64) * tma.box_bytes();
                    assert_eq!(d.mn_major_sw128_byte(n, k), box_start + tma.smem_byte(16 * k_step + k, n % 64), "step {k_step} k {k} n {n}");
                }
            }
        }
    }
}
