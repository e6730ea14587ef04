//! Text tables of the suite (the GEMM tables are `kernel_lab_bench::families::gemm::table`): absent values
//! print as `-`.
use std::fmt::Write as _;

use kernel_lab_bench::families::reduce::ReduceRow;

fn opt(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    v.map(f).unwrap_or_else(|| "-".into())
}

/// The reduce table as text.
pub fn reduce_table(rows: &[ReduceRow]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{:<7} {:>11} {:>11} {:>9} {:>8} {:>8} {:>9} {:>5} {:>4} {:>5} {:>5}  {}",
                     "step", "N", "median us", "GB/s", "% copy", "x v0", "rel err", "exact", "regs", "local", "launch", "kernel");
    for r in rows {
        let _ = writeln!(s, "{:<7} {:>11} {:>11} {:>9} {:>8} {:>8} {:>9} {:>5} {:>4} {:>5} {:>5}  {}{}",
            r.step, r.n,
            opt(r.time.as_ref().map(|t| t.median_ms * 1e3), |v| format!("{v:.1}")),
            opt(r.gbps, |v| format!("{v:.1}")),
            opt(r.pct_of_copy, |v| format!("{:.1}%", 100.0 * v)),
            opt(r.speedup_vs_v0, |v| format!("{v:.2}")),
            opt(r.rel_err, |v| format!("{v:.1e}")),
            r.exact_int_sum.map(|b| if b { "yes" } else { "NO" }).unwrap_or("-"),
            r.registers.map(|v| v.to_string()).unwrap_or("-".into()),
            r.local_bytes.map(|v| v.to_string()).unwrap_or("-".into()),
            r.launches, r.kernel,
            match (&r.error, r.failed(), &r.skipped) {
                (Some(e), false, _) => format!("  (not run: {e})"),
                (Some(e), true, _) => format!("  ERROR: {e}"),
                (None, true, _) => "  FAILED verification".into(),
                (None, false, Some(why)) => format!("  skipped: {why}"),
                _ => String::new(),
            });
    }
    s
}


/// The FP8 promotion study (`families::fp8::promotion_study`) at M = N = 128, K from 256 to 65536, on
/// positive and on symmetric inputs: the relative L2 error of each kernel against the f64 reference of
/// the dequantized inputs, as a table, and its rows.
pub fn promotion(gpu: &kernel_lab_bench::runtime::gpu::Gpu, seed: u64) -> kernel_lab_bench::Result<(String, Vec<kernel_lab_bench::families::fp8::PromotionRow>)> {
    use kernel_lab_bench::{families::fp8::promotion_study, runtime::device_check::Dist};
    let ks = [256, 1024, 4096, 16384, 65536];
    let mut rows = promotion_study(gpu, 128, &ks, Dist::Positive, seed)?;
    rows.extend(promotion_study(gpu, 128, &ks, Dist::Symmetric, seed)?);
    let mut t = String::from("== fp8 promotion: rel L2 error vs the f64 product of the dequantized inputs, M = N = 128 (f1 and cuBLASLt fast-accum: all of K in the tensor core; f2 and cuBLASLt default: promoted) ==\n");
    let _ = writeln!(t, "| inputs | K | f1 (no promotion) | f2 (promotion / 128) | cuBLASLt fast-accum | cuBLASLt default |\n|---|---:|---:|---:|---:|---:|");
    let opt = |v: Option<f64>| v.map(|e| format!("{e:.2e}")).unwrap_or_else(|| "-".into());
    for r in &rows {
        let _ = writeln!(t, "| {} | {} | {:.2e} | {:.2e} | {} | {} |", r.dist, r.k, r.f1, r.f2, opt(r.lt_fast), opt(r.lt_default));
    }
    Ok((t, rows))
}
