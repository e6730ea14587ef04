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
        let _ = std::io::Write::write_all(&mut std::io::stderr(), b"SKIPPED without_a_gpu_the_suite_says_so_and_exits_2: a GPU is present\n");
    }
}
