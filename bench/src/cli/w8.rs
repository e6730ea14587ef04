//! `kernel-lab w8`: FP8 weights (`fp8_weights::W8Plan` on packed weights, step w5) against the same
//! product on 16-bit weights (`gemm::GemmPlan`, the library's choice) and against the natural layout
//! (step w1), each interleaved in rounds, at decode shapes: the weights' bytes over the time against a
//! 1 GiB device copy's rate (measured first, same process).
use super::sub;
use kernel_lab_bench::{
    Gpu, Result,
    error::DriverContext,
    fp8_weights::{Fp8Weights, W8Plan, W8Step, WeightLayout},
    gemm::{Element, GemmDesc, GemmPlan},
    runtime::timing::time_pair,
};

const HELP: &str = "\
kernel-lab w8 [--shapes LIST] [--dtype f16|bf16] [--against w1] [--json FILE]
  y (MxN) = x (MxK) · Wᵀ with W in FP8 (e4m3, power-of-two 128x128 block scales, packed; the library's
  step for M <= 32, w5) against the 16-bit GEMM on the same weights in 16 bits, and against another
  decode step (--against: w1 on the same weights in the natural NxK layout, the only one since w7, a
  measured negative, was removed in session 103), each interleaved. LIST is comma-separated MxNxK
  (default: Llama-3-8B's projections and LM head at M = 1, 8 and 32). The weights are rotated over
  copies (at least 512 MiB in all) so every run reads them from HBM, not L2.
";

const DEFAULT_SHAPES: &str = "1x6144x4096,1x4096x4096,1x28672x4096,1x4096x14336,1x128256x4096,8x28672x4096,8x4096x14336,32x28672x4096,32x4096x14336";

/// `kernel-lab w8 …`; returns the exit code.
pub fn main(args: &[String]) -> i32 {
    let flags = match sub::flags(args, "w8", HELP, &["--shapes", "--dtype", "--against", "--json"]) {
        Ok(Some(f)) => f,
        Ok(None) => return 0,
        Err(e) => return sub::usage(e),
    };
    let parsed = match flags.get("--shapes").map_or(DEFAULT_SHAPES, String::as_str).split(',').map(parse).collect::<std::result::Result<Vec<_>, _>>() {
        Ok(p) => p,
        Err(e) => return sub::usage(e),
    };
    let against = match flags.get("--against").map_or("w1", String::as_str) {
        "w1" => W8Step::W1,
        other => return sub::usage(format!("w8: --against `{other}`: w1 (w7 was removed in session 103: 1.29× slower than w5)")),
    };
    let gpu = match sub::gpu("w8", "`cargo test` checks the FP8 weights' host side on the CPU and skips its GPU tests.") {
        Ok(g) => g,
        Err(code) => return code,
    };
    let json = flags.get("--json").map(String::as_str);
    sub::by_dtype(flags.get("--dtype").map_or("bf16", String::as_str), || run::<half::f16>(&gpu, &parsed, against, json),
                  || run::<half::bf16>(&gpu, &parsed, against, json))
}

fn parse(s: &str) -> std::result::Result<[usize; 3], String> {
    let bad = || format!("bad w8 shape `{s}`: expected MxNxK (positive integers, K a multiple of 16)");
    let v: Vec<usize> = s.trim().split('x').map(|p| p.parse::<usize>()).collect::<std::result::Result<_, _>>().map_err(|_| bad())?;
    match v[..] {
        [m, n, k] if m > 0 && n > 0 && k > 0 && k % 16 == 0 => Ok([m, n, k]),
        _ => Err(bad()),
    }
}

fn run<T: Element>(gpu: &Gpu, shapes: &[[usize; 3]], against: W8Step, json: Option<&str>) -> Result<()> {
    let copy_bytes = 1usize << 30;
    let (src, mut dst) = (gpu.zeros::<u8>(copy_bytes)?, gpu.zeros::<u8>(copy_bytes)?);
    let (c1, c2) = time_pair(gpu, 3, 200, 300.0, |_, _| gpu.stream.memcpy_dtod(&src, &mut dst).during(|| "1 GiB device copy".into()))?;
    let copy_gbps = 2.0 * copy_bytes as f64 / c1.median_ms.min(c2.median_ms) / 1e6;
    drop((src, dst));
    println!("GPU: {} ({} SMs), {}; device copy {copy_gbps:.0} GB/s (read + write)", gpu.info.name, gpu.info.sms, T::NAME);
    println!("| MxNxK | FP8 | µs | GB/s | % of copy | 16-bit | µs | GB/s | FP8 speedup | {} | µs | speedup over it |", against.label());
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    let mut rows = vec![];
    for &[m, n, k] in shapes {
        let w16_bytes = 2 * n * k;
        let copies = (512usize << 20).div_ceil(w16_bytes).clamp(2, 64);
        let w8_bytes = layout::fp8::weights::packed_len(n as u32, k as u32) + n * k + n * k / 4096;
        kernel_lab_bench::runtime::budget::check(gpu, "w8 bench weights", (copies * (w16_bytes + w8_bytes)) as u64, 0)?;
        let w16: Vec<_> = (0..copies).map(|i| sub::random::<T>(gpu, n * k, 17 + i as u64)).collect::<Result<_>>()?;
        let w8: Vec<Fp8Weights> = w16.iter().map(|w| Fp8Weights::quantize::<T, _>(gpu, w, n, k)).collect::<Result<_>>()?;
        let w8n: Vec<Fp8Weights> = if against.layout() == WeightLayout::Natural {
            w16.iter().map(|w| Fp8Weights::quantize_in::<T, _>(gpu, w, n, k, WeightLayout::Natural)).collect::<Result<_>>()?
        } else {
            vec![]
        };
        let other = if w8n.is_empty() { &w8 } else { &w8n };
        // The 16-bit GEMM takes B as K×N: the same values' layout does not change the bytes read.
        let x = sub::random::<T>(gpu, m * k, 5)?;
        let (mut y8, mut y16) = (gpu.zeros::<T>(m * n)?, gpu.zeros::<T>(m * n)?);
        let mut p8 = W8Plan::<T>::new(gpu, m, n, k)?;
        let mut p8n = W8Plan::<T>::for_step(gpu, m, n, k, against)?;
        let mut p16 = GemmPlan::<T>::new(gpu, GemmDesc::new(m, n, k))?;
        let (t8, t16) = time_pair(gpu, 10, 2000, 600.0, |i, base| if base {
            p16.run(&x, &w16[i % copies], &mut y16)
        } else {
            p8.run(&x, &w8[i % copies], &mut y8)
        })?;
        let (t8b, t8n) = time_pair(gpu, 10, 2000, 600.0, |i, base| if base {
            p8n.run(&x, &other[i % copies], &mut y16)
        } else {
            p8.run(&x, &w8[i % copies], &mut y8)
        })?;
        let (us8, us16, us8b, us8n) = (t8.median_ms * 1e3, t16.median_ms * 1e3, t8b.median_ms * 1e3, t8n.median_ms * 1e3);
        let (gb8, gb16) = ((n * k) as f64 / us8 / 1e3, w16_bytes as f64 / us16 / 1e3);
        println!("| {m}x{n}x{k} | {} | {us8:.1} | {gb8:.0} | {:.0}% | {} | {us16:.1} | {gb16:.0} | {:.2}× | {} | {us8n:.1} | {:.3}× |", p8.label(), 100.0 * gb8 / copy_gbps,
                 p16.config().label, us16 / us8, p8n.label(), us8n / us8b);
        rows.push(serde_json::json!({"shape": format!("{m}x{n}x{k}"), "fp8": p8.label(), "fp8_us": us8, "fp8_gbps": gb8, "b16": p16.config().label,
                                     "b16_us": us16, "b16_gbps": gb16, "speedup": us16 / us8, "copy_gbps": copy_gbps,
                                     "against": p8n.label(), "against_us": us8n, "fp8_us_vs_against": us8b, "speedup_over_against": us8n / us8b}));
    }
    if let Some(path) = json {
        std::fs::write(path, serde_json::to_string_pretty(&serde_json::json!({"gpu": gpu.info.name, "dtype": T::NAME, "rows": rows})).unwrap_or_default())
            .map_err(|e| kernel_lab_bench::Error::InvalidInput(format!("cannot write {path}: {e}")))?;
    }
    Ok(())
}
