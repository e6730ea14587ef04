//! The library from a program of your own: a CUDA context and stream you made, buffers you allocated
//! (whole, and a sub-matrix of a larger one), GEMM in f16, bf16 and f32 and attention, each result
//! checked against an f64 reference on the CPU.
//!
//! `cargo run --release -p api-example` (needs a CUDA GPU and driver; without one it says so).
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream};
use half::{bf16, f16};
use kernel_lab::{
    Gpu, Result,
    attention::{AttentionDesc, AttentionPlan, AttnShape, reference_f64},
    gemm::{Element, GemmDesc, GemmPlan},
};

fn main() {
    if !kernel_lab::runtime::gpu::driver_present() {
        eprintln!("api-example: no CUDA driver on this machine; this example runs its kernels on a GPU (cargo test covers the CPU side)");
        std::process::exit(2);
    }
    match run() {
        Ok(()) => println!("api-example: all results match the f64 references"),
        Err(e) => {
            eprintln!("api-example: error: {e}");
            std::process::exit(1);
        }
    }
}

fn run() -> Result<()> {
    // Your context and your stream (candle or any cudarc program has its own): the library enqueues its
    // work there and never synchronizes behind your back.
    let ctx = CudaContext::new(0).map_err(|e| kernel_lab::Error::NoGpu(format!("device 0: {e:?}")))?;
    let stream = ctx.new_stream().map_err(|e| kernel_lab::Error::NoGpu(format!("a new stream: {e:?}")))?;
    let gpu = Gpu::with_stream(stream.clone())?;
    println!("GPU: {} ({} SMs), on a stream of this program's own", gpu.info.name, gpu.info.sms);

    gemm_check::<f16>(&gpu, &stream, 256, 1024, 512, 0, 2e-3)?;
    gemm_check::<bf16>(&gpu, &stream, 64, 4096, 4096, 0, 8e-3)?;
    gemm_check::<f32>(&gpu, &stream, 200, 300, 400, 0, 1e-5)?;
    // A sub-matrix of larger buffers: rows 24 elements longer than the product needs.
    gemm_check::<f16>(&gpu, &stream, 100, 256, 192, 24, 2e-3)?;

    attention_check(&gpu, &stream, AttentionDesc::new(2, 4, 256, 64).causal())?;
    attention_check(&gpu, &stream, AttentionDesc::new(1, 2, 300, 128))?;
    Ok(())
}

/// Deterministic values in [-1, 1), exactly representable in f16 and bf16 (multiples of 1/64).
fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n).map(|_| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        ((x >> 40) % 128) as f32 / 64.0 - 1.0
    }).collect()
}

trait FromF32: Element {
    fn from_f32(x: f32) -> Self;
    fn to_f64(self) -> f64;
}
impl FromF32 for f16 {
    fn from_f32(x: f32) -> Self { f16::from_f32(x) }
    fn to_f64(self) -> f64 { self.to_f64() }
}
impl FromF32 for bf16 {
    fn from_f32(x: f32) -> Self { bf16::from_f32(x) }
    fn to_f64(self) -> f64 { self.to_f64() }
}
impl FromF32 for f32 {
    fn from_f32(x: f32) -> Self { x }
    fn to_f64(self) -> f64 { self as f64 }
}

fn upload<T: FromF32>(stream: &Arc<CudaStream>, v: &[f32]) -> Result<CudaSlice<T>> {
    let host: Vec<T> = v.iter().map(|&x| T::from_f32(x)).collect();
    stream.clone_htod(&host).map_err(|e| kernel_lab::Error::InvalidInput(format!("upload: {e:?}")))
}

fn rel_l2(got: &[f64], want: &[f64]) -> f64 {
    let num: f64 = got.iter().zip(want).map(|(g, w)| (g - w) * (g - w)).sum();
    let den: f64 = want.iter().map(|w| w * w).sum();
    (num / den.max(f64::MIN_POSITIVE)).sqrt()
}

/// `C = A·B` on buffers of this program (rows `pad` elements longer than needed when `pad > 0`), checked.
fn gemm_check<T: FromF32>(gpu: &Gpu, stream: &Arc<CudaStream>, m: usize, n: usize, k: usize, pad: usize, tol: f64) -> Result<()> {
    let desc = GemmDesc::new(m, n, k).with_strides(k + pad, n + pad, n + pad);
    let (sa, sb, sc) = desc.spans();
    let (ha, hb) = (values(sa, 1 + m as u64), values(sb, 2 + n as u64));
    let (a, b) = (upload::<T>(stream, &ha)?, upload::<T>(stream, &hb)?);
    let mut c = upload::<T>(stream, &vec![f32::NAN; sc])?; // poisoned: every element must be written
    let mut plan = GemmPlan::<T>::new(gpu, desc)?;
    plan.run(&a, &b, &mut c)?;
    let got: Vec<T> = stream.clone_dtoh(&c).map_err(|e| kernel_lab::Error::InvalidInput(format!("download: {e:?}")))?;
    let mut want = vec![0f64; m * n];
    let mut out = vec![0f64; m * n];
    for i in 0..m {
        for j in 0..n {
            want[i * n + j] = (0..k).map(|p| ha[i * desc.lda + p] as f64 * hb[p * desc.ldb + j] as f64).sum();
            out[i * n + j] = got[i * desc.ldc + j].to_f64();
        }
    }
    let err = rel_l2(&out, &want);
    println!("gemm {} {desc}: {} — rel L2 error {err:.1e} (tolerance {tol:.0e})", T::NAME, plan.config());
    if !(err <= tol) {
        return Err(kernel_lab::Error::Verification(format!("gemm {} {desc}: rel L2 {err:.2e} over {tol:.0e}", T::NAME)));
    }
    Ok(())
}

/// Attention forward in f16 on buffers of this program, checked (O and the LSE) against f64.
fn attention_check(gpu: &Gpu, stream: &Arc<CudaStream>, desc: AttentionDesc) -> Result<()> {
    let (len, lse_len) = desc.lens();
    let (hq, hk, hv) = (values(len, 11), values(len, 12), values(len, 13));
    let (q, k, v) = (upload::<f16>(stream, &hq)?, upload::<f16>(stream, &hk)?, upload::<f16>(stream, &hv)?);
    let mut o = upload::<f16>(stream, &vec![f32::NAN; len])?;
    let mut lse = stream.clone_htod(&vec![f32::NAN; lse_len]).map_err(|e| kernel_lab::Error::InvalidInput(format!("upload: {e:?}")))?;
    let mut plan = AttentionPlan::<f16>::new(gpu, desc)?;
    plan.run(&q, &k, &v, &mut o, &mut lse)?;
    let got_o: Vec<f16> = stream.clone_dtoh(&o).map_err(|e| kernel_lab::Error::InvalidInput(format!("download: {e:?}")))?;
    let got_lse: Vec<f32> = stream.clone_dtoh(&lse).map_err(|e| kernel_lab::Error::InvalidInput(format!("download: {e:?}")))?;
    let s = AttnShape::new(desc.batch, desc.heads, desc.seq_len, desc.head_dim, desc.causal)?;
    let wide = |h: &[f32]| h.iter().map(|&x| x as f64).collect::<Vec<_>>();
    let (want_o, want_lse) = reference_f64(s, s.default_scale() as f64, &wide(&hq), &wide(&hk), &wide(&hv));
    let o_err = rel_l2(&got_o.iter().map(|x| x.to_f64()).collect::<Vec<_>>(), &want_o);
    let lse_err = rel_l2(&wide(&got_lse), &want_lse);
    println!("attention f16 {s}: {} — O rel L2 {o_err:.1e}, LSE {lse_err:.1e}", plan.config());
    if !(o_err <= 2e-3 && lse_err <= 1e-5) {
        return Err(kernel_lab::Error::Verification(format!("attention {s}: O {o_err:.2e} (2e-3), LSE {lse_err:.2e} (1e-5)")));
    }
    Ok(())
}
