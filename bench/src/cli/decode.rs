//! `kernel-lab decode`: decode attention (issue 49, steps ad1 and ad2) timed on serving shapes — the
//! planned split with ad2's fused combine and with ad1's separate one, one CTA per (sequence, K/V head)
//! (`splits = 1`, the ladder's first rung) and a paged cache of 16-token pages (ad5 or ad2p) — each interleaved with a 1 GiB device copy, the cache's bytes over the time against
//! the copy's rate. torch's SDPA on the same shapes: `scripts/decode-torch-peer.py`.
use super::sub;
use kernel_lab_bench::{
    Gpu, Result,
    attention::decode::{BlockTable, DecodeDesc, DecodePlan, DecodeStep, KvLayout},
    error::DriverContext,
    gemm::Element,
    runtime::timing::time_pair,
};

const HELP: &str = "\
kernel-lab decode [--shapes LIST] [--dtype f16|bf16] [--splits LIST] [--json FILE]
  Decode attention (one new token per sequence) against a KV cache of L tokens per sequence:
  LIST is comma-separated BxHxKxLxD (batch, query heads, K/V heads, cache length, head dim; default:
  the serving shapes of issue 49). Each shape runs the planned split with ad2 (the combine fused into
  the decode grid) and with ad1 (a separate combine), one split, and a paged cache (16-token pages,
  shuffled; ad5, or ad2p on splits over 2048 keys), each timed against a 1 GiB device copy in interleaved rounds; caches
  smaller than 256 MiB are rotated over copies so every run reads from HBM, not L2.
  --splits LIST  also ad2 and the paged cache with each of these split counts (comma-separated),
                 beside the plan's split
";

const DEFAULT_SHAPES: &str = "1x32x8x4096x128,1x32x8x32768x128,32x32x8x4096x128,64x32x8x8192x128,16x32x8x4096x64,16x16x8x8192x256,16x32x32x4096x96";

/// `kernel-lab decode …`; returns the exit code.
pub fn main(args: &[String]) -> i32 {
    let flags = match sub::flags(args, "decode", HELP, &["--shapes", "--dtype", "--splits", "--json"]) {
        Ok(Some(f)) => f,
        Ok(None) => return 0,
        Err(e) => return sub::usage(e),
    };
    let parsed = match flags.get("--shapes").map_or(DEFAULT_SHAPES, String::as_str).split(',').map(|x| sub::parse_shape("decode", x)).collect::<std::result::Result<Vec<_>, _>>() {
        Ok(p) => p,
        Err(e) => return sub::usage(e),
    };
    let gpu = match sub::gpu("decode", "`cargo test` checks decode on the CPU side and skips its GPU tests.") {
        Ok(g) => g,
        Err(code) => return code,
    };
    let splits = match flags.get("--splits").map(|l| l.split(',').map(|x| x.trim().parse::<u32>().ok().filter(|&n| n > 0)).collect::<Option<Vec<u32>>>()) {
        None => vec![],
        Some(Some(v)) => v,
        Some(None) => return sub::usage("decode: --splits takes positive split counts, e.g. 16,32,64".to_string()),
    };
    let json = flags.get("--json").map(String::as_str);
    sub::by_dtype(flags.get("--dtype").map_or("bf16", String::as_str), || run::<half::f16>(&gpu, &parsed, &splits, json),
                  || run::<half::bf16>(&gpu, &parsed, &splits, json))
}

/// One measured configuration.
struct Row {
    shape: String,
    config: String,
    us: f64,
    cache_gbps: f64,
    copy_gbps: f64,
    splits: u32,
}

fn run<T: Element>(gpu: &Gpu, shapes: &[[usize; 5]], forced_splits: &[u32], json: Option<&str>) -> Result<()> {
    // The copy every configuration is interleaved with: 1 GiB, far past the L2.
    let copy_bytes = 1usize << 30;
    let (src, mut dst) = (gpu.zeros::<u8>(copy_bytes)?, gpu.zeros::<u8>(copy_bytes)?);
    let mut rows = vec![];
    println!("GPU: {} ({} SMs), {}", gpu.info.name, gpu.info.sms, T::NAME);
    println!("| shape BxHxKxLxD | config | splits | µs | cache GB/s | % of copy |\n|---|---|---|---|---|---|");
    for &[b, h, k, l, d] in shapes {
        let shape = format!("{b}x{h}x{k}x{l}x{d}");
        let mut configs = vec![("ad2 planned".to_string(), DecodeStep::FusedCombine, false, None), ("ad1 planned".into(), DecodeStep::SeparateCombine, false, None),
                               ("ad1 splits=1".into(), DecodeStep::SeparateCombine, false, Some(1)), ("ad2 paged-16".into(), DecodeStep::FusedCombine, true, None)];
        configs.extend(forced_splits.iter().flat_map(|&n| [(format!("ad2 splits={n}"), DecodeStep::FusedCombine, false, Some(n)),
                                                            (format!("splits={n}"), DecodeStep::FusedCombine, true, Some(n))]));
        for (config, step, paged, forced) in configs {
            let page = 16;
            let layout = if paged { KvLayout::PagedHeadsMajor { page_size: page, num_pages: b * l.div_ceil(page) } } else { KvLayout::Contiguous { max_len: l } };
            let desc = DecodeDesc::new(b, h, k, d, l).with_layout(layout);
            let mut plan = DecodePlan::<T>::new(gpu, desc)?;
            plan.force_splits(forced);
            plan.use_step(step);
            let cache_bytes = 2 * desc.cache_elems() * 2;
            // An even number of arrays, K of run i in array 2i, V in 2i + 1 (mod n), enough (≥ 512 MiB in
            // all) that no run finds its bytes in the L2 from the run before.
            let array_bytes = desc.cache_elems() * 2;
            let copies = 2 * (256usize << 20).div_ceil(array_bytes).clamp(1, 16);
            budget(gpu, copies * array_bytes + (desc.q_elems() * 2) * 2)?;
            let caches: Vec<_> = (0..copies).map(|_| -> Result<_> {
                let mut kv = gpu.zeros::<T>(desc.cache_elems())?;
                kernel_lab_bench::runtime::device_check::fill(gpu, &mut kv, sub::elem_kind::<T>(), kernel_lab_bench::runtime::device_check::Dist::Symmetric, 7)?;
                Ok(kv)
            }).collect::<Result<_>>()?;
            let mut q = gpu.zeros::<T>(desc.q_elems())?;
            kernel_lab_bench::runtime::device_check::fill(gpu, &mut q, sub::elem_kind::<T>(), kernel_lab_bench::runtime::device_check::Dist::Symmetric, 9)?;
            let lens = gpu.upload(&vec![l as i32; b])?;
            // A shuffled table: page p of sequence s is page (p·b + s) (sequences' pages interleaved).
            let max_pages = l.div_ceil(page);
            let table: Vec<i32> = (0..b).flat_map(|s| (0..max_pages).map(move |p| (p * b + s) as i32)).collect();
            let table = gpu.upload(&table)?;
            let bt = paged.then_some(BlockTable { table: &table, max_pages });
            let (mut o, mut lse) = (gpu.zeros::<T>(desc.q_elems())?, gpu.zeros::<f32>(desc.rows())?);
            let split = plan.split(l);
            // The paged row names the step the plan runs (ad5 on short splits, ad2p on long ones).
            let config = if paged {
                let k = plan.kernel_for(split, true).label();
                if forced.is_some() { format!("{k} paged-16 {config}") } else { format!("{k} paged-16") }
            } else {
                config
            };
            // K and V are two different arrays, as two separate caches are.
            let (ours, copy) = time_pair(gpu, 10, 2000, 600.0, |i, base| if base {
                gpu.stream.memcpy_dtod(&src, &mut dst).during(|| "1 GiB device copy".into())
            } else {
                plan.run(&q, &caches[2 * i % copies], &caches[(2 * i + 1) % copies], bt, &lens, l, &mut o, &mut lse).map(|_| ())
            })?;
            let row = Row { shape: shape.clone(), config: config.into(), us: ours.median_ms * 1e3, cache_gbps: cache_bytes as f64 / ours.median_ms / 1e6,
                            copy_gbps: 2.0 * copy_bytes as f64 / copy.median_ms / 1e6, splits: split.splits };
            println!("| {} | {} | {} | {:.1} | {:.0} | {:.0}% |", row.shape, row.config, row.splits, row.us, row.cache_gbps, 100.0 * row.cache_gbps / row.copy_gbps);
            rows.push(row);
        }
    }
    if let Some(path) = json {
        let v: Vec<serde_json::Value> = rows.iter().map(|r| serde_json::json!({"shape": r.shape, "config": r.config, "us": r.us, "cache_gbps": r.cache_gbps,
                                                                                  "copy_gbps": r.copy_gbps, "splits": r.splits})).collect();
        std::fs::write(path, serde_json::to_string_pretty(&serde_json::json!({"gpu": gpu.info.name, "dtype": T::NAME, "rows": v})).unwrap_or_default())
            .map_err(|e| kernel_lab_bench::Error::InvalidInput(format!("cannot write {path}: {e}")))?;
    }
    Ok(())
}

/// Refuses a configuration whose buffers do not fit in free device memory.
fn budget(gpu: &Gpu, bytes: usize) -> Result<()> {
    kernel_lab_bench::runtime::budget::check(gpu, "decode bench caches", bytes as u64, 0)
}
