//! Hostile command lines (issue 18, the CPU half): every malformed number, size, list, unknown family or
//! step and repeated flag ends with one clear `error:` line and exit code 2 — never a panic — and
//! before any GPU work (these run on machines without one).
use std::process::Command;

fn run(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kernel-lab")).args(args).output().expect("the suite binary runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn malformed_options_exit_2_with_a_named_reason() {
    let cases: &[(&[&str], &str)] = &[
        (&["--reps", "x"], "--reps `x`: not a number"),
        (&["--reps"], "--reps needs a value"),
        (&["--warmup", "-1"], "--warmup `-1`"),
        (&["--seed", "1e9"], "--seed `1e9`"),
        (&["--sizes", "0"], "must be at least 1"),
        (&["--sizes", "2^99"], "size `2^99`"),
        (&["--sizes", "1.5M"], "size `1.5M`"),
        (&["--sizes", "1K,,2"], "size ``"),
        (&["--sizes", "2^61"], "exceeds reduce_v7's limit"),
        (&["--gemm-sizes", "4x4"], "expected N (square) or MxNxK"),
        (&["--gemm-sizes", "0x4x4"], "must be at least 1"),
        (&["--family", "nope"], "unknown family `nope`"),
        (&["--family", ""], "unknown family ``"),
        (&["--steps", "v9"], "ambiguous"),
        (&["--steps", "hgemm:v99"], "not a hgemm step"),
        (&["--steps", "nope:v1"], "unknown family `nope`"),
        (&["--check", "--check"], "--check given twice"),
        (&["--sizes", "1K", "--sizes", "2K"], "--sizes given twice"),
        (&["--bogus"], "unknown option `--bogus`"),
        (&["--gemm-sizes", "64x64x1048577"], "GEMM K = 1048577 exceeds 2^20"),
        (&["ab", "--family", "hgemm", "v9"], "exactly two step labels"),
        (&["decode", "--bogus", "1"], "decode: unknown option `--bogus`"),
        (&["decode", "--shapes", "1x2"], "bad decode shape `1x2`"),
        (&["prefill", "--varlen", "0:1-2:3"], "bad --varlen `0:1-2:3`"),
        (&["prefill", "--shapes", "1x32x8x0x128"], "bad prefill shape"),
        (&["prefill", "--json"], "--json needs a value"),
        (&["prefill", "--base-kernel", "attn_a26_d64_bf16"], "--base-kernel needs --kernel"),
        (&["w8", "--against", "w3"], "--against `w3`: w1"),
        (&["w8", "--against", "w7"], "w7 was removed in session 103"),
        (&["prefill", "--kernel", "attn_a27_d64_bf16", "--base-order", "most-work-first"], "--base-order needs --base-kernel"),
        (&["prefill", "--kernel", "a", "--base-kernel", "b", "--base-order", "sideways"], "--base-order sideways: paired or most-work-first"),
        (&["backward", "--shapes", "1x2x3"], "bad backward shape `1x2x3`"),
        (&["backward", "--dtype"], "--dtype needs a value"),
        (&["ab", "--family", "gemm", "v1", "v2"], "ab needs --family sgemm, hgemm, fp8, reduce or attention"),
        (&["--family", "gemm", "--config", "v9h"], "not an f32-accumulating hgemm step"),
        (&["--config"], "--config needs a value"),
        (&["--family", "gemm", "--dtype", "f8"], "--dtype `f8`: expected f16, bf16 or f32"),
        (&["--family", "gemm", "--dtype", "f32", "--config", "h6"], "not an sgemm step"),
        (&["ab", "--family", "hgemm", "v9", "v10", "--rounds", "0"], "--rounds"),
        (&["layout", "map", "--tile", "16x16", "--swizzle", "1,2,3"], "S must be >= B"),
        (&["layout", "nope"], "unknown layout subcommand"),
        (&["calibrate", "--dtype", "f64"], "`f64` is not f16, bf16, f32 or fp8"),
        (&["calibrate", "--out", "x"], "give --dtype f16, f32 or fp8"),
        (&["calibrate", "--dtype"], "--dtype needs a value"),
    ];
    for (args, want) in cases {
        let (code, err) = run(args);
        assert_eq!(code, 2, "{args:?}: exit {code}, stderr: {err}");
        assert!(err.contains(want), "{args:?}: stderr lacks `{want}`: {err}");
        assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    }
}

#[test]
fn without_a_gpu_the_suite_says_so_and_exits_2() {
    let (code, err) = run(&["--quick"]);
    if code == 2 {
        assert!(err.contains("What works without a GPU"), "{err}");
    } else {
        // A machine with a GPU ran the quick suite: 0 (all verified) or 1 (a kernel failed).
        kernel_lab_bench::runtime::gpu::report_skip("without_a_gpu_the_suite_says_so_and_exits_2", &"a GPU is present");
    }
}

/// `calibrate --dtype f32|fp8 --refit`, `rank --f32-times|--fp8-times` and `rank --shapes --candidates` need no
/// GPU: saved timings refitted and ranked, every candidate priced; a file that cannot be read is one `error:`
/// line and exit 1.
#[test]
fn refit_and_rank_work_on_saved_timings_without_a_gpu() {
    let dir = std::env::temp_dir().join(format!("kernel-lab-refit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // f32: v33 times made up to follow a fixed cost plus K (the fit must reproduce them closely enough to rank).
    let mut f32_times = String::from("step\tshape\tus\n");
    for (m, n, k, us) in [(1, 1024, 512, 5.0), (1, 8192, 4096, 40.0), (4, 8192, 4096, 41.0), (16, 1024, 4096, 13.0), (16, 32768, 4096, 235.0), (64, 8192, 512, 33.0)] {
        f32_times += &format!("v33\t{m}x{n}x{k}\t{us}\n");
    }
    for (m, n, k, us) in [(768, 768, 512, 57.0), (2048, 2176, 4096, 1170.0), (5120, 5120, 512, 620.0)] {
        f32_times += &format!("v11\t{m}x{n}x{k}\t{us}\n");
    }
    let f = dir.join("f32.tsv");
    std::fs::write(&f, &f32_times).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kernel-lab")).args(["calibrate", "--dtype", "f32", "--refit", f.to_str().unwrap()]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("refitted to 9 timings") && text.lines().any(|l| l.starts_with("strip16\t")), "{text}");
    let out = Command::new(env!("CARGO_BIN_EXE_kernel-lab")).args(["rank", "--f32-times", f.to_str().unwrap()]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.contains("within 5% of the fastest timed family"), "{text}");
    // FP8: fw2 and f25 at a 16-row shape; the rank names the scaling and the pick.
    let f8 = dir.join("fp8.tsv");
    std::fs::write(&f8, "# shape\tstep\tprocess\tmedian_us\n16x13824x5120\tfw2\tp1\t26.4\n16x13824x5120\tf25\tp1\t22.3\n16x13824x5120\tcuBLAS\tp1\t22.7\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kernel-lab")).args(["rank", "--fp8-times", f8.to_str().unwrap()]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.contains("per-tensor: the pick within 5% of the fastest timed step at 1/1"), "{text}");
    // `rank --shapes F --candidates`: every candidate priced, fastest first; the model's pick is the first one
    // it may take (marked `*`), at the same predicted µs.
    let shapes = dir.join("shapes.txt");
    std::fs::write(&shapes, "256x3072x8192\n128x6144x4096\n1x4096x4096\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kernel-lab")).args(["rank", "--shapes", shapes.to_str().unwrap(), "--candidates"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    let mut checked = 0;
    for (i, l) in lines.iter().enumerate() {
        let Some(list) = l.trim().strip_prefix("candidates: ") else { continue };
        // The row above: type, shape, rule (label µs), model (label µs), entry (label µs).
        let row: Vec<&str> = lines[i - 1].split_whitespace().collect();
        let (model, model_us) = (row[4], row[5]);
        let times: Vec<f64> = list.split(", ").map(|c| c.rsplit(' ').next().unwrap().parse().unwrap()).collect();
        assert!(times.windows(2).all(|w| w[0] <= w[1]), "not fastest first: {list}");
        let first = list.split(", ").find(|c| c.split(' ').next().unwrap().ends_with('*')).unwrap();
        assert_eq!(first, format!("{model}* {model_us}"), "{}\n{l}", lines[i - 1]);
        checked += 1;
    }
    assert_eq!(checked, 6, "{text}");
    let (code, err) = run(&["rank", "--fp8-times", dir.join("missing.tsv").to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(err.starts_with("error:") && err.contains("missing.tsv"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}
