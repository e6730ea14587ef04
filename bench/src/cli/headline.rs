//! What `cargo run --release` prints with no option: the headline first — for each family, the
//! library's own choice of kernel against that family's baseline on shapes taken from published models
//! (geometric mean, lowest, how many under 90%) — then each ladder's main path at one size. `--full`
//! runs every step of every family at every size instead.
//!
//! The GEMM shapes are a fixed sample of `../shared/shapes/shapes.py gemm` (`--sample 12 --seed 47`):
//! every linear layer of the models in `models.tsv` at token counts 1–16384, TP 1 and 2. They are a
//! yardstick drawn from the shapes people run, not a list anything is tuned to.
use std::time::Instant;

use kernel_lab_bench::{
    Gpu,
    attention::default_flash,
    families::{attention, fp8, gemm::Row, gemm_entry, reduce},
    steps::{Family, fp8::Scaling, gemm::Elem},
};

use crate::cli::{options::Options, suite};

/// `shapes.py gemm --sample 12 --seed 47`: M × N × K, model and layer.
pub const GEMM_SHAPES: [(usize, usize, usize, &str); 12] = [
    (1, 16000, 8192, "llama-2-70b lm_head, TP 2"),
    (256, 768, 1536, "gpt2 down, TP 2"),
    (2048, 64128, 4096, "llama-3-8b lm_head, TP 2"),
    (256, 2048, 1024, "llama-3.2-1b o, TP 2"),
    (16384, 57344, 8192, "llama-3-70b gate_up"),
    (8192, 2048, 4096, "llama-3.2-1b down, TP 2"),
    (8192, 28672, 8192, "llama-2-70b gate_up, TP 2"),
    (4, 5120, 2560, "llama-2-13b o, TP 2"),
    (16384, 3072, 2048, "llama-3.2-1b qkv"),
    (2048, 4096, 14336, "llama-3-8b down"),
    (256, 128256, 4096, "llama-3-8b lm_head"),
    (1, 2560, 3072, "llama-3.2-3b qkv, TP 2"),
];

/// f32 runs the GEMM shapes of at most this many FLOPs (FFMA on CUDA cores: the largest ones would
/// take a second per run).
const F32_MAX_FLOP: f64 = 2e12;

/// FP8 runs the GEMM shapes of at most this many FLOPs (each is timed against two or three cuBLASLt
/// modes in both scalings: the suite's time goes there).
const FP8_MAX_FLOP: f64 = 1e12;

/// Attention shapes (batch, heads, length, head dim), each causal and not: `shapes.py attention
/// --sample 4 --seed 47` where the head dim is one the family takes (64, 128), with K/V heads as many
/// as query heads (grouped-query heads are the inference-attention work).
pub const ATTN_SHAPES: [(usize, usize, usize, usize); 3] = [(8, 32, 512, 64), (1, 16, 8192, 64), (1, 32, 2048, 128)];

/// Reduce: 2^28 f32 (1 GiB, far beyond L2), v7 (the step every size takes) against a device copy.
const REDUCE_N: usize = 1 << 28;

/// One headline line.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Headline {
    /// The family and type (`gemm f16`).
    pub family: String,
    /// What it is measured against.
    pub baseline: String,
    /// Shapes timed.
    pub shapes: usize,
    /// Geometric mean of baseline time / our time.
    pub geomean: f64,
    /// The lowest ratio: step, shape, ratio.
    pub lowest: (String, String, f64),
    /// How many shapes ran under 0.90× the baseline.
    pub under_90: usize,
    /// Rows that failed verification or ended in an error.
    pub failed: usize,
}

impl Headline {
    fn from_ratios(family: &str, baseline: &str, ratios: &[(String, String, f64)], failed: usize) -> Option<Headline> {
        let lowest = ratios.iter().min_by(|a, b| a.2.total_cmp(&b.2))?.clone();
        Some(Headline {
            family: family.into(), baseline: baseline.into(), shapes: ratios.len(),
            geomean: (ratios.iter().map(|r| r.2.ln()).sum::<f64>() / ratios.len() as f64).exp(),
            lowest, under_90: ratios.iter().filter(|r| r.2 < 0.9).count(), failed,
        })
    }
}

/// The headline table.
pub fn table(lines: &[Headline]) -> String {
    let lows: Vec<String> = lines.iter().map(|h| format!("{:.2}× ({}, {})", h.lowest.2, h.lowest.0, h.lowest.1)).collect();
    let w = lows.iter().map(|l| l.chars().count()).max().unwrap_or(0).max("lowest (step, shape)".len());
    let mut t = format!("{:<16} {:<36} {:>6} {:>8}  {:<w$} {:>6} {:>6}\n", "family", "the library's choice against", "shapes", "geomean", "lowest (step, shape)", "< 0.90", "failed");
    for (h, low) in lines.iter().zip(&lows) {
        t += &format!("{:<16} {:<36} {:>6} {:>7.3}×  {:<w$} {:>6} {:>6}\n", h.family, h.baseline, h.shapes, h.geomean, low, h.under_90, h.failed);
    }
    t
}

/// Progress on stderr: one short line per measured row, so a long family never looks stuck.
fn progress(family: &'static str) -> impl FnMut(&str) {
    let mut n = 0;
    move |msg: &str| {
        n += 1;
        eprintln!("  [{family} {n}] {msg}");
    }
}

/// The GEMM entry point at `shapes` in `elem`: its rows and headline.
fn gemm_headline(gpu: &Gpu, o: &Options, elem: Elem, shapes: &[(usize, usize, usize)]) -> kernel_lab_bench::Result<(Vec<Row>, Option<Headline>)> {
    let mut run = o.gemm_entry_run(elem)?;
    run.shapes = shapes.iter().map(|&(m, n, k)| kernel_lab_bench::gemm::Shape::new(m, n, k)).collect::<kernel_lab_bench::Result<_>>()?;
    let rows = if elem == Elem::F32 {
        gemm_entry::run_f32(gpu, &run, None, None, &mut progress("gemm f32"))?
    } else {
        gemm_entry::run(gpu, &run, None, elem, None, &mut progress(if elem == Elem::F16 { "gemm f16" } else { "gemm bf16" }))?
    };
    let ty = match elem { Elem::F16 => "f16", Elem::Bf16 => "bf16", Elem::F32 => "f32" };
    let baseline = if elem == Elem::F32 { "cublasSgemm (no TF32)".to_string() } else { format!("cublasGemmEx {ty}/32F") };
    let h = gemm_entry::summary(&rows).map(|s| {
        let ratios: Vec<_> = rows.iter().filter(|r| r.baseline_paired.is_some() && !r.failed())
            .filter_map(|r| r.pct_of_cublas.map(|p| (r.step.clone(), r.shape.to_string(), p))).collect();
        Headline::from_ratios(&format!("gemm {ty}"), &baseline, &ratios, s.failed)
    }).flatten();
    Ok((rows, h))
}

/// Runs the headline and the ladders' main paths on `gpu`; the process exit code.
pub fn run(gpu: &Gpu, o: &Options) -> i32 {
    let t0 = Instant::now();
    suite::print_gpu(gpu, o);
    // No preload: each kernel is JIT-compiled alone when first launched (`Gpu::kernel`), and this run
    // launches a few of each family's kernels; whole modules would take ~2 min with a cold driver cache.
    println!("The headline: each family's library choice against its baseline, on shapes from published models, each timed");
    println!("interleaved with its baseline after verification. Then each ladder's main path at one size. (`--full`: every step");
    println!("at every size; `--help`: the options.) Progress goes to stderr.\n");
    let mut failed = false;
    let mut json = serde_json::json!({ "gpu": gpu.info, "commit": crate::cli::stamp::commit(), "date": crate::cli::stamp::utc_now(), "seed": o.seed, "mode": "headline" });
    let mut lines: Vec<Headline> = vec![];
    let mut details: Vec<String> = vec![];
    let note_err = |what: &str, e: &dyn std::fmt::Display, failed: &mut bool| {
        eprintln!("error: {what}: {e}");
        *failed = true;
    };

    // GEMM: f16, bf16 on every sampled shape; f32 on those it runs in reasonable time.
    let all: Vec<(usize, usize, usize)> = GEMM_SHAPES.iter().map(|&(m, n, k, _)| (m, n, k)).collect();
    let small: Vec<_> = all.iter().copied().filter(|&(m, n, k)| 2.0 * (m * n * k) as f64 <= F32_MAX_FLOP).collect();
    let gemm = |elem: Elem, shapes: &[(usize, usize, usize)], key: &str, failed: &mut bool, lines: &mut Vec<Headline>, details: &mut Vec<String>,
                json: &mut serde_json::Value| {
        match gemm_headline(gpu, o, elem, shapes) {
            Ok((rows, h)) => {
                *failed |= rows.iter().any(|r| r.failed());
                details.push(format!("== {key}: the library's choice per shape against cuBLAS ==\n{}", kernel_lab_bench::families::gemm::table(&rows)));
                json[key] = serde_json::to_value(&rows).unwrap_or_default();
                lines.extend(h);
            }
            Err(e) => note_err(key, &e, failed),
        }
    };
    gemm(Elem::F16, &all, "gemm", &mut failed, &mut lines, &mut details, &mut json);
    gemm(Elem::Bf16, &all, "gemm_bf16", &mut failed, &mut lines, &mut details, &mut json);

    // FP8: the step the library chooses per shape and scaling, against cuBLASLt's faster mode.
    let hopper = kernel_lab_bench::steps::fp8::STEPS.iter().any(|s| gpu.cannot_run(&s.kernel).is_none());
    if hopper {
        let fp8_shapes: Vec<_> = all.iter().copied().filter(|&(m, n, k)| k % 16 == 0 && n % 8 == 0 && 2.0 * (m * n * k) as f64 <= FP8_MAX_FLOP).collect();
        let resident = kernel_lab_bench::fp8::f21_resident(gpu).unwrap_or([0; 7]);
        // Per shape only the library's step for each scaling (the family's `--entry`).
        let run = o.fp8_run().map(|mut r| {
            r.shapes = fp8_shapes.iter().map(|&(m, n, k)| kernel_lab_bench::gemm::Shape { m, n, k }).collect();
            (r.only, r.entry) = (None, true);
            r
        });
        match run.and_then(|r| fp8::run(gpu, &r, &mut progress("fp8"))) {
            Ok(rows) => {
                failed |= rows.iter().any(|r| r.failed());
                // Per shape and scaling: the chosen step's ratio against the faster baseline it is compared with.
                let mut ratios = vec![];
                for &(m, n, k) in &fp8_shapes {
                    for sc in [Scaling::PerTensor, Scaling::Block] {
                        let st = kernel_lab_bench::fp8::step_for(sc, m, n, k, gpu.info.sms, resident);
                        let worst = rows.iter().filter(|r| r.step == st.kernel.step && r.shape.m == m && r.shape.n == n && r.shape.k == k && !r.failed())
                            .filter_map(|r| r.pct_of_cublas).min_by(f64::total_cmp);
                        if let Some(p) = worst {
                            ratios.push((format!("{} {sc:?}", st.kernel.step), format!("{m}x{n}x{k}"), p));
                        }
                    }
                }
                lines.extend(Headline::from_ratios("fp8 e4m3", "cuBLASLt FP8 (its faster mode)", &ratios, rows.iter().filter(|r| r.failed()).count()));
                details.push(format!("== fp8: the library's step per shape and scaling against cuBLASLt ==\n{}", kernel_lab_bench::families::gemm::table(&rows)));
                json["fp8"] = serde_json::to_value(&rows).unwrap_or_default();
            }
            Err(e) => note_err("fp8", &e, &mut failed),
        }
    } else {
        println!("fp8: skipped (its kernels need sm_90a; this GPU is compute capability {}.{})", gpu.info.compute_capability.0, gpu.info.compute_capability.1);
    }

    // Attention: the fused step the library picks per head dim, against the unfused path (cuBLAS + softmax).
    match o.attention_run() {
        Ok(mut run) => {
            run.shapes = ATTN_SHAPES.iter().flat_map(|&(b, h, l, d)| [false, true].map(|c| kernel_lab_bench::attention::AttnShape::new(b, h, l, d, c))).collect::<Result<_, _>>()
                .unwrap_or_default();
            run.elems = vec![Elem::Bf16];
            let hopper = gpu.cannot_run(&kernel_lab_bench::steps::attention::A15_D128.kernel).is_none();
            let chosen: Vec<&'static str> = run.shapes.iter().filter_map(|s| default_flash(s.head_dim as u32, Elem::Bf16, hopper, s.causal)).map(|st| st.kernel.name).collect();
            run.only = Some(chosen);
            match attention::run(gpu, &run, &mut progress("attention")) {
                Ok(rows) => {
                    failed |= rows.iter().any(|r| r.failed());
                    let ratios: Vec<_> = rows.iter().filter(|r| !r.failed()).filter_map(|r| r.vs_unfused.map(|x| (r.step.clone(), r.shape.to_string(), x))).collect();
                    lines.extend(Headline::from_ratios("attention bf16", "the unfused path (cuBLAS + softmax)", &ratios, rows.iter().filter(|r| r.failed()).count()));
                    details.push(format!("== attention: the library's fused step per shape against the unfused path (torch SDPA: scripts/attention-torch-peer.py) ==\n{}", attention::table(&rows)));
                    json["attention"] = serde_json::to_value(&rows).unwrap_or_default();
                }
                Err(e) => note_err("attention", &e, &mut failed),
            }
        }
        Err(e) => note_err("attention", &e, &mut failed),
    }

    // Reduce: v7 against a device copy of the same bytes.
    let mut run = o.reduce_run();
    run.sizes = vec![REDUCE_N];
    run.only = Some(vec![kernel_lab_bench::steps::reduce::STEPS[kernel_lab_bench::steps::reduce::STEPS.len() - 1].kernel.name]);
    match reduce::run(gpu, &run, &mut progress("reduce")) {
        Ok(rows) => {
            failed |= rows.iter().any(|r| r.failed() && r.step != "cuBLAS");
            let ratios: Vec<_> = rows.iter().filter(|r| r.step.starts_with('v') && !r.failed())
                .filter_map(|r| r.pct_of_copy.map(|p| (r.step.clone(), format!("2^{}", r.n.trailing_zeros()), p))).collect();
            lines.extend(Headline::from_ratios("reduce f32", "a device copy's bandwidth", &ratios, 0));
            details.push(format!("== reduce: sum of 2^28 f32 ==\n{}", crate::cli::tables::reduce_table(&rows)));
            json["reduce"] = serde_json::to_value(&rows).unwrap_or_default();
        }
        Err(e) => note_err("reduce", &e, &mut failed),
    }

    gemm(Elem::F32, &small, "gemm_f32", &mut failed, &mut lines, &mut details, &mut json);
    // Printed in the order of the families, not of the runs.
    let order = ["gemm f16", "gemm bf16", "gemm f32", "fp8 e4m3", "attention bf16", "reduce f32"];
    lines.sort_by_key(|h| order.iter().position(|f| *f == h.family).unwrap_or(order.len()));
    let gemm_f32_detail = details.pop();
    if let Some(d) = gemm_f32_detail {
        details.insert(2.min(details.len()), d);
    }
    println!("== headline ({:.0} s) ==\n{}", t0.elapsed().as_secs_f64(), table(&lines));
    json["headline"] = serde_json::to_value(&lines).unwrap_or_default();
    for d in &details {
        println!("\n{d}");
    }

    // Each ladder's main path at one size.
    println!("\n== the ladders' main paths, one size each (the ladder READMEs explain each step) ==");
    for (name, families, steps, size) in LADDERS {
        let mut o2 = o.clone();
        o2.headline = false;
        o2.families = families.to_vec();
        o2.steps = Some(steps.iter().filter_map(|l| kernel_lab_bench::steps::resolve_label(l, families).ok()).collect());
        match size {
            Size::Elements(n) => (o2.sizes, o2.sizes_given) = (vec![n], true),
            Size::Gemm(m, n, k) => (o2.gemm_sizes, o2.gemm_sizes_given) = (vec![(m, n, k)], true),
            Size::Attention(b, h, l, d) => o2.attn_sizes = Some(vec![(b, h, l, d)]),
            Size::None => {}
        }
        eprintln!("ladder {name} ({:.0} s so far)", t0.elapsed().as_secs_f64());
        let (f, j) = suite::tables(gpu, &o2);
        failed |= f;
        json["ladders"][name] = j;
    }
    failed |= suite::finish(o, &json);
    println!("\ntotal: {:.0} s", t0.elapsed().as_secs_f64());
    if failed { 1 } else { 0 }
}

/// A ladder's one size.
#[derive(Clone, Copy)]
enum Size {
    Elements(usize),
    Gemm(usize, usize, usize),
    Attention(usize, usize, usize, usize),
    None,
}

/// Each ladder's main path (its README's first table) and the size it runs at.
const LADDERS: [(&str, &[Family], &[&str], Size); 8] = [
    ("selftest", &[Family::Selftest], &[], Size::None),
    ("reduce", &[Family::Reduce], &["v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7"], Size::Elements(1 << 26)),
    ("sgemm", &[Family::Sgemm], &["v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v11", "v20"], Size::Gemm(2048, 2048, 2048)),
    ("hgemm-warp", &[Family::HgemmWarp], &[], Size::None),
    ("hgemm", &[Family::Hgemm], &["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "h1", "h2", "h3", "h4", "h5", "h6", "h6s4", "h10"], Size::Gemm(4096, 4096, 4096)),
    ("decode", &[Family::Hgemm], &["d1", "d2", "d3", "d4", "d9", "d13", "d14", "d15", "d7", "d19", "d21r144", "d22r128"], Size::Gemm(128, 4096, 4096)),
    ("fp8", &[Family::Fp8], &["f1", "f12", "f14", "f2", "f3", "f9", "f15", "f19", "f20"], Size::Gemm(4096, 4096, 4096)),
    ("attention", &[Family::Attention], &["a1", "a2-d128", "a11-d128", "a16-d128", "a17-d128", "a6-d128", "a7-d128", "a9-d128", "a10-d128", "a12-d128", "a15-d128"],
     Size::Attention(4, 16, 4096, 128)),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_main_path_label_names_one_registered_step() {
        for (name, families, steps, _) in LADDERS {
            for l in steps {
                assert!(kernel_lab_bench::steps::resolve_label(l, families).is_ok(), "{name}: `{l}` is not a step of {families:?}");
            }
        }
    }

    #[test]
    fn the_headline_reads_ratios() {
        let r = vec![("a".to_string(), "1x2x3".to_string(), 1.2), ("b".into(), "4x5x6".into(), 0.8), ("c".into(), "7x8x9".into(), 1.0)];
        let h = Headline::from_ratios("gemm f16", "cuBLAS", &r, 0).unwrap();
        assert_eq!((h.shapes, h.under_90, h.lowest.0.as_str()), (3, 1, "b"));
        assert!((h.geomean - (1.2f64 * 0.8 * 1.0).powf(1.0 / 3.0)).abs() < 1e-12);
        assert!(Headline::from_ratios("x", "y", &[], 0).is_none());
        assert!(table(&[h]).contains("0.80× (b, 4x5x6)"));
    }
}
