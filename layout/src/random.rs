//! Counter-based random inputs: element `i` of a buffer filled with seed `s` is a pure function of
//! `(s, i)`, so the GPU fills a buffer of any size in one pass with no host copy (`kernels-gpu`'s
//! `check` kernels) and the host computes any element it wants to compare (the GPU tests do, bit for
//! bit). The hash is splitmix64's finaliser over `seed ^ (i · golden ratio)`.
//!
//! Every distribution is *exact* in f32: a 23- or 24-bit integer times a power of two, with no
//! rounding step, so the device (where LLVM may fuse a multiply and an add) and the host agree to the
//! bit. Converting to f16/bf16 afterwards rounds to nearest even on both sides.

/// The 64-bit hash of element `i` under `seed`.
///
/// ```text
/// z = seed ^ (i · 0x9E3779B97F4A7C15)
/// z = (z ^ z>>30) · 0xBF58476D1CE4E5B9
/// z = (z ^ z>>27) · 0x94D049BB133111EB
/// z ^ z>>31
/// ```
#[inline(always)]
pub const fn hash(seed: u64, i: u64) -> u64 {
    let mut z = seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// What a fill draws from. The discriminants are the `dist` argument of the fill kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Dist {
    /// `[-1, 1)` in steps of 2^-23 (GEMM operands: signed, so sums cancel as real data does).
    Symmetric = 0,
    /// `[0.5, 1.5)` in steps of 2^-23 (reduce: positive and nonzero, so a sum's relative error means
    /// something).
    Positive = 1,
    /// `±1 … ±4`, never 0 (reduce: every partial sum of a random walk of these stays far below 2^24,
    /// so any summation order is exact in f32 and a dropped or doubled element shows exactly).
    SmallInt = 2,
}

impl Dist {
    /// The distribution numbered `d` (the kernels' argument); `None` for an unknown number.
    pub const fn from_u32(d: u32) -> Option<Dist> {
        match d {
            0 => Some(Dist::Symmetric),
            1 => Some(Dist::Positive),
            2 => Some(Dist::SmallInt),
            _ => None,
        }
    }
}

/// Element `i` of a buffer filled from `dist` with `seed`, as f32 (exact; see the module doc).
///
/// ```text
/// h = hash(seed, i)
/// Symmetric: ((h >> 40) − 2^23) · 2^-23         24-bit integer, power-of-two scale
/// Positive:  ((h >> 41) + 2^22) · 2^-23         23-bit integer + 2^22 < 2^24
/// SmallInt:  ±(1 + (h >> 62)), sign from bit 0
/// ```
#[inline(always)]
pub fn value(dist: Dist, seed: u64, i: u64) -> f32 {
    let h = hash(seed, i);
    const SCALE: f32 = 1.0 / (1u32 << 23) as f32;
    match dist {
        Dist::Symmetric => ((h >> 40) as i32 - (1 << 23)) as f32 * SCALE,
        Dist::Positive => ((h >> 41) as i32 + (1 << 22)) as f32 * SCALE,
        Dist::SmallInt => {
            let m = (1 + (h >> 62)) as f32;
            if h & 1 == 0 { m } else { -m }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_stay_in_range_and_are_never_zero_where_promised() {
        for i in 0..100_000u64 {
            let s = value(Dist::Symmetric, 7, i);
            assert!((-1.0..1.0).contains(&s));
            let p = value(Dist::Positive, 7, i);
            assert!((0.5..1.5).contains(&p), "{p}");
            let n = value(Dist::SmallInt, 7, i);
            assert!(n != 0.0 && n.fract() == 0.0 && n.abs() <= 4.0);
        }
    }

    #[test]
    fn values_are_exact_multiples_of_the_grid() {
        for i in 0..10_000u64 {
            for d in [Dist::Symmetric, Dist::Positive] {
                let v = value(d, 3, i) as f64 * (1u64 << 23) as f64;
                assert_eq!(v, v.round(), "{d:?} {i}");
            }
        }
    }

    #[test]
    fn the_hash_spreads_over_the_range_and_depends_on_the_seed() {
        // Mean near the centre, both signs, all four magnitudes, seeds giving different streams.
        let n = 200_000u64;
        let mean: f64 = (0..n).map(|i| value(Dist::Symmetric, 1, i) as f64).sum::<f64>() / n as f64;
        assert!(mean.abs() < 0.01, "{mean}");
        let mean_p: f64 = (0..n).map(|i| value(Dist::Positive, 1, i) as f64).sum::<f64>() / n as f64;
        assert!((mean_p - 1.0).abs() < 0.01, "{mean_p}");
        let mut seen = [0u32; 9];
        for i in 0..1000 {
            seen[(value(Dist::SmallInt, 1, i) + 4.0) as usize] += 1;
        }
        assert!(seen.iter().enumerate().all(|(k, &c)| (k == 4) == (c == 0)), "{seen:?}");
        assert!((0..64).any(|i| value(Dist::Symmetric, 1, i) != value(Dist::Symmetric, 2, i)));
        assert_eq!(hash(5, 9), hash(5, 9));
        assert_eq!(Dist::from_u32(2), Some(Dist::SmallInt));
        assert_eq!(Dist::from_u32(3), None);
    }
}
