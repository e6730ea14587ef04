//! Verification: random inputs (never zeros), f64 references, error norms, poisoned outputs.
use rand::{Rng, SeedableRng, rngs::SmallRng};

use crate::error::{Error, Result};

/// A seeded random generator; the seed is printed by callers so a failure can be replayed.
pub fn rng(seed: u64) -> SmallRng {
    SmallRng::seed_from_u64(seed)
}

/// A fresh seed from the OS (a new one every run).
pub fn fresh_seed() -> u64 {
    rand::rng().random()
}

/// `n` values uniform in `[0.5, 1.5)`: nonzero, positive (so a sum is well-conditioned and its
/// relative error meaningful), with full 24-bit mantissas.
pub fn uniform_f32(rng: &mut SmallRng, n: usize) -> Vec<f32> {
    (0..n).map(|_| rng.random_range(0.5f32..1.5)).collect()
}

/// `n` small nonzero integers in `[-4, 4] \ {0}`, as f32. Their sums stay far below 2^24 in every
/// partial-sum order a reduction uses (subset sums of a random walk), so every sum is exact in f32 and
/// any dropped or duplicated element shows as an exact mismatch, at any `n`.
pub fn small_integers_f32(rng: &mut SmallRng, n: usize) -> Vec<f32> {
    (0..n).map(|_| {
        let v = rng.random_range(1..=4) as f32;
        if rng.random::<bool>() { v } else { -v }
    }).collect()
}

/// Σ x in f64 (pairwise, so the reference's own rounding is negligible).
pub fn sum_f64(x: &[f32]) -> f64 {
    if x.len() <= 256 {
        x.iter().map(|&v| v as f64).sum()
    } else {
        let (a, b) = x.split_at(x.len() / 2);
        sum_f64(a) + sum_f64(b)
    }
}

/// Relative L2 error `‖got − want‖₂ / ‖want‖₂` (or the absolute norm when `want` is all zeros).
/// A NaN anywhere gives NaN, which fails every tolerance check.
pub fn rel_l2(got: &[f64], want: &[f64]) -> f64 {
    assert_eq!(got.len(), want.len(), "rel_l2: length mismatch");
    let (mut num, mut den) = (0.0, 0.0);
    for (g, w) in got.iter().zip(want) {
        num += (g - w) * (g - w);
        den += w * w;
    }
    if den == 0.0 { num.sqrt() } else { (num / den).sqrt() }
}

/// Largest `|got − want|`; NaN if any element is NaN.
pub fn max_abs_err(got: &[f64], want: &[f64]) -> f64 {
    got.iter().zip(want).map(|(g, w)| (g - w).abs()).fold(0.0, |m, e| if e.is_nan() || m.is_nan() { f64::NAN } else { m.max(e) })
}

/// Fails, naming `what` and the first index, if any element still holds the poison (NaN) the output
/// was filled with before the launch.
pub fn check_written(what: &str, out: &[f32]) -> Result<()> {
    match out.iter().position(|v| v.is_nan()) {
        None => Ok(()),
        Some(i) => {
            let missing = out.iter().filter(|v| v.is_nan()).count();
            Err(Error::Verification(format!("{what}: {missing} of {} outputs not written (first at index {i})", out.len())))
        }
    }
}

/// `buf` downloaded from the GPU, checked fully written ([`check_written`], naming `what`), as f64 for a
/// comparison with an f64 reference.
pub fn checked_download(gpu: &crate::Gpu, buf: &cudarc::driver::CudaSlice<f32>, what: &str) -> Result<Vec<f64>> {
    let host = gpu.download(buf)?;
    check_written(what, &host)?;
    Ok(host.into_iter().map(f64::from).collect())
}

/// Fails unless `err <= tol` (NaN fails).
pub fn check_tolerance(what: &str, err: f64, tol: f64) -> Result<()> {
    if err <= tol { Ok(()) } else { Err(Error::Verification(format!("{what}: error {err:.3e} exceeds tolerance {tol:.1e}"))) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_values_are_nonzero_and_in_range() {
        let x = uniform_f32(&mut rng(1), 10_000);
        assert!(x.iter().all(|&v| (0.5..1.5).contains(&v)));
        assert!(x.windows(2).any(|w| w[0] != w[1]));
    }

    #[test]
    fn small_integers_are_nonzero_integers() {
        let x = small_integers_f32(&mut rng(2), 10_000);
        assert!(x.iter().all(|&v| v != 0.0 && v.fract() == 0.0 && v.abs() <= 4.0));
        assert!(x.iter().any(|&v| v < 0.0) && x.iter().any(|&v| v > 0.0));
    }

    #[test]
    fn sum_f64_matches_naive_sum() {
        let x = uniform_f32(&mut rng(3), 100_003);
        let naive: f64 = x.iter().map(|&v| v as f64).sum();
        assert!((sum_f64(&x) - naive).abs() < 1e-6 * naive);
    }

    #[test]
    fn error_norms() {
        assert_eq!(rel_l2(&[1.0, 2.0], &[1.0, 2.0]), 0.0);
        assert!((rel_l2(&[3.0, 4.0], &[0.0, 0.0]) - 5.0).abs() < 1e-12);
        assert!((rel_l2(&[1.1], &[1.0]) - 0.1).abs() < 1e-12);
        assert!(rel_l2(&[f64::NAN], &[1.0]).is_nan());
        assert!(max_abs_err(&[1.0, f64::NAN], &[1.0, 1.0]).is_nan());
        assert_eq!(max_abs_err(&[1.0, 3.0], &[1.5, 1.0]), 2.0);
    }

    #[test]
    fn poisoned_outputs_are_reported() {
        assert!(check_written("x", &[1.0, 2.0]).is_ok());
        let e = check_written("out", &[1.0, f32::NAN, f32::NAN]).unwrap_err().to_string();
        assert!(e.contains("2 of 3") && e.contains("index 1"), "{e}");
        assert!(check_tolerance("t", f64::NAN, 1.0).is_err());
        assert!(check_tolerance("t", 0.5, 1.0).is_ok());
    }
}
