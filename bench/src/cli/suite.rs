//! The suite `cargo run --release` runs: the self-tests, the bank-model replays, and every family's
//! table — each measured by the library (`kernel_lab_bench::families`), printed here, and written to the
//! report directory and `--json`.
use kernel_lab_bench::{
    families::{
        bankcheck,
        gemm::{self, GemmFamily, Row as GemmRow},
        fp8, gemm_entry,
        hgemm::{Hgemm, HgemmBf16, HgemmF16Acc},
        hgemm_warp, reduce, selftest,
        sgemm::Sgemm,
    },
    runtime::gpu::{Gpu, driver_present},
    steps::{Family, reduce as reduce_steps},
};

use crate::cli::{options::Options, stamp::{commit, utc_now}};

/// Opens GPU 0 for the run `o`, or ends it: `Err(exit code)` after `--list` (which needs no GPU) or
/// after saying why there is no GPU and what works without one.
pub fn open(o: &Options) -> Result<Gpu, i32> {
    let gpu = match Gpu::new(0) {
        Ok(g) => Some(g),
        Err(e) => {
            if !o.list {
                eprintln!("error: {e}");
                eprintln!("This machine cannot run the kernels (driver present: {}). What works without a GPU:", driver_present());
                eprintln!("  cargo run --release -- --list   every registered kernel and its family, step and target");
                eprintln!("  cargo run --release -- layout   bank maps (terminal/SVG), swizzle solver, predicted conflicts");
                eprintln!("  cargo test                      layouts, host logic, PTX contents (+ ptxas checks if ptxas is on PATH)");
                return Err(2);
            }
            None
        }
    };
    if o.list {
        print!("{}", crate::cli::list::list(gpu.as_ref()));
        return Err(0);
    }
    gpu.ok_or(2)
}

/// Runs the tables `o` selects on `gpu` (or, with `--ncu` / `--sanitize`, the children that profile
/// them); returns the exit code (0 all verified, 1 a kernel failed verification, 2 a usage error).
pub fn run(gpu: Gpu, o: Options) -> i32 {
    if o.ncu || o.sanitize {
        drop(gpu); // the children open the GPU themselves
        let out = std::path::Path::new(&o.out);
        let mut code = 0;
        if o.ncu {
            match crate::cli::profile::ncu(&o, out) {
                Ok(md) => println!("{md}\n(written to {})", out.join("ncu.md").display()),
                Err(e) => { eprintln!("error: {e}"); code = 2; }
            }
        }
        if o.sanitize {
            match crate::cli::profile::sanitize(&o, out) {
                Ok((md, clean)) => { println!("{md}\n(logs in {})", out.display()); if !clean { code = code.max(1); } }
                Err(e) => { eprintln!("error: {e}"); code = 2; }
            }
        }
        return code;
    }
    print_gpu(&gpu, &o);
    let (failed, json) = tables(&gpu, &o);
    if finish(&o, &json) || failed { 1 } else { 0 }
}

/// The run's first line: the GPU, the commit, the date and the seed.
pub fn print_gpu(gpu: &Gpu, o: &Options) {
    let i = &gpu.info;
    println!("GPU: {} (sm_{}{}, {} SMs, L2 {} MiB, driver {}), commit {}, {}, seed {}",
             i.name, i.compute_capability.0, i.compute_capability.1, i.sms, i.l2_bytes >> 20,
             kernel_lab_bench::runtime::gpu::cuda_version(i.driver_version), commit(), utc_now(), o.seed);
}

/// Writes the report directory and `--json`; whether either failed.
pub fn finish(o: &Options, json: &serde_json::Value) -> bool {
    let mut failed = false;
    match crate::cli::report::write(json, std::path::Path::new(&o.out)) {
        Ok(files) => println!("\nreport: {} ({} files)", std::path::Path::new(&o.out).join("report.md").display(), files.len()),
        Err(e) => {
            eprintln!("error: writing the report: {e}");
            failed = true;
        }
    }
    if let Some(path) = &o.json {
        match std::fs::write(path, serde_json::to_string_pretty(json).unwrap_or_default()) {
            Ok(()) => println!("\nwrote {path}"),
            Err(e) => {
                eprintln!("error: cannot write {path}: {e}");
                failed = true;
            }
        }
    }
    failed
}

/// Every table `o` selects, printed as each family ends; whether a check failed, and the JSON of it all.
pub fn tables(gpu: &Gpu, o: &Options) -> (bool, serde_json::Value) {
    let gpu = gpu.clone();
    let i = &gpu.info;
    let mut failed = false;
    let mut json = serde_json::json!({
        "gpu": i, "commit": commit(), "date": utc_now(), "seed": o.seed, "reps": o.reps, "warmup": o.warmup,
        "check_only": o.check,
    });
    // Progress: one indicatif bar per family on stderr (hidden when stderr is not a terminal, e.g. in CI
    // logs); a family's table is printed only after its bar is cleared, so the two never interleave.
    let bar = |family: &str, len: usize| {
        let pb = indicatif::ProgressBar::with_draw_target(Some(len as u64), indicatif::ProgressDrawTarget::stderr());
        if let Ok(style) = indicatif::ProgressStyle::with_template("{prefix:>6} [{bar:30}] {pos}/{len} {elapsed:>4} {wide_msg}") {
            pb.set_style(style.progress_chars("=> "));
        }
        pb.set_prefix(family.to_string());
        pb
    };
    let progress_to = |pb: &indicatif::ProgressBar| {
        let pb = pb.clone();
        move |msg: &str| {
            pb.set_message(msg.to_string());
            pb.inc(1);
        }
    };
    let gemm_units = |steps: usize, check_shapes: usize| {
        (o.gemm_sizes.len() + if o.check && !o.gemm_sizes_given { check_shapes } else { 0 }) * (steps + 2)
    };
    // One GEMM table: run family `F` (the library's loop), print and record its rows.
    let gemm_table = |key: &str, title: &str, units: usize, run: &dyn Fn(&mut dyn FnMut(&str)) -> kernel_lab_bench::Result<Vec<GemmRow>>,
                          json: &mut serde_json::Value| -> bool {
        let pb = bar(key, units);
        let result = run(&mut progress_to(&pb));
        pb.finish_and_clear();
        match result {
            Ok(rows) => {
                println!("\n== {title} ==");
                print!("{}", gemm::table(&rows));
                json[key] = serde_json::to_value(&rows).unwrap_or_default();
                // The entry point's tables (`gemm`, `gemm_bf16`, `gemm_f32`): one row per shape, summed up.
                if let Some(sum) = key.starts_with("gemm").then(|| gemm_entry::summary(&rows)).flatten() {
                    print!("{}", gemm_entry::summary_text(&sum));
                    json[format!("{key}_summary")] = serde_json::to_value(&sum).unwrap_or_default();
                }
                // fp8 --entry: the library's step per shape and scaling, summed up against each baseline.
                if key == "fp8" && o.fp8_entry {
                    let sums = fp8::entry_summary(&rows);
                    print!("{}", fp8::entry_summary_text(&sums));
                    json["fp8_entry_summary"] = serde_json::to_value(&sums).unwrap_or_default();
                }
                rows.iter().any(|r| r.failed())
            }
            Err(e) => {
                eprintln!("\nerror: {key} family: {e}");
                true
            }
        }
    };
    if o.families.contains(&Family::Selftest) {
        let res = selftest::run_all(&gpu, o.seed);
        println!("\n== selftest: device primitives against CPU models ==");
        for r in &res {
            let status = match (&r.failure, r.skipped) {
                (None, _) => "ok".to_string(),
                (Some(why), true) => format!("skipped: {why}"),
                (Some(why), false) => {
                    failed = true;
                    format!("FAILED: {why}")
                }
            };
            println!("  {:<24} {status}", r.kernel);
        }
        json["selftest"] = serde_json::to_value(&res).unwrap_or_default();
        if gpu.kernel("launch_cost_empty").is_ok() {
            match selftest::launch_costs(&gpu, o.seed, 8, 40) {
                Ok(rows) => {
                    println!("\n== launch cost: one 64×64 TMA load + store per CTA, held timing, medians (µs) ==");
                    println!("  {:<30} {:>10} {:>10}   {:>10} {:>10}", "kernel", "1 CTA", "min", format!("{} CTAs", gpu.info.sms), "min");
                    // `launch_costs` returns every kernel on 1 CTA, then every kernel on one CTA per SM.
                    let (one_cta, per_sm) = rows.split_at(rows.len() / 2);
                    for (one, all) in one_cta.iter().zip(per_sm) {
                        println!("  {:<30} {:>10.2} {:>10.2}   {:>10.2} {:>10.2}", one.kernel, one.median_us, one.min_us, all.median_us, all.min_us);
                    }
                    json["launch_cost"] = serde_json::to_value(&rows).unwrap_or_default();
                }
                Err(e) => {
                    failed = true;
                    println!("  launch cost: FAILED: {e}");
                }
            }
        }
    }
    if o.families.contains(&Family::Bankcheck) {
        let ps = bankcheck::patterns();
        println!("\n== bankcheck: replay of {} shared-memory access patterns (profile with ncu; see `layout bankcheck`) ==", ps.len());
        match bankcheck::run(&gpu, &ps) {
            Ok(ran) => println!("  launched {}, skipped {} (stmatrix needs sm_90)", ran.iter().filter(|&&r| r).count(), ran.iter().filter(|&&r| !r).count()),
            Err(e) => {
                failed = true;
                println!("  FAILED: {e}");
            }
        }
    }
    if o.families.contains(&Family::Reduce) {
        let run = o.reduce_run();
        let pb = bar("reduce", run.sizes.len() * (reduce_steps::STEPS.iter().filter(|s| o.wants(s.kernel.name)).count() + 2));
        let result = reduce::run(&gpu, &run, &mut progress_to(&pb));
        pb.finish_and_clear();
        match result {
            Ok(rows) => {
                println!("\n== reduce: sum of N f32 (seed 003); GB/s counts 4N bytes (copy: 8N), tolerance {:.0e} ==", reduce::REDUCE_TOL);
                print!("{}", crate::cli::tables::reduce_table(&rows));
                failed |= rows.iter().any(|r| r.failed() && r.step != "cuBLAS");
                json["reduce"] = serde_json::to_value(&rows).unwrap_or_default();
            }
            Err(e) => {
                eprintln!("\nerror: reduce family: {e}");
                failed = true;
            }
        }
    }
    if o.families.contains(&Family::HgemmWarp) {
        let rows = hgemm_warp::run(&gpu, o.seed);
        println!("\n== hgemm-warp: seed 001's 16x16x16 ladder, one warp, f16 accumulate (predicted shared-memory conflicts; measure with ncu) ==");
        println!("{:<5} {:<24} {:>9} {:>23}  {}", "step", "kernel", "rel err", "pred ld wf/confl, st", "status");
        for r in &rows {
            let pred = r.predicted.map(|(a, b, c, d)| format!("{a}/{b}, {c}/{d}")).unwrap_or_else(|| "-".into());
            let status = match (&r.error, r.skipped) {
                (None, _) => "ok".to_string(),
                (Some(e), true) => format!("skipped: {e}"),
                (Some(e), false) => { failed = true; format!("FAILED: {e}") }
            };
            println!("{:<5} {:<24} {:>9} {:>23}  {status}", r.step, r.kernel, r.rel_err.map(|e| format!("{e:.1e}")).unwrap_or("-".into()), pred);
        }
        json["hgemm_warp"] = serde_json::to_value(&rows).unwrap_or_default();
    }
    if o.families.contains(&Family::Hgemm) {
        let n = Hgemm::steps().into_iter().filter(|s| o.wants(s.kernel.name)).count();
        failed |= gemm_table("hgemm", "hgemm: C = A·B, f16 in/out, f32 accumulate: v1–v10 mma.sync (seeds 000/001), h1–h6 TMA + wgmma (sm_90a); cuBLAS GemmEx f16/32F in the same run",
            gemm_units(n, Hgemm::CHECK_SHAPES.len()), &|p| gemm::run::<Hgemm>(&gpu, &o.gemm_run::<Hgemm>()?, p), &mut json);
        // The f16-accumulate steps, against cuBLAS in 16F compute (their own baseline and tolerance).
        let n16 = HgemmF16Acc::steps().into_iter().filter(|s| o.wants(s.kernel.name)).count();
        if n16 > 0 {
            failed |= gemm_table("hgemm_f16acc", "hgemm, f16 accumulation: v9h against cuBLAS GemmEx f16/16F in the same run; tolerance 2e-3 + 2^-10·sqrt(K/16)",
                gemm_units(n16, HgemmF16Acc::CHECK_SHAPES.len()), &|p| gemm::run::<HgemmF16Acc>(&gpu, &o.gemm_run::<HgemmF16Acc>()?, p), &mut json);
        }
    }
    if o.families.contains(&Family::Hgemm) {
        // The bf16 twins (h6, d2, d2m64 on bf16), against cuBLAS on bf16.
        let nb = HgemmBf16::steps().into_iter().filter(|s| o.wants(s.kernel.name)).count();
        if nb > 0 {
            failed |= gemm_table("hgemm_bf16", "hgemm, bf16 in/out, f32 accumulate: h6, d2, d2m64 on bf16 against cuBLAS GemmEx bf16/32F in the same run; tolerance 8e-3 (bf16 rounding)",
                gemm_units(nb, HgemmBf16::CHECK_SHAPES.len()), &|p| gemm::run::<HgemmBf16>(&gpu, &o.gemm_run::<HgemmBf16>()?, p), &mut json);
        }
    }
    if o.families.contains(&Family::Sgemm) {
        let n = Sgemm::steps().into_iter().filter(|s| o.wants(s.kernel.name)).count();
        failed |= gemm_table("sgemm", "sgemm: C = A·B, row-major f32 on CUDA cores (seed 004); cuBLAS SGEMM without TF32 in the same run",
            gemm_units(n, Sgemm::CHECK_SHAPES.len()), &|p| gemm::run::<Sgemm>(&gpu, &o.gemm_run::<Sgemm>()?, p), &mut json);
    }
    // --autotune: one cache for the gemm and fp8 families (each shape's tuning is written as it ends).
    let tune = match &o.tune_cache {
        Some(path) if o.families.contains(&Family::Gemm) || o.families.contains(&Family::Fp8) => {
            let cache = match kernel_lab_bench::tune::TuneCache::open(path) {
                Ok(c) => c,
                Err(e) => {
                    eprintln!("error: {e}");
                    return (true, json);
                }
            };
            println!("autotune: {} ({} tuning{} cached)", path.display(), cache.len(), if cache.len() == 1 { "" } else { "s" });
            Some(std::cell::RefCell::new(cache))
        }
        _ => None,
    };
    if o.families.contains(&Family::Gemm) {
        for &elem in &o.dtypes {
            use kernel_lab_bench::steps::gemm::Elem;
            let (ty, key) = match elem { Elem::Bf16 => ("bf16", "gemm_bf16"), Elem::F32 => ("f32", "gemm_f32"), Elem::F16 => ("f16", "gemm") };
            let forced = if elem == Elem::F32 { o.config_f32.map(|s| s.kernel.step) } else { o.config.map(|s| s.kernel.step) };
            let forced = forced.map(|s| format!("forced to {s}")).unwrap_or_else(|| if tune.is_some() { "autotuned".into() } else { "chosen".into() });
            let title = if elem == Elem::F32 {
                format!("gemm: the library's f32 entry point (kernel_lab_bench::sgemm), FFMA on CUDA cores, SGEMM step {forced} per shape; cuBLAS SGEMM without TF32 in the same run")
            } else {
                format!("gemm: the library's entry point (kernel_lab_bench::gemm), {ty} in/out, f32 accumulate, configuration {forced} per shape; cuBLAS GemmEx {ty}/32F in the same run")
            };
            let units = o.gemm_entry_run(elem).map(|r| r.shapes.len() * 3).unwrap_or(1);
            failed |= gemm_table(key, &title, units, &|p| match elem {
                Elem::F32 => gemm_entry::run_f32(&gpu, &o.gemm_entry_run(elem)?, o.config_f32, tune.as_ref(), p),
                _ => gemm_entry::run(&gpu, &o.gemm_entry_run(elem)?, o.config, elem, tune.as_ref(), p),
            }, &mut json);
        }
    }
    if o.families.contains(&Family::Fp8) {
        let n = if o.fp8_entry { 2 } else { kernel_lab_bench::steps::fp8::STEPS.iter().filter(|s| o.wants(s.kernel.name)).count() };
        let units = o.fp8_run().map(|r| r.shapes.len() * (3 + 2 * n)).unwrap_or(1);
        failed |= gemm_table("fp8", "fp8: C (bf16) = dequant(A)·dequant(B)^T, e4m3 in, A MxK, B NxK (sm_90a): f1 per-tensor, f2 block scales (1x128, 128x128) with promotion; cuBLASLt FP8 in the same run; reference: the dequantized inputs",
            units, &|p| fp8::run(&gpu, &o.fp8_run()?, p), &mut json);
        if let (Some(cache), Ok(run)) = (&tune, o.fp8_run()) {
            // --autotune: the FP8 step per shape and scaling, from the cache or timed now.
            use kernel_lab_bench::steps::fp8::Scaling;
            let mut tuned = vec![];
            println!("\nfp8 autotune ({}):", cache.borrow().path().display());
            for s in &run.shapes {
                for scaling in [Scaling::PerTensor, Scaling::Block] {
                    match kernel_lab_bench::tune::step_fp8(&gpu, scaling, s.m, s.n, s.k, &mut cache.borrow_mut()) {
                        Ok((st, t)) => {
                            println!("  {scaling:?} {s}: {}, {}", st.kernel.step, t.note());
                            tuned.push(serde_json::json!({ "scaling": format!("{scaling:?}"), "shape": s.to_string(), "cached": t.cached, "entry": t.entry }));
                        }
                        // A GPU without sm_90a, or a shape the steps decline: as the table's rejected rows.
                        Err(e @ (kernel_lab_bench::Error::Unsupported { .. } | kernel_lab_bench::Error::InvalidInput(_))) => println!("  {scaling:?} {s}: not tuned: {e}"),
                        Err(e) => {
                            eprintln!("  error: fp8 autotune {scaling:?} {s}: {e}");
                            failed = true;
                        }
                    }
                }
            }
            json["fp8_autotune"] = serde_json::Value::Array(tuned);
        }
        if !o.check && !o.fp8_entry && kernel_lab_bench::steps::fp8::STEPS.iter().all(|s| gpu.cannot_run(&s.kernel).is_none()) {
            match crate::cli::tables::promotion(&gpu, o.seed) {
                Ok((text, rows)) => {
                    println!("\n{text}");
                    json["fp8_promotion"] = serde_json::to_value(&rows).unwrap_or_default();
                }
                Err(e) => {
                    eprintln!("\nerror: fp8 promotion study: {e}");
                    failed = true;
                }
            }
        }
    }
    if o.families.contains(&Family::Attention) {
        match o.attention_run() {
            Ok(run) => {
                let pb = bar("attention", run.shapes.len() * run.elems.len());
                let result = kernel_lab_bench::families::attention::run(&gpu, &run, &mut progress_to(&pb));
                pb.finish_and_clear();
                match result {
                    Ok(rows) => {
                        println!("\n== attention: O = softmax(Q·K^T/sqrt(D) [causal])·V per head, [B·H][L][D]; a1 unfused (cuBLAS QK^T f32 → softmax kernel → cuBLAS PV), a2 FlashAttention-2 (mma.sync); TFLOP/s count 4·B·H·L²·D (halved causal); x unfused: interleaved ==");
                        print!("{}", kernel_lab_bench::families::attention::table(&rows));
                        failed |= rows.iter().any(|r| r.failed());
                        json["attention"] = serde_json::to_value(&rows).unwrap_or_default();
                    }
                    Err(e) => {
                        eprintln!("\nerror: attention family: {e}");
                        failed = true;
                    }
                }
            }
            Err(e) => {
                eprintln!("\nerror: attention family: {e}");
                failed = true;
            }
        }
    }
    (failed, json)
}
