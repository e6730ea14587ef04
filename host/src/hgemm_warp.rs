//! Seed 001's single-warp 16×16×16 ladder (`hgemm_warp_v1` … `v5`): runs each step on random f16 tiles
//! against an f64 reference, and predicts each step's shared-memory wavefronts and bank conflicts from
//! the same layouts the kernels use (instruction forms as ptxas emits them for sm_90, read with
//! `cuobjdump -sass`: `wmma.load ... .shared` is `LDSM.16.M88.4` / `LDSM.16.MT88.4` like `ldmatrix`, and
//! `wmma.store ... .shared` of the f16 accumulator is 4 × `STS` of 32 bits in the mma C-fragment layout).
use half::f16;
use layout::{
    Layout, Padded, RowMajor, SwizzleFn, Swizzled,
    bank::{self, Cost, Op},
};
use rand::Rng;

use crate::{
    error::{Error, Result},
    gpu::Gpu,
    launch, verify,
};

/// The steps, with their kernels.
pub const STEPS: [(&str, &str); 6] = [
    ("v1", "hgemm_warp_v1"), ("v2", "hgemm_warp_v2"), ("v3", "hgemm_warp_v3"), ("v4", "hgemm_warp_v4"),
    ("v4s", "hgemm_warp_v4_stmatrix"), ("v5", "hgemm_warp_v5"),
];

/// Relative L2 tolerance: 16-term dot products of values in [-1, 1], accumulated in f16 (11-bit
/// significand): rounding of each partial sum is ~2^-11 relative, so ~1e-3 typical, 1e-2 bound.
pub const TOL: f64 = 1e-2;

/// Predicted (loads, stores) for one launch of `kernel`.
pub fn predict(kernel: &str) -> Option<(Cost, Cost)> {
    const ALL: u32 = u32::MAX;
    let rm = RowMajor { rows: 16, cols: 16 };
    let padded = Padded { rows: 16, cols: 16, stride: 24 };
    let swizzled = Swizzled { inner: rm, swizzle: SwizzleFn { s: 3, b: 1, m: 3 } };
    let lanes = |f: &dyn Fn(u32) -> u32| -> [u32; 32] { std::array::from_fn(|l| f(l as u32)) };
    // 128-bit tile copy: lane t → row t / 2, column 8 (t % 2) (kernels-gpu `hgemm::tile_to_shared`).
    let copy = |l: &dyn Layout, op| bank::lsu(&lanes(&|t| 2 * l.offset(t / 2, 8 * (t % 2))), ALL, 16, op).ok();
    // ldmatrix.x4 rows (`hgemm::x4_row_addr`), one 8×8 matrix per 8 lanes.
    let ldsm = |l: &dyn Layout| bank::matrix(&lanes(&|t| 2 * l.offset(t % 16, 8 * (t / 16))), 4).ok();
    // C written in the mma C-fragment layout, 32 bits per lane per register: register i holds rows
    // g + 8 (i % 2), columns 2 (t % 4) + 8 (i / 2) (g = lane / 4). Both wmma.store and the shfl
    // stmatrix emulation write exactly these words.
    let c_frag = |l: &dyn Layout| -> Option<Cost> {
        (0..4u32).try_fold(Cost::default(), |acc, i| {
            let a = lanes(&|t| 2 * l.offset(t / 4 + 8 * (i % 2), 2 * (t % 4) + 8 * (i / 2)));
            bank::lsu(&a, ALL, 4, Op::Store).ok().map(|c| acc.add(c))
        })
    };
    let stsm = |l: &dyn Layout| bank::matrix(&lanes(&|t| 2 * l.offset(t % 16, 8 * (t / 16))), 4).ok();
    let (ab, c): (&dyn Layout, &dyn Layout) = match kernel {
        "hgemm_warp_v1" => return Some((Cost::default(), Cost::default())),
        "hgemm_warp_v2" | "hgemm_warp_v4" | "hgemm_warp_v4_stmatrix" => (&rm, &rm),
        "hgemm_warp_v3" => (&padded, &rm),
        "hgemm_warp_v5" => (&swizzled, &swizzled),
        _ => return None,
    };
    let mut st = copy(ab, Op::Store)?.add(copy(ab, Op::Store)?);
    st = st.add(if kernel == "hgemm_warp_v4_stmatrix" { stsm(c)? } else { c_frag(c)? });
    let ld = ldsm(ab)?.add(ldsm(ab)?).add(copy(c, Op::Load)?);
    Some((ld, st))
}

/// Outcome of one step.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Row {
    /// `v1` …
    pub step: &'static str,
    /// Kernel.
    pub kernel: &'static str,
    /// Relative L2 error against f64.
    pub rel_err: Option<f64>,
    /// Predicted (load wavefronts, load conflicts, store wavefronts, store conflicts).
    pub predicted: Option<(u64, u64, u64, u64)>,
    /// Failure or skip reason.
    pub error: Option<String>,
    /// Whether it was skipped (needs another GPU).
    pub skipped: bool,
}

/// Runs every step once on fresh random tiles.
pub fn run(gpu: &Gpu, seed: u64) -> Vec<Row> {
    let mut rng = verify::rng(seed ^ 0x16);
    let a: Vec<f16> = (0..256).map(|_| f16::from_f32(rng.random_range(-1.0f32..1.0))).collect();
    let b: Vec<f16> = (0..256).map(|_| f16::from_f32(rng.random_range(-1.0f32..1.0))).collect();
    let want: Vec<f64> = (0..256).map(|e| (0..16).map(|k| a[(e / 16) * 16 + k].to_f64() * b[k * 16 + e % 16].to_f64()).sum()).collect();
    STEPS.iter().map(|&(step, kernel)| {
        let predicted = predict(kernel).map(|(l, s)| (l.wavefronts, l.conflicts(), s.wavefronts, s.conflicts()));
        let r = (|| -> Result<f64> {
            let k = gpu.kernel(kernel)?;
            let (g_a, g_b) = (gpu.upload(&a.iter().map(|v| v.to_bits()).collect::<Vec<_>>())?, gpu.upload(&b.iter().map(|v| v.to_bits()).collect::<Vec<_>>())?);
            let mut g_c = gpu.upload(&vec![0xFFFFu16; 256])?; // NaN poison
            // SAFETY: every warp-ladder kernel takes (g_a, g_b: 256 f16, g_c: 256 f16), 256-byte aligned
            // allocations, one block of 32 threads (registered), static shared memory only.
            unsafe { launch!(gpu, &k, grid = 1u32, &g_a, &g_b, &mut g_c)? };
            gpu.sync_after(kernel)?;
            let c: Vec<f32> = gpu.download(&g_c)?.into_iter().map(|h| f16::from_bits(h).to_f32()).collect();
            verify::check_written(kernel, &c)?;
            let err = verify::rel_l2(&c.iter().map(|&v| v as f64).collect::<Vec<_>>(), &want);
            verify::check_tolerance(kernel, err, TOL)?;
            Ok(err)
        })();
        match r {
            Ok(e) => Row { step, kernel, rel_err: Some(e), predicted, error: None, skipped: false },
            Err(e @ Error::Unsupported { .. }) => Row { step, kernel, rel_err: None, predicted, error: Some(e.to_string()), skipped: true },
            Err(e) => Row { step, kernel, rel_err: None, predicted, error: Some(e.to_string()), skipped: false },
        }
    }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predictions_reproduce_seed_001() {
        let p = |k| { let (l, s) = predict(k).unwrap(); (l.conflicts(), s.conflicts()) };
        assert_eq!(p("hgemm_warp_v1"), (0, 0));
        assert_eq!(p("hgemm_warp_v2"), (8, 4), "seed 001: 8 load conflicts for v2");
        assert_eq!(p("hgemm_warp_v3"), (0, 12), "seed 001: 12 store conflicts after padding");
        assert_eq!(p("hgemm_warp_v4"), (8, 4));
        assert_eq!(p("hgemm_warp_v4_stmatrix"), (8, 4));
        assert_eq!(p("hgemm_warp_v5"), (0, 0), "the issue: v5 has 0 load and 0 store conflicts");
        assert!(predict("nope").is_none());
    }
}
