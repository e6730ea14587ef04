//! `kernel-lab backward`: attention backward (issue 50, step b1) timed on training shapes — plain and
//! grouped heads, D = 64 and 128, causal and not — each interleaved with the forward of the same problem
//! (prefill's a19 where the GPU runs it, which also supplies O and the LSE; elsewhere the fixed-length
//! fused kernel's time, and O and the LSE from random values). TFLOP/s count 2.5× the forward's FLOPs,
//! as FlashAttention's papers do. Then step b2 (deterministic dQ) interleaved with b1, and where the GPU runs
//! `sm_90a` code step b3 (b2 on `wgmma`, the default there) interleaved with b2, and b4 (b3's dK/dV
//! kernel computing dQ by atomics) interleaved with b3, and b9 (b4 with a producer warpgroup, the library's atomic dQ on
//! Hopper since session 112) interleaved with b4. torch's SDPA backward (cuDNN, flash, efficient backends) on the same
//! shapes: `scripts/backward-torch-peer.py`.
use super::sub;
use kernel_lab_bench::{
    Gpu, Result,
    attention::{
        AttentionDesc, AttentionPlan,
        backward::{BackwardDesc, BackwardPlan, DqMode, Engine, Grads},
        prefill::{Lens, PrefillDesc, PrefillPlan},
    },
    gemm::Element,
    runtime::timing::time_pair,
    steps::attention::PREFILL,
};

const HELP: &str = "\
kernel-lab backward [--shapes LIST] [--dtype f16|bf16] [--steps LIST] [--json FILE] [--dump DIR] [--dq fastest|atomic|deterministic]
  [--engine auto|mma-sync|wgmma]
  Attention backward (dQ, dK, dV) on token-major [B][L][H][D] tensors. LIST is comma-separated BxHxKxLxD
  (batch, query heads, K/V heads, sequence length, head dim 64 or 128; default: issue 50's shapes); each
  runs without and with the causal mask: step b1 timed in interleaved rounds against the forward of the
  same problem, then b2 (deterministic dQ) and b5 (b1 on FlashAttention-2's warp layout) against b1, b6
  (b5 adding dQ in its reductions' order) against b5, b7 (b6 longest first) against b6, b8 (b7 on 128-query
  tiles, D = 64 only) against b7, then (Hopper) b3 against b2, b4 (atomic dQ) against b3 and b9 (b4 with a
  producer warpgroup) against b4. --steps
  (comma-separated b1, b2, b3, b4, b5, b6, b7, b8, b9; default all) times only those rows, each still
  against its baseline. TFLOP/s: 2.5 × the forward's 4·B·H·D per
  query-key pair. --dump DIR writes, per shape and mask, the inputs and the default plan's gradients as raw
  little-endian files (DIR/<shape>-<mask>/: q, k, v, do, dq, dk, dv token-major, meta.json) for
  scripts/backward-torch-check.py, which checks them against torch's fp32 gradients. --dq picks the dumped
  plan's dQ mode: fastest (the default: b9 on Hopper, b7 elsewhere — b8 at D = 64), atomic (b9, or b7 / b8 on mma.sync) or
  deterministic (b3, or b2); --engine its engine: auto (the default: wgmma where the GPU runs it), mma-sync
  or wgmma.
";

const DEFAULT_SHAPES: &str = "2x16x16x4096x128,1x16x16x8192x128,1x32x8x8192x128,2x16x16x4096x64";

/// `kernel-lab backward …`; returns the exit code.
pub fn main(args: &[String]) -> i32 {
    let flags = match sub::flags(args, "backward", HELP, &["--shapes", "--dtype", "--steps", "--json", "--dump", "--dq", "--engine"]) {
        Ok(Some(f)) => f,
        Ok(None) => return 0,
        Err(e) => return sub::usage(e),
    };
    let parsed = match flags.get("--shapes").map_or(DEFAULT_SHAPES, String::as_str).split(',').map(|x| sub::parse_shape("backward", x)).collect::<std::result::Result<Vec<_>, String>>() {
        Ok(p) => p,
        Err(e) => return sub::usage(e),
    };
    let gpu = match sub::gpu("backward", "`cargo test` checks the backward's input rules and its f64 reference on the CPU and skips its GPU tests.") {
        Ok(g) => g,
        Err(code) => return code,
    };
    let (json, dump) = (flags.get("--json").map(String::as_str), flags.get("--dump").map(String::as_str));
    let dq = match flags.get("--dq").map_or("fastest", String::as_str) {
        "fastest" => DqMode::Fastest,
        "deterministic" => DqMode::Deterministic,
        "atomic" => DqMode::Atomic,
        other => return sub::usage(format!("backward: --dq takes fastest, atomic or deterministic, not {other:?}")),
    };
    let engine = match flags.get("--engine").map_or("auto", String::as_str) {
        "auto" => Engine::Auto,
        "mma-sync" => Engine::MmaSync,
        "wgmma" => Engine::Wgmma,
        other => return sub::usage(format!("backward: --engine takes auto, mma-sync or wgmma, not {other:?}")),
    };
    let picked: Vec<&str> = flags.get("--steps").map_or("b1,b2,b3,b4,b5,b6,b7,b8,b9", String::as_str).split(',').collect();
    if let Some(bad) = picked.iter().find(|s| !["b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8", "b9"].contains(s)) {
        return sub::usage(format!("backward: --steps takes b1, b2, b3, b4, b5, b6, b7, b8, b9 (comma-separated), not {bad:?}"));
    }
    let steps = Steps { b1: picked.contains(&"b1"), b2: picked.contains(&"b2"), b3: picked.contains(&"b3"), b4: picked.contains(&"b4"), b5: picked.contains(&"b5"), b6: picked.contains(&"b6"), b7: picked.contains(&"b7"), b8: picked.contains(&"b8"), b9: picked.contains(&"b9") };
    sub::by_dtype(flags.get("--dtype").map_or("bf16", String::as_str), || run::<half::f16>(&gpu, &parsed, steps, json, dump, (dq, engine)), || run::<half::bf16>(&gpu, &parsed, steps, json, dump, (dq, engine)))
}

/// Which steps' rows `run` times (`--steps`); each against its baseline as without the flag.
#[derive(Clone, Copy)]
struct Steps {
    b1: bool,
    b2: bool,
    b3: bool,
    b4: bool,
    b5: bool,
    b6: bool,
    b7: bool,
    b8: bool,
    b9: bool,
}

/// Writes `x` as raw little-endian bytes to `dir/name`.
fn dump_raw<T: Element>(gpu: &Gpu, dir: &std::path::Path, name: &str, x: &cudarc::driver::CudaSlice<T>) -> Result<()> {
    let host = gpu.download(x)?;
    // SAFETY: `T` is a plain 2- or 4-byte number (`Element`: f16, bf16, f32) with no padding; the slice's
    // bytes are its values' bytes, read only.
    let bytes = unsafe { std::slice::from_raw_parts(host.as_ptr() as *const u8, std::mem::size_of_val(host.as_slice())) };
    std::fs::write(dir.join(name), bytes).map_err(|e| kernel_lab_bench::Error::InvalidInput(format!("cannot write {}: {e}", dir.join(name).display())))
}

fn run<T: Element>(gpu: &Gpu, shapes: &[[usize; 5]], steps: Steps, json: Option<&str>, dump: Option<&str>, (dump_dq, dump_engine): (DqMode, Engine)) -> Result<()> {
    let mut rows = vec![];
    let hopper = gpu.cannot_run(&PREFILL[0]).is_none();
    println!("GPU: {} ({} SMs), {}", gpu.info.name, gpu.info.sms, T::NAME);
    if !hopper && (steps.b3 || steps.b4 || steps.b9) {
        println!("note: b3, b4 and b9 need sm_90a (wgmma); this GPU times only b1, b2 and b5–b8{}",
                 if steps.b1 || steps.b2 || steps.b5 || steps.b6 || steps.b7 || steps.b8 { "" } else { ": --steps left nothing to time" });
    }
    println!("| shape BxHxKxLxD | config | backward µs | TFLOP/s | baseline | µs | time / baseline |\n|---|---|---|---|---|---|---|");
    for &[b, h, k, l, d] in shapes {
        let shape = format!("{b}x{h}x{k}x{l}x{d}");
        let (nq, nk) = (b * l * h * d, b * l * k * d);
        let (q, kk, vv, d_o) = (sub::random::<T>(gpu, nq, 1)?, sub::random::<T>(gpu, nk, 2)?, sub::random::<T>(gpu, nk, 3)?, sub::random::<T>(gpu, nq, 4)?);
        let cq: Vec<u32> = (0..=b as u32).map(|i| i * l as u32).collect();
        for causal in [false, true] {
            let bd = if causal { BackwardDesc::new(h, k, d).causal() } else { BackwardDesc::new(h, k, d) };
            let pd = PrefillDesc { heads: h, kv_heads: k, head_dim: d, causal, scale: None };
            let flops = Lens::new(&pd, &cq, &cq)?.flops(&pd);
            let (mut o, mut lse) = (sub::random::<T>(gpu, nq, 5)?, gpu.zeros::<f32>(b * l * h)?);
            let (mut dq, mut dk, mut dv) = (gpu.zeros::<T>(nq)?, gpu.zeros::<T>(nk)?, gpu.zeros::<T>(nk)?);
            // The mma.sync steps by name (the library's own atomic kernel there is b7, b8 at D = 64, since session 92).
            let named = |step: &str| format!("attn_bwd_{step}_d{d}_{}", T::NAME);
            let mut plan = BackwardPlan::<T>::with_kernel(gpu, bd.with_dq(DqMode::Atomic).with_engine(Engine::MmaSync), &named("b1"))?;
            // The forward: a19 on the same tensors (O and the LSE real), or the fixed-length kernel on a
            // problem of the same size (its outputs elsewhere; the LSE set to the scores' scale).
            let mut fwd = if hopper { Some(PrefillPlan::<T>::new(gpu, pd)?) } else { None };
            let fd = if causal { AttentionDesc::new(b, h, l, d).causal() } else { AttentionDesc::new(b, h, l, d) };
            let mut fixed = if hopper { None } else { Some(AttentionPlan::<T>::new(gpu, fd)?) };
            let n_fixed = if hopper { 0 } else { b * h * l * d };
            let fq = if hopper { gpu.zeros::<T>(0)? } else { sub::random::<T>(gpu, n_fixed, 6)? };
            let (mut fo, mut fl) = (gpu.zeros::<T>(n_fixed)?, gpu.zeros::<f32>(n_fixed / d)?);
            match fwd.as_mut() {
                Some(f) => {
                    f.run(&q, &kk, &vv, &cq, &cq, &mut o, &mut lse)?;
                }
                None => lse = gpu.upload(&vec![8.0f32; b * l * h])?,
            }
            let base = if hopper { "a19 forward".to_string() } else { "fixed-length forward".to_string() };
            let mask = if causal { " causal" } else { "" };
            if steps.b1 {
                let (bwd, fw) = time_pair(gpu, 3, 100, 600.0, |_, is_base| {
                    if is_base {
                        match (fwd.as_mut(), fixed.as_mut()) {
                            (Some(f), _) => f.run(&q, &kk, &vv, &cq, &cq, &mut o, &mut lse).map(|_| ()),
                            (None, Some(f)) => f.run(&fq, &fq, &fq, &mut fo, &mut fl),
                            _ => Ok(()),
                        }
                    } else {
                        plan.run(&q, &kk, &vv, &o, &lse, &d_o, &cq, &cq, Grads { dq: &mut dq, dk: &mut dk, dv: &mut dv }).map(|_| ())
                    }
                })?;
                let (us, fus) = (bwd.median_ms * 1e3, fw.median_ms * 1e3);
                let tflops = 2.5 * flops / bwd.median_ms / 1e9;
                let config = format!("b1{mask}");
                println!("| {shape} | {config} | {us:.1} | {tflops:.0} | {base} | {fus:.1} | {:.2} |", us / fus);
                rows.push(serde_json::json!({"shape": shape, "config": config, "us": us, "tflops": tflops, "forward": base, "forward_us": fus}));
            }
            // A step timed interleaved with another on the same inputs: one row of the table.
            let mut versus = |new: &mut BackwardPlan<T>, base: &mut BackwardPlan<T>, config: String, base_name: &str| -> Result<()> {
                let (t_new, t_base) = time_pair(gpu, 3, 100, 600.0, |_, is_base| {
                    let p = if is_base { &mut *base } else { &mut *new };
                    p.run(&q, &kk, &vv, &o, &lse, &d_o, &cq, &cq, Grads { dq: &mut dq, dk: &mut dk, dv: &mut dv }).map(|_| ())
                })?;
                let (us_new, us_base, tflops) = (t_new.median_ms * 1e3, t_base.median_ms * 1e3, 2.5 * flops / t_new.median_ms / 1e9);
                println!("| {shape} | {config} | {us_new:.1} | {tflops:.0} | {base_name} | {us_base:.1} | {:.2} |", us_new / us_base);
                rows.push(serde_json::json!({"shape": shape, "config": config, "us": us_new, "tflops": tflops, "base": base_name, "base_us": us_base}));
                Ok(())
            };
            // b2 (deterministic dQ) against b1; b3 (b2 on wgmma) against b2, where the GPU runs it.
            let mut det = BackwardPlan::<T>::new(gpu, bd.with_dq(DqMode::Deterministic).with_engine(Engine::MmaSync))?;
            if steps.b2 {
                versus(&mut det, &mut plan, format!("b2 deterministic{mask}"), "b1")?;
            }
            // b5 (b1 on FlashAttention-2's warp layout) against b1.
            // b6 (b5 adding dQ in its reductions' order) against b5; b7 (b6 longest first) against b6; b8 (b7 on
            // 128-query tiles, D = 64) against b7.
            let mma = bd.with_dq(DqMode::Atomic).with_engine(Engine::MmaSync);
            if steps.b5 || steps.b6 || steps.b7 || (steps.b8 && d == 64) {
                let mut p5 = BackwardPlan::<T>::with_kernel(gpu, mma, &named("b5"))?;
                if steps.b5 {
                    versus(&mut p5, &mut plan, format!("b5 fa2 warps{mask}"), "b1")?;
                }
                let mut p6 = BackwardPlan::<T>::with_kernel(gpu, mma, &named("b6"))?;
                if steps.b6 {
                    versus(&mut p6, &mut p5, format!("b6 dq blocks{mask}"), "b5")?;
                }
                let mut p7 = BackwardPlan::<T>::with_kernel(gpu, mma, &named("b7"))?;
                if steps.b7 {
                    versus(&mut p7, &mut p6, format!("b7 longest first{mask}"), "b6")?;
                }
                if steps.b8 && d == 64 {
                    let mut p8 = BackwardPlan::<T>::with_kernel(gpu, mma, &named("b8"))?;
                    versus(&mut p8, &mut p7, format!("b8 q128 tiles{mask}"), "b7")?;
                }
            }
            if hopper {
                let mut h3 = BackwardPlan::<T>::new(gpu, bd.with_dq(DqMode::Deterministic).with_engine(Engine::Wgmma))?;
                if steps.b3 {
                    versus(&mut h3, &mut det, format!("b3 wgmma{mask}"), "b2")?;
                }
                // b4 (b3's dK/dV kernel computing dQ too, by atomics) against b3, by name: the plan's own is b9.
                let c = if causal { "c" } else { "" };
                let atomic = bd.with_dq(DqMode::Atomic).with_engine(Engine::Wgmma);
                let mut h4 = BackwardPlan::<T>::with_kernel(gpu, atomic, &format!("attn_bwd_b4{c}_d{d}_{}", T::NAME))?;
                if steps.b4 {
                    versus(&mut h4, &mut h3, format!("b4 wgmma atomic{mask}"), "b3")?;
                }
                // b9 (b4 with a producer warpgroup; the library's atomic dQ on Hopper) against b4.
                if steps.b9 {
                    let mut h9 = BackwardPlan::<T>::new(gpu, atomic)?;
                    versus(&mut h9, &mut h4, format!("b9 producer{mask}"), "b4")?;
                }
            }
            if let Some(dir) = dump {
                // The gradients of the plan `--dq` picks (the default: b9 on Hopper), with their inputs, for the torch check.
                let mut def = BackwardPlan::<T>::new(gpu, bd.with_dq(dump_dq).with_engine(dump_engine))?;
                def.run(&q, &kk, &vv, &o, &lse, &d_o, &cq, &cq, Grads { dq: &mut dq, dk: &mut dk, dv: &mut dv })?;
                gpu.sync_after(def.kernel())?;
                let dir = std::path::Path::new(dir).join(format!("{shape}-{}", if causal { "causal" } else { "none" }));
                std::fs::create_dir_all(&dir).map_err(|e| kernel_lab_bench::Error::InvalidInput(format!("cannot create {}: {e}", dir.display())))?;
                for (name, x) in [("q", &q), ("k", &kk), ("v", &vv), ("do", &d_o), ("dq", &dq), ("dk", &dk), ("dv", &dv)] {
                    dump_raw(gpu, &dir, name, x)?;
                }
                let meta = serde_json::json!({"b": b, "h": h, "k": k, "l": l, "d": d, "causal": causal, "dtype": T::NAME, "scale": bd.scale(), "kernel": def.kernel(),
                                              "layout": "token-major [B][L][heads][D]"});
                std::fs::write(dir.join("meta.json"), meta.to_string()).map_err(|e| kernel_lab_bench::Error::InvalidInput(format!("cannot write meta.json: {e}")))?;
            }
        }
    }
    if let Some(path) = json {
        std::fs::write(path, serde_json::to_string_pretty(&serde_json::json!({"gpu": gpu.info.name, "dtype": T::NAME, "rows": rows})).unwrap_or_default())
            .map_err(|e| kernel_lab_bench::Error::InvalidInput(format!("cannot write {path}: {e}")))?;
    }
    Ok(())
}
