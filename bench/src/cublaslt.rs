//! The cuBLASLt FP8 (e4m3) baseline: `D (M×N, bf16) = dequant(A) · dequant(B)ᵀ` with A (M×K) and the
//! weights B stored as N×K, both e4m3 and K-major, through `cublasLtMatmul` (cudarc's raw `sys` layer),
//! with per-tensor scales or DeepGEMM's block scales ([`Fp8Scaling`]), and the conversion of the lab's
//! block-scale layouts to the ones cuBLASLt reads ([`cublas_block_scales`]).
//!
//! # The row-major to column-major mapping
//!
//! FP8 on Hopper needs cuBLAS's "TN" form (both operands K-major). cuBLAS computes the column-major
//! `D' (N×M) = op(A') · op(B')` with
//! * A' = our `bt` viewed column-major K×N (ld = K), `transa = T`: op(A') is N×K;
//! * B' = our `a` viewed column-major K×M (ld = K), `transb = N`;
//! * D' = our row-major M×N output viewed column-major N×M (ld = N); C' = D' (unused, beta = 0).
//!
//! So cuBLAS's A-scale pointer gets *our B's* scales and its B-scale pointer *our A's*; with block scaling
//! cuBLAS's A (our weights) is `BLK128x128_32F` and its B (our activations) `VEC128_32F`.
use std::{cell::RefCell, ffi::c_void, mem::size_of};

use cudarc::{
    cublas::{result::CublasError, sys as blas_sys},
    cublaslt::sys as lt,
    driver::{CudaSlice, DevicePtr, DevicePtrMut},
};

use crate::{
    error::{DriverContext, Error, Result},
    runtime::gpu::Gpu,
};

/// How the FP8 inputs are scaled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fp8Scaling {
    /// One f32 scale per matrix (`CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F`).
    PerTensor,
    /// DeepGEMM's block scaling: the activations A (M×K) one f32 per 1×128 row segment along K, the weights B one f32 per 128×128 block
    /// (`VEC128_32F` / `BLK128x128_32F`, cuBLAS 12.9+ on Hopper).
    Block,
}

/// The cuBLASLt workspace: 32 MiB, NVIDIA's recommendation for Hopper (cudarc's `Workspace` uses the same).
const WORKSPACE_BYTES: usize = 32 << 20;

/// The most matmul plans kept (descriptors + heuristic result); the oldest is dropped beyond this.
const MAX_PLANS: usize = 32;

/// `cublasLtGetVersion`'s first release with `VEC128_32F` / `BLK128x128_32F` (cuBLAS 12.9.0).
const BLOCK_SCALING_VERSION: usize = 120900;

/// The cuBLASLt FP8 baseline: a handle, a 32 MiB workspace and the plans of the shapes run so far.
///
/// Not `Send`/`Sync` (raw cuBLASLt handles, a `RefCell`'d cache): one thread, the [`Gpu`] it was made on.
pub struct CublasLtFp8 {
    handle: lt::cublasLtHandle_t,
    version: usize,
    state: RefCell<State>,
}

/// What [`CublasLtFp8::matmul`] mutates: the workspace (written by cuBLASLt) and the plan cache.
struct State {
    workspace: CudaSlice<u8>,
    plans: Vec<Plan>,
}

/// What a plan is valid for: the shape, the options and the scale buffers (their pointers are attributes
/// of the matmul descriptor).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PlanKey {
    m: usize,
    n: usize,
    k: usize,
    scaling: Fp8Scaling,
    fast_accum: bool,
    /// Device pointer of our A's (the activations') scales: cuBLAS's B-scale pointer.
    scale_a: u64,
    /// Device pointer of our B's (the weights') scales: cuBLAS's A-scale pointer.
    scale_b: u64,
}

/// A matmul descriptor, the operand layouts and the heuristic's algorithm for one [`PlanKey`].
struct Plan {
    key: PlanKey,
    desc: Desc,
    /// cuBLAS's A: our `bt` as column-major K×N, ld K.
    a_layout: Layout,
    /// cuBLAS's B: our `a` as column-major K×M, ld K.
    b_layout: Layout,
    /// cuBLAS's C and D: our output as column-major N×M, ld N.
    d_layout: Layout,
    algo: lt::cublasLtMatmulAlgo_t,
}

/// An owned `cublasLtMatmulDesc_t`.
struct Desc(lt::cublasLtMatmulDesc_t);

impl Drop for Desc {
    fn drop(&mut self) {
        // SAFETY: the descriptor was created by cublasLtMatmulDescCreate and is destroyed once, here.
        let _ = unsafe { lt::cublasLtMatmulDescDestroy(self.0) };
    }
}

/// An owned `cublasLtMatrixLayout_t`.
struct Layout(lt::cublasLtMatrixLayout_t);

impl Drop for Layout {
    fn drop(&mut self) {
        // SAFETY: the layout was created by cublasLtMatrixLayoutCreate and is destroyed once, here.
        let _ = unsafe { lt::cublasLtMatrixLayoutDestroy(self.0) };
    }
}

/// An owned `cublasLtMatmulPreference_t`.
struct Pref(lt::cublasLtMatmulPreference_t);

impl Drop for Pref {
    fn drop(&mut self) {
        // SAFETY: the preference was created by cublasLtMatmulPreferenceCreate and is destroyed once, here.
        let _ = unsafe { lt::cublasLtMatmulPreferenceDestroy(self.0) };
    }
}

/// The cuBLAS status behind a cuBLASLt one: cudarc binds `cublasStatus_t` twice (`cublas::sys` and
/// `cublaslt::sys`), as two enums with the same variants and values.
fn blas_status(s: lt::cublasStatus_t) -> blas_sys::cublasStatus_t {
    use blas_sys::cublasStatus_t as B;
    use lt::cublasStatus_t as L;
    match s {
        L::CUBLAS_STATUS_SUCCESS => B::CUBLAS_STATUS_SUCCESS,
        L::CUBLAS_STATUS_NOT_INITIALIZED => B::CUBLAS_STATUS_NOT_INITIALIZED,
        L::CUBLAS_STATUS_ALLOC_FAILED => B::CUBLAS_STATUS_ALLOC_FAILED,
        L::CUBLAS_STATUS_INVALID_VALUE => B::CUBLAS_STATUS_INVALID_VALUE,
        L::CUBLAS_STATUS_ARCH_MISMATCH => B::CUBLAS_STATUS_ARCH_MISMATCH,
        L::CUBLAS_STATUS_MAPPING_ERROR => B::CUBLAS_STATUS_MAPPING_ERROR,
        L::CUBLAS_STATUS_EXECUTION_FAILED => B::CUBLAS_STATUS_EXECUTION_FAILED,
        L::CUBLAS_STATUS_INTERNAL_ERROR => B::CUBLAS_STATUS_INTERNAL_ERROR,
        L::CUBLAS_STATUS_NOT_SUPPORTED => B::CUBLAS_STATUS_NOT_SUPPORTED,
        L::CUBLAS_STATUS_LICENSE_ERROR => B::CUBLAS_STATUS_LICENSE_ERROR,
    }
}

/// `Ok` for `CUBLAS_STATUS_SUCCESS`, else [`Error::Cublas`] naming `what`.
fn check(status: lt::cublasStatus_t, what: impl FnOnce() -> String) -> Result<()> {
    match status {
        lt::cublasStatus_t::CUBLAS_STATUS_SUCCESS => Ok(()),
        s => Err(Error::Cublas { what: what(), source: CublasError(blas_status(s)) }),
    }
}

/// `cublasLtGetVersion`'s number as `major.minor.patch` (it is `major·10000 + minor·100 + patch`).
fn version_string(v: usize) -> String {
    format!("{}.{}.{}", v / 10000, v / 100 % 100, v % 100)
}

/// Sets one attribute of a matmul descriptor from a plain value.
///
/// # Safety
/// `desc` is a live descriptor and `T` is the C type cuBLASLt documents for `attr` (size and layout).
unsafe fn set_desc<T>(desc: &Desc, attr: lt::cublasLtMatmulDescAttributes_t, value: &T, what: impl FnOnce() -> String) -> Result<()> {
    // SAFETY: the caller guarantees the descriptor and the attribute's type; `value` is readable for
    // size_of::<T>() bytes, and cuBLASLt copies it before returning.
    check(unsafe { lt::cublasLtMatmulDescSetAttribute(desc.0, attr, value as *const T as *const c_void, size_of::<T>()) }, what)
}

/// Creates a layout of `rows × cols`, column-major with leading dimension `ld`.
fn layout(ty: lt::cudaDataType, rows: usize, cols: usize, ld: usize, what: impl FnOnce() -> String) -> Result<Layout> {
    let mut l = std::ptr::null_mut();
    // SAFETY: `l` is a valid out-pointer; the sizes are plain integers (cuBLASLt validates them).
    check(unsafe { lt::cublasLtMatrixLayoutCreate(&mut l, ty, rows as u64, cols as u64, ld as i64) }, what)?;
    Ok(Layout(l))
}

impl CublasLtFp8 {
    /// Err(Error::NoGpu(..)) naming the library if libcublasLt cannot be loaded.
    ///
    /// Otherwise a cuBLASLt handle and a 32 MiB workspace on `gpu.stream`; later calls must pass the same `gpu`.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        // SAFETY: only tries to dlopen libcublasLt (every other sys call panics if it is absent).
        if !unsafe { lt::is_culib_present() } {
            return Err(Error::NoGpu("libcublasLt was not found (the FP8 cuBLASLt baseline needs it)".into()));
        }
        gpu.ctx.bind_to_thread().during(|| "binding the context for cublasLtCreate".into())?;
        let workspace = gpu.stream.alloc_zeros::<u8>(WORKSPACE_BYTES).during(|| format!("allocating the {WORKSPACE_BYTES}-byte cuBLASLt workspace"))?;
        // SAFETY: the library is present (checked above); cublasLtGetVersion takes no arguments.
        let version = unsafe { lt::cublasLtGetVersion() };
        let mut handle = std::ptr::null_mut();
        // SAFETY: `handle` is a valid out-pointer; the handle is destroyed once, in Drop.
        check(unsafe { lt::cublasLtCreate(&mut handle) }, || "cublasLtCreate".into())?;
        Ok(CublasLtFp8 { handle, version, state: RefCell::new(State { workspace, plans: Vec::new() }) })
    }

    /// The library version (cublasLtGetVersion), for the report.
    ///
    /// `major·10000 + minor·100 + patch`, e.g. 120901 for cuBLAS 12.9.1.
    pub fn version(&self) -> usize {
        self.version
    }

    /// Enqueues on gpu.stream: D (M×N, bf16 bits as u16, row-major) = dequant(A) · dequant(B)ᵀ where
    /// A is M×K e4m3 bytes row-major, `bt` is B stored as N×K e4m3 row-major (K-major, "weights as N×K"),
    /// dequant(x) = x · scale. `scale_a` / `scale_b` are device f32 scales: PerTensor: one element each;
    /// Block: in *cuBLAS's* layout, produced by `cublas_block_scales` below. `fast_accum`: sets
    /// CUBLASLT_MATMUL_DESC_FAST_ACCUM (1 = accumulate all of K in the tensor core; 0 = cuBLAS's default).
    /// Errors name the shape and what failed, including "no algorithm" when the heuristic returns none
    /// (e.g. block scaling unsupported by the installed cuBLAS); every message carries the cuBLASLt version,
    /// the GPU's sm and, for block scaling, what it needs (cuBLASLt ≥ 12.9 on Hopper sm_90).
    ///
    /// Checked here ([`Error::InvalidInput`]): M, N, K > 0; K and N multiples of 16 (what
    /// `torch._scaled_mm` checks before its cuBLASLt call: FP8 operands need 16-byte leading dimensions);
    /// `a`, `bt`, `d` hold exactly M·K, N·K, M·N elements; PerTensor scales hold at least one element (the
    /// first is read), Block scales exactly the lengths [`cublas_block_scales`] returns. Everything else
    /// (the architecture: FP8 needs sm_89+, block scaling sm_90 and cuBLAS ≥ 12.9) is left to cuBLASLt,
    /// whose refusal comes back as [`Error::Cublas`].
    ///
    /// The first call of a (shape, scaling, fast_accum, scale buffers) combination creates its descriptors
    /// and runs the heuristic; later ones reuse them (the scale pointers are part of the key).
    #[allow(clippy::too_many_arguments)]
    pub fn matmul(&self, gpu: &Gpu, m: usize, n: usize, k: usize, a: &CudaSlice<u8>, bt: &CudaSlice<u8>, scale_a: &CudaSlice<f32>,
                  scale_b: &CudaSlice<f32>, d: &mut CudaSlice<u16>, scaling: Fp8Scaling, fast_accum: bool) -> Result<()> {
        let ctx = || self.context(gpu, m, n, k, scaling, fast_accum);
        if m == 0 || n == 0 || k == 0 || !k.is_multiple_of(16) || !n.is_multiple_of(16) {
            return Err(Error::InvalidInput(format!("{}: M, N, K must be positive and K, N multiples of 16", ctx())));
        }
        for (what, len, want) in [("A", a.len(), m * k), ("B (N×K)", bt.len(), n * k), ("D", d.len(), m * n)] {
            if len != want {
                return Err(Error::InvalidInput(format!("{}: {what} holds {len} elements, the shape needs {want}", ctx())));
            }
        }
        match scaling {
            Fp8Scaling::PerTensor => {
                if scale_a.is_empty() || scale_b.is_empty() {
                    return Err(Error::InvalidInput(format!("{}: per-tensor scales need one element each (A's: {}, B's: {})",
                        ctx(), scale_a.len(), scale_b.len())));
                }
            }
            Fp8Scaling::Block => {
                let (want_a, want_b) = block_scale_lens(m, n, k);
                if scale_a.len() != want_a || scale_b.len() != want_b {
                    return Err(Error::InvalidInput(format!(
                        "{}: block scales in cuBLAS's layout (cublas_block_scales) hold {want_a} (A's) and {want_b} (B's) f32, got {} and {}",
                        ctx(), scale_a.len(), scale_b.len())));
                }
            }
        }
        gpu.ctx.bind_to_thread().during(|| format!("binding the context for {}", ctx()))?;
        let mut state = self.state.borrow_mut();
        let State { workspace, plans } = &mut *state;
        let (pa, _ga) = a.device_ptr(&gpu.stream);
        let (pb, _gb) = bt.device_ptr(&gpu.stream);
        let (psa, _gsa) = scale_a.device_ptr(&gpu.stream);
        let (psb, _gsb) = scale_b.device_ptr(&gpu.stream);
        let (pd, _gd) = d.device_ptr_mut(&gpu.stream);
        let (pw, _gw) = workspace.device_ptr_mut(&gpu.stream);
        let key = PlanKey { m, n, k, scaling, fast_accum, scale_a: psa, scale_b: psb };
        let idx = match plans.iter().position(|p| p.key == key) {
            Some(i) => i,
            None => {
                let plan = self.plan(key, &ctx)?;
                if plans.len() >= MAX_PLANS {
                    plans.remove(0);
                }
                plans.push(plan);
                plans.len() - 1
            }
        };
        let plan = &plans[idx];
        let (alpha, beta) = (1.0f32, 0.0f32);
        // SAFETY: the handle, descriptor and layouts are live (owned by self / the plan); the layouts
        // describe exactly the buffers passed (lengths checked above: `bt` N×K and `a` M×K K-major,
        // `d` M×N, C = D with beta = 0); the scale pointers set on the descriptor are those of `scale_a`
        // / `scale_b` (part of the plan's key), whose lengths match the scaling mode; alpha/beta are host
        // f32 (the handle's default pointer mode, f32 scale type) read before the call returns; the
        // workspace is WORKSPACE_BYTES long; every buffer was allocated in `gpu`'s context and the work is
        // ordered on `gpu.stream`, whose handle is live while `gpu` is borrowed; the guards (_ga, ...)
        // record the stream's use of each buffer when dropped after the call.
        check(unsafe {
            lt::cublasLtMatmul(self.handle, plan.desc.0, &alpha as *const f32 as *const c_void,
                pb as *const c_void, plan.a_layout.0, pa as *const c_void, plan.b_layout.0,
                &beta as *const f32 as *const c_void, pd as *const c_void, plan.d_layout.0, pd as *mut c_void, plan.d_layout.0,
                &plan.algo, pw as *mut c_void, WORKSPACE_BYTES, gpu.stream.cu_stream() as lt::cudaStream_t)
        }, || format!("cublasLtMatmul {}", ctx()))
    }

    /// "FP8 e4m3 M×N×K, <scaling>, fast_accum=…, cuBLASLt x.y.z on sm_XY" (+ what block scaling needs).
    fn context(&self, gpu: &Gpu, m: usize, n: usize, k: usize, scaling: Fp8Scaling, fast_accum: bool) -> String {
        let (major, minor) = gpu.info.compute_capability;
        let mut s = format!("FP8 e4m3 {m}x{n}x{k} (MxNxK), {scaling:?} scaling, fast_accum={}, cuBLASLt {} on sm_{major}{minor}",
            u8::from(fast_accum), version_string(self.version));
        if scaling == Fp8Scaling::Block {
            let needs = version_string(BLOCK_SCALING_VERSION);
            s.push_str(&format!(" (block scaling, VEC128_32F/BLK128x128_32F, needs cuBLASLt >= {needs} on Hopper sm_90)"));
        }
        s
    }

    /// Creates the descriptor and layouts for `key` and runs the heuristic (the fastest algorithm that
    /// fits the workspace).
    fn plan(&self, key: PlanKey, ctx: &dyn Fn() -> String) -> Result<Plan> {
        use lt::cublasLtMatmulDescAttributes_t as A;
        let PlanKey { m, n, k, scaling, fast_accum, scale_a, scale_b } = key;
        let mut raw = std::ptr::null_mut();
        // SAFETY: `raw` is a valid out-pointer; compute and scale types are valid enum values.
        check(unsafe { lt::cublasLtMatmulDescCreate(&mut raw, lt::cublasComputeType_t::CUBLAS_COMPUTE_32F, lt::cudaDataType::CUDA_R_32F) },
            || format!("cublasLtMatmulDescCreate {}", ctx()))?;
        let desc = Desc(raw);
        let (op_t, op_n) = (blas_sys::cublasOperation_t::CUBLAS_OP_T, blas_sys::cublasOperation_t::CUBLAS_OP_N);
        let fast: i8 = fast_accum.into();
        // cuBLAS's A is our weights (their scales: ours for B), cuBLAS's B our activations (ours for A).
        let (ptr_a, ptr_b) = (scale_b, scale_a);
        // SAFETY: `desc` is live; each value has the attribute's documented C type: TRANSA/TRANSB
        // cublasOperation_t (a 32-bit enum, the same ABI as cudarc's cublas::sys binding), FAST_ACCUM
        // int8_t, A/B_SCALE_POINTER a device pointer (`void*`, 64-bit: CUdeviceptr's u64), A/B_SCALE_MODE
        // a 32-bit cublasLtMatmulMatrixScale_t (cudarc's repr(u32) enum).
        unsafe {
            set_desc(&desc, A::CUBLASLT_MATMUL_DESC_TRANSA, &op_t, || format!("setting TRANSA {}", ctx()))?;
            set_desc(&desc, A::CUBLASLT_MATMUL_DESC_TRANSB, &op_n, || format!("setting TRANSB {}", ctx()))?;
            set_desc(&desc, A::CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, || format!("setting FAST_ACCUM {}", ctx()))?;
            set_desc(&desc, A::CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &ptr_a, || format!("setting A_SCALE_POINTER {}", ctx()))?;
            set_desc(&desc, A::CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &ptr_b, || format!("setting B_SCALE_POINTER {}", ctx()))?;
            if scaling == Fp8Scaling::Block {
                // (PerTensor keeps the default mode, SCALAR_32F, which cuBLASLt older than 12.8 cannot name.)
                let (mode_a, mode_b) = (lt::cublasLtMatmulMatrixScale_t::CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F,
                    lt::cublasLtMatmulMatrixScale_t::CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F);
                set_desc(&desc, A::CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &mode_a, || format!("setting A_SCALE_MODE = BLK128x128_32F {}", ctx()))?;
                set_desc(&desc, A::CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &mode_b, || format!("setting B_SCALE_MODE = VEC128_32F {}", ctx()))?;
            }
        }
        let e4m3 = lt::cudaDataType::CUDA_R_8F_E4M3;
        let a_layout = layout(e4m3, k, n, k, || format!("cublasLtMatrixLayoutCreate (A: B as K×N) {}", ctx()))?;
        let b_layout = layout(e4m3, k, m, k, || format!("cublasLtMatrixLayoutCreate (B: A as K×M) {}", ctx()))?;
        let d_layout = layout(lt::cudaDataType::CUDA_R_16BF, n, m, n, || format!("cublasLtMatrixLayoutCreate (D: N×M bf16) {}", ctx()))?;

        let mut raw_pref = std::ptr::null_mut();
        // SAFETY: `raw_pref` is a valid out-pointer.
        check(unsafe { lt::cublasLtMatmulPreferenceCreate(&mut raw_pref) }, || format!("cublasLtMatmulPreferenceCreate {}", ctx()))?;
        let pref = Pref(raw_pref);
        let ws = WORKSPACE_BYTES as u64;
        // SAFETY: `pref` is live; MAX_WORKSPACE_BYTES is a uint64_t, `ws` a u64 read before the call returns.
        check(unsafe {
            lt::cublasLtMatmulPreferenceSetAttribute(pref.0, lt::cublasLtMatmulPreferenceAttributes_t::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                &ws as *const u64 as *const c_void, size_of::<u64>())
        }, || format!("setting MAX_WORKSPACE_BYTES {}", ctx()))?;

        // SAFETY: an all-zero cublasLtMatmulHeuristicResult_t is a valid value (integers, floats and a
        // status whose zero is CUBLAS_STATUS_SUCCESS); cuBLASLt overwrites the entries it returns.
        let mut result: lt::cublasLtMatmulHeuristicResult_t = unsafe { std::mem::zeroed() };
        let mut count = 0i32;
        // SAFETY: handle, descriptor, layouts and preference are live; `result` has room for the one
        // result requested and `count` is a valid out-pointer.
        check(unsafe {
            lt::cublasLtMatmulAlgoGetHeuristic(self.handle, desc.0, a_layout.0, b_layout.0, d_layout.0, d_layout.0, pref.0, 1,
                &mut result, &mut count)
        }, || format!("cublasLtMatmulAlgoGetHeuristic {}", ctx()))?;
        if count == 0 {
            return Err(Error::Cublas {
                what: format!("cublasLtMatmulAlgoGetHeuristic returned no algorithm for {}", ctx()),
                source: CublasError(blas_sys::cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED),
            });
        }
        check(result.state, || format!("the heuristic's algorithm (state) for {}", ctx()))?;
        Ok(Plan { key, desc, a_layout, b_layout, d_layout, algo: result.algo })
    }
}

impl Drop for CublasLtFp8 {
    fn drop(&mut self) {
        self.state.get_mut().plans.clear();
        // SAFETY: the handle was created by cublasLtCreate in `new` and is destroyed once, here; the plans
        // that were used with it are gone (their descriptors do not refer to it anyway).
        let _ = unsafe { lt::cublasLtDestroy(self.handle) };
    }
}

/// The lengths of cuBLAS's block-scale tensors for an M×N×K matmul: (A's `VEC128_32F`, B's
/// `BLK128x128_32F`) = (⌈K/128⌉ · round_up(M, 4), ⌈N/128⌉ · round_up(⌈K/128⌉, 4)).
fn block_scale_lens(m: usize, n: usize, k: usize) -> (usize, usize) {
    let kb = k.div_ceil(128);
    (kb * m.next_multiple_of(4), n.div_ceil(128) * kb.next_multiple_of(4))
}

/// Converts the lab's block scales to the layout cuBLASLt reads for Fp8Scaling::Block, returning (A's, B's).
/// The lab's layouts: A's scales `sa[kb * m + row]` (kb = k / 128, length m · ceil(k/128));
/// B's scales `sb[nb * ceil(k/128) + kb]` (nb = n / 128, length ceil(n/128) · ceil(k/128)).
///
/// cuBLAS's layouts (L = ⌈K/128⌉, padding entries 0):
/// * A's (the activations, 1×128 blocks along K, `VEC128_32F` on cuBLAS's B operand): "outer-dim
///   major", the M scales of one K block contiguous, each K block's column padded to a multiple of 4
///   floats (16 bytes): `ca[kb * round_up(M, 4) + row]`, length L · round_up(M, 4).
/// * B's (the weights N×K, 128×128 blocks, `BLK128x128_32F` on cuBLAS's A operand): K-block major, the
///   L scales of one N block contiguous and padded to L4 = round_up(L, 4): `cb[nb * L4 + kb]`, length
///   ⌈N/128⌉ · L4.
///
/// Sources: the cuBLAS guide's section "128-element 1D and 128x128 2D block scaling for FP8 data types"
/// (<https://docs.nvidia.com/cuda/cublas/#element-1d-and-128x128-2d-block-scaling-for-fp8-data-types>)
/// as quoted by PyTorch's `test/test_scaled_matmul_cuda.py` ("L = ceil_div(K, 128), L4 = round_up(L,
/// 4) … scale: [L4, ceil_div({M,N}, 128)] and K/L/L4-major in memory"; 1×128 scales "outer-dim-major");
/// and NVIDIA TransformerEngine's `Float8BlockQuantizer.get_scale_shape`
/// (`transformer_engine/pytorch/tensor/float8_blockwise_tensor.py`), whose scales are passed to
/// cuBLASLt as they are: 1D (ceil(K/128), round_up(M, 4)) and 2D (ceil(M/128), round_up(ceil(K/128),
/// 4)), row-major, "padded to multiples of 4 on the inner dimension for compatibility with GEMM". The
/// guide's own text was not available here; the one ambiguity is the 1D leading dimension when M is not
/// a multiple of 4: PyTorch passes a stride of exactly M (and callers pad M to a multiple of 4),
/// TransformerEngine round_up(M, 4); the two agree whenever M % 4 == 0, and round_up(M, 4) is used here.
///
/// # Panics
/// If `sa` or `sb` does not have the lab layout's length.
pub fn cublas_block_scales(m: usize, n: usize, k: usize, sa: &[f32], sb: &[f32]) -> (Vec<f32>, Vec<f32>) {
    let kb = k.div_ceil(128);
    let nb = n.div_ceil(128);
    assert_eq!(sa.len(), m * kb, "A's block scales: {m}x{k} needs m * ceil(k/128) = {} scales, got {}", m * kb, sa.len());
    assert_eq!(sb.len(), nb * kb, "B's block scales: {n}x{k} needs ceil(n/128) * ceil(k/128) = {} scales, got {}", nb * kb, sb.len());
    let (m4, kb4) = (m.next_multiple_of(4), kb.next_multiple_of(4));
    let mut ca = vec![0.0f32; kb * m4];
    for (dst, src) in ca.chunks_exact_mut(m4.max(1)).zip(sa.chunks_exact(m.max(1))) {
        dst[..m].copy_from_slice(src);
    }
    let mut cb = vec![0.0f32; nb * kb4];
    for (dst, src) in cb.chunks_exact_mut(kb4.max(1)).zip(sb.chunks_exact(kb.max(1))) {
        dst[..kb].copy_from_slice(src);
    }
    debug_assert_eq!((ca.len(), cb.len()), block_scale_lens(m, n, k));
    (ca, cb)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distinct values per (kb, row) and (nb, kb), in the lab's layouts.
    fn lab_scales(m: usize, n: usize, k: usize) -> (Vec<f32>, Vec<f32>) {
        let (kb, nb) = (k.div_ceil(128), n.div_ceil(128));
        let mut sa = vec![f32::NAN; m * kb];
        for b in 0..kb {
            for row in 0..m {
                sa[b * m + row] = (1000 * b + row + 1) as f32;
            }
        }
        let mut sb = vec![f32::NAN; nb * kb];
        for j in 0..nb {
            for b in 0..kb {
                sb[j * kb + b] = -((100 * j + b + 1) as f32);
            }
        }
        (sa, sb)
    }

    #[test]
    fn block_scales_odd_shape() {
        let (m, n, k) = (3, 130, 300); // L = 3 K blocks, 2 N blocks; M and L padded to 4.
        let (sa, sb) = lab_scales(m, n, k);
        let (ca, cb) = cublas_block_scales(m, n, k, &sa, &sb);
        assert_eq!(ca.len(), 3 * 4);
        assert_eq!(cb.len(), 2 * 4);
        assert_eq!((ca.len(), cb.len()), block_scale_lens(m, n, k));
        // A: ca[kb * 4 + row] is the scale of row `row`, K block `kb`; entry 3 of each column is padding.
        assert_eq!(ca, [1.0, 2.0, 3.0, 0.0, 1001.0, 1002.0, 1003.0, 0.0, 2001.0, 2002.0, 2003.0, 0.0]);
        // B: cb[nb * 4 + kb]; entry 3 of each N block is padding.
        assert_eq!(cb, [-1.0, -2.0, -3.0, 0.0, -101.0, -102.0, -103.0, 0.0]);
        // By formula, for every (kb, row) / (nb, kb).
        for b in 0..3 {
            for row in 0..m {
                assert_eq!(ca[b * 4 + row], (1000 * b + row + 1) as f32);
            }
            for j in 0..2 {
                assert_eq!(cb[j * 4 + b], -((100 * j + b + 1) as f32));
            }
        }
    }

    #[test]
    fn block_scales_more_shapes() {
        // Aligned: nothing to pad, the layouts are the lab's.
        let (m, n, k) = (8, 256, 512);
        let (sa, sb) = lab_scales(m, n, k);
        let (ca, cb) = cublas_block_scales(m, n, k, &sa, &sb);
        assert_eq!((ca, cb), (sa, sb));
        // M = 5 (pad 3 per K block), K = 129 (2 blocks, padded to 4), N = 128 (1 block).
        let (m, n, k) = (5, 128, 129);
        let (sa, sb) = lab_scales(m, n, k);
        let (ca, cb) = cublas_block_scales(m, n, k, &sa, &sb);
        assert_eq!(ca.len(), 2 * 8);
        assert_eq!(cb, [-1.0, -2.0, 0.0, 0.0]);
        assert_eq!(ca[8 + 4], 1005.0); // kb 1, row 4
        assert_eq!(&ca[5..8], &[0.0; 3]);
        assert_eq!(&ca[13..16], &[0.0; 3]);
        // One row (decode), K = 7168 (56 blocks, already a multiple of 4), N = 1 (one partial block).
        let (m, n, k) = (1, 1, 7168);
        let (sa, sb) = lab_scales(m, n, k);
        let (ca, cb) = cublas_block_scales(m, n, k, &sa, &sb);
        assert_eq!((ca.len(), cb.len()), (56 * 4, 56));
        assert_eq!(ca[55 * 4], 55001.0);
        assert_eq!(ca[55 * 4 + 1], 0.0);
        assert_eq!(cb, sb);
    }

    #[test]
    #[should_panic(expected = "A's block scales")]
    fn block_scales_reject_wrong_lengths() {
        let _ = cublas_block_scales(3, 130, 300, &[1.0; 8], &[1.0; 6]);
    }

    #[test]
    fn lt_statuses_map_to_the_same_cublas_status() {
        use lt::cublasStatus_t as L;
        for s in [L::CUBLAS_STATUS_SUCCESS, L::CUBLAS_STATUS_NOT_INITIALIZED, L::CUBLAS_STATUS_ALLOC_FAILED, L::CUBLAS_STATUS_INVALID_VALUE,
            L::CUBLAS_STATUS_ARCH_MISMATCH, L::CUBLAS_STATUS_MAPPING_ERROR, L::CUBLAS_STATUS_EXECUTION_FAILED, L::CUBLAS_STATUS_INTERNAL_ERROR,
            L::CUBLAS_STATUS_NOT_SUPPORTED, L::CUBLAS_STATUS_LICENSE_ERROR] {
            let b = blas_status(s);
            assert_eq!(format!("{s:?}"), format!("{b:?}"));
            assert_eq!(s as u32, b as u32);
        }
        assert!(check(L::CUBLAS_STATUS_SUCCESS, || unreachable!()).is_ok());
        let e = check(L::CUBLAS_STATUS_NOT_SUPPORTED, || "x".into()).unwrap_err();
        assert!(matches!(e, Error::Cublas { ref what, source: CublasError(blas_sys::cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED) } if what == "x"));
        assert_eq!(version_string(120901), "12.9.1");
        assert_eq!(version_string(130000), "13.0.0");
    }
}
