//! Row padding: the plain "pad each row by P elements" of seeds 000/001, and TVM's `storage_align`
//! (seed 002), which pads a row stride to `offset` modulo `factor`.

/// `stride + pad`: seeds 000/001 pad a 16-element f16 row by 8 (`16 + 8 = 24` elements, 48 bytes), so
/// consecutive rows start 12 banks apart instead of 8.
pub const fn pad_row(cols: u32, pad: u32) -> u32 {
    cols + pad
}

/// TVM's `storage_align(factor, offset)`: the smallest stride `>= stride` with
/// `stride' % factor == offset`, i.e. `stride + (factor + offset - stride % factor) % factor`.
///
/// ```text
/// stride = 1024, factor = 100, offset = 8:  1024 % 100 = 24;  (100 + 8 - 24) % 100 = 84;  1024 + 84 = 1108
/// f16 GEMM tile, stride 32, factor 32, offset 8:  32 + 8 = 40 elements (80 B: rows 20 banks apart)
/// ```
///
/// `factor` must be nonzero and `offset < factor` (TVM's contract); this returns `None` otherwise.
pub const fn storage_align(stride: u32, factor: u32, offset: u32) -> Option<u32> {
    if factor == 0 || offset >= factor {
        return None;
    }
    Some(stride + (factor + offset - stride % factor) % factor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_002_example() {
        assert_eq!(storage_align(1024, 100, 8), Some(1108));
    }

    #[test]
    fn storage_align_is_minimal_and_hits_the_residue() {
        for stride in 0..200 {
            for factor in 1..40 {
                for offset in 0..factor {
                    let s = storage_align(stride, factor, offset).unwrap();
                    assert_eq!(s % factor, offset);
                    assert!(s >= stride && s - stride < factor);
                }
            }
        }
        assert_eq!(storage_align(32, 0, 0), None);
        assert_eq!(storage_align(32, 8, 8), None);
    }

    #[test]
    fn seed_000_padding() {
        assert_eq!(pad_row(16, 8), 24);
    }
}
