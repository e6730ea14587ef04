//! The typed GEMM API: `C = A · B` on the caller's buffers and stream.
//!
//! ```no_run
//! use half::f16;
//! use kernel_lab::{Gpu, gemm::{GemmDesc, GemmPlan}};
//!
//! # fn main() -> kernel_lab::Result<()> {
//! let gpu = Gpu::new(0)?;                       // or Gpu::with_stream(your_stream)?
//! let (m, n, k) = (512, 4096, 4096);
//! let a = gpu.stream.alloc_zeros::<f16>(m * k).unwrap();
//! let b = gpu.stream.alloc_zeros::<f16>(k * n).unwrap();
//! let mut c = gpu.stream.alloc_zeros::<f16>(m * n).unwrap();
//! let mut plan = GemmPlan::<f16>::new(&gpu, GemmDesc::new(m, n, k))?;
//! println!("{}", plan.config());                // e.g. "d21 (tile 144x128, split-K 1)"
//! plan.run(&a, &b, &mut c)?;                    // enqueued on the stream; nothing synchronizes
//! # Ok(()) }
//! ```
use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut, DeviceRepr, ValidAsZeroBits};

use crate::{
    error::{Error, Result},
    runtime::gpu::Gpu,
    sgemm::SgemmPlan,
    steps::gemm::Elem,
};

use super::{HalfPlan, Shape, copy_rows, launch::{BReady, Operand}, step_by_label};

mod sealed {
    pub trait Sealed {}
    impl Sealed for half::f16 {}
    impl Sealed for half::bf16 {}
    impl Sealed for f32 {}
}

/// An element type the GEMM takes: [`half::f16`] and [`half::bf16`] (f32 accumulation, tensor cores)
/// and `f32` (FFMA on CUDA cores, as `cublasSgemm` without TF32). Sealed: the kernels exist for these.
pub trait Element: DeviceRepr + ValidAsZeroBits + Copy + Default + Unpin + sealed::Sealed + 'static {
    /// The registry's element type.
    const ELEM: Elem;
    /// Its name in errors and reports (`f16`, `bf16`, `f32`).
    const NAME: &'static str;
}

impl Element for half::f16 {
    const ELEM: Elem = Elem::F16;
    const NAME: &'static str = "f16";
}

impl Element for half::bf16 {
    const ELEM: Elem = Elem::Bf16;
    const NAME: &'static str = "bf16";
}

impl Element for f32 {
    const ELEM: Elem = Elem::F32;
    const NAME: &'static str = "f32";
}

/// `C (M×N) = A (M×K) · B (K×N)`, row-major, with leading dimensions (elements between the starts of
/// two rows): `lda ≥ K`, `ldb ≥ N`, `ldc ≥ N`. [`GemmDesc::new`] gives the dense layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GemmDesc {
    /// Rows of A and C.
    pub m: usize,
    /// Columns of B and C.
    pub n: usize,
    /// Columns of A, rows of B.
    pub k: usize,
    /// Row pitch of A in elements.
    pub lda: usize,
    /// Row pitch of B in elements.
    pub ldb: usize,
    /// Row pitch of C in elements.
    pub ldc: usize,
}

impl GemmDesc {
    /// Dense row-major operands (`lda = K`, `ldb = ldc = N`).
    pub fn new(m: usize, n: usize, k: usize) -> GemmDesc {
        GemmDesc { m, n, k, lda: k, ldb: n, ldc: n }
    }

    /// The same product on rows `lda`, `ldb`, `ldc` elements apart (sub-matrices of larger buffers).
    pub fn with_strides(self, lda: usize, ldb: usize, ldc: usize) -> GemmDesc {
        GemmDesc { lda, ldb, ldc, ..self }
    }

    /// Whether every operand is dense (pitch equal to its width).
    pub fn is_dense(&self) -> bool {
        self.lda == self.k && self.ldb == self.n && self.ldc == self.n
    }

    /// Elements A, B and C span: `(rows − 1) · pitch + cols` each.
    pub fn spans(&self) -> (usize, usize, usize) {
        let span = |rows: usize, cols: usize, ld: usize| (rows - 1) * ld + cols;
        (span(self.m, self.k, self.lda), span(self.k, self.n, self.ldb), span(self.m, self.n, self.ldc))
    }

    /// The problem size, validated (each dimension 1 … 2^20, each pitch at least its row's width).
    pub fn shape(&self) -> Result<Shape> {
        let s = Shape::new(self.m, self.n, self.k)?;
        for (what, ld, width, dim) in [("lda", self.lda, self.k, "K"), ("ldb", self.ldb, self.n, "N"), ("ldc", self.ldc, self.n, "N")] {
            if ld < width {
                return Err(Error::InvalidInput(format!("GEMM {what} = {ld} is below the row width {dim} = {width} of {self}")));
            }
        }
        Ok(s)
    }
}

impl std::fmt::Display for GemmDesc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}x{}", self.m, self.n, self.k)?;
        if !self.is_dense() {
            write!(f, " (lda {}, ldb {}, ldc {})", self.lda, self.ldb, self.ldc)?;
        }
        Ok(())
    }
}

/// The configuration a [`GemmPlan`] runs, as a user sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GemmConfig {
    /// The ladder step (`h6s4`, `d21r144`, `v13`, …: the ladder READMEs describe each).
    pub label: &'static str,
    /// Its PTX entry.
    pub kernel: &'static str,
    /// Its output tile, rows × columns of C per CTA (for the transposed decode steps, weight columns ×
    /// activation rows as the kernel computes them).
    pub tile: (u32, u32),
    /// How many ways K is split (1: not split).
    pub split_k: u32,
    /// K and N padded to multiples of 8 through staging copies.
    pub padded: bool,
    /// Operands copied to and from dense staging buffers (each one strided or not 16-byte aligned; the
    /// others go to the kernel as they are).
    pub staged: bool,
}

impl std::fmt::Display for GemmConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{} (tile {}x{}, split-K {}", self.label, if self.padded { "+pad" } else { "" }, self.tile.0, self.tile.1, self.split_k)?;
        if self.staged {
            f.write_str(", staged")?;
        }
        f.write_str(")")
    }
}

/// The plan a [`GemmPlan`] wraps: f16/bf16 on 16-bit bits, or f32.
enum Inner {
    Half(HalfPlan),
    Single(SgemmPlan),
}

/// Dense staging buffers for the operands the kernels cannot take as they are (strided or unaligned),
/// each allocated the first time its operand needs it.
struct Stage<T> {
    a: Option<CudaSlice<T>>,
    b: Option<CudaSlice<T>>,
    c: Option<CudaSlice<T>>,
}

impl<T> Stage<T> {
    fn any(&self) -> bool {
        self.a.is_some() || self.b.is_some() || self.c.is_some()
    }
}

/// Whether an operand of `rows` rows of `width` elements, `pitch` apart, at `ptr`, must be staged: its
/// rows are not contiguous (one row is contiguous at any pitch) or it is not 16-byte aligned.
fn needs_stage(rows: usize, width: usize, pitch: usize, ptr: u64) -> bool {
    (rows > 1 && pitch != width) || !ptr.is_multiple_of(16)
}

/// One GEMM shape with element type `T`, planned once and run many times on the caller's buffers
/// (`CudaSlice`, `CudaView`, `CudaViewMut`: anything cudarc can address) and on the [`Gpu`]'s stream.
/// It owns what its kernel needs besides A, B and C (split-K workspace, TMA tensor maps, staging
/// buffers); plans are independent of each other, and nothing is kept in thread-locals or globals.
pub struct GemmPlan<T: Element> {
    gpu: Gpu,
    desc: GemmDesc,
    inner: Inner,
    stage: Stage<T>,
}

impl<T: Element> GemmPlan<T> {
    /// Plans `desc` with the library's choice of kernel for this shape and GPU.
    pub fn new(gpu: &Gpu, desc: GemmDesc) -> Result<Self> {
        Self::build(gpu, desc, None)
    }

    /// Plans `desc` with the step labelled `label` (`h6s4`, `d15`, `v13`, …; for bf16 the `-bf16`
    /// suffix may be left out). Refused, with the reason, where this GPU or this shape cannot run it.
    pub fn with_step(gpu: &Gpu, desc: GemmDesc, label: &str) -> Result<Self> {
        Self::build(gpu, desc, Some(label))
    }

    fn build(gpu: &Gpu, desc: GemmDesc, label: Option<&str>) -> Result<Self> {
        let s = desc.shape()?;
        let inner = match T::ELEM {
            Elem::F32 => {
                let step = label.map(crate::sgemm::step_by_label).transpose()?;
                Inner::Single(SgemmPlan::new(gpu, s, step)?)
            }
            elem => {
                let step = match label {
                    None => None,
                    Some(l) if elem == Elem::Bf16 && !l.ends_with("-bf16") => Some(step_by_label(&format!("{l}-bf16")).or_else(|_| step_by_label(l))?),
                    Some(l) => Some(step_by_label(l)?),
                };
                Inner::Half(HalfPlan::new(gpu, s, step, elem)?)
            }
        };
        // Strided operands' staging now (aligned ones never need it); an unaligned one's at its first run.
        let mut plan = GemmPlan { gpu: gpu.clone(), desc, inner, stage: Stage { a: None, b: None, c: None } };
        plan.ensure_stage([needs_stage(s.m, s.k, desc.lda, 0), needs_stage(s.k, s.n, desc.ldb, 0), needs_stage(s.m, s.n, desc.ldc, 0)])?;
        Ok(plan)
    }

    /// Allocates the staging of each operand (A, B, C) flagged and not yet staged.
    fn ensure_stage(&mut self, need: [bool; 3]) -> Result<()> {
        let s = self.shape();
        for (i, (what, n)) in [("A", s.m * s.k), ("B", s.k * s.n), ("C", s.m * s.n)].into_iter().enumerate() {
            let slot = match i {
                0 => &mut self.stage.a,
                1 => &mut self.stage.b,
                _ => &mut self.stage.c,
            };
            if need[i] && slot.is_none() {
                crate::runtime::budget::check(&self.gpu, &format!("gemm {s}: dense staging of the strided or unaligned {what}"), (n * std::mem::size_of::<T>()) as u64, 0)?;
                *slot = Some(self.gpu.zeros(n)?);
            }
        }
        Ok(())
    }

    /// What this plan runs.
    pub fn config(&self) -> GemmConfig {
        let s = self.shape();
        let staged = self.stage.any();
        match &self.inner {
            Inner::Half(p) => {
                let st = p.config().step;
                GemmConfig { label: st.kernel.step, kernel: st.kernel.name, tile: st.grid.tile(), padded: p.config().padded, staged,
                             split_k: super::launch::split_k(st, s, self.gpu.info.sms).0.max(1) }
            }
            Inner::Single(p) => {
                let st = p.step();
                GemmConfig { label: st.kernel.step, kernel: st.kernel.name, tile: st.grid.tile(), padded: false, staged,
                             split_k: st.split_k(s.m as u32, s.n as u32, s.k as u32, self.gpu.info.sms, 1).0.max(1) }
            }
        }
    }

    /// The descriptor this plan was made for.
    pub fn desc(&self) -> GemmDesc {
        self.desc
    }

    fn shape(&self) -> Shape {
        Shape { m: self.desc.m, n: self.desc.n, k: self.desc.k }
    }

    /// Enqueues `c = a · b` on the plan's stream. `a`, `b`, `c` must span the descriptor's rows and
    /// pitches (checked: an error names the operand and both lengths). Dense, 16-byte-aligned operands
    /// go to the kernel as they are; each other one through its staging buffer (a copy in, or for C out).
    /// Nothing synchronizes: the result is ready when the stream gets there.
    pub fn run<A, B, C>(&mut self, a: &A, b: &B, c: &mut C) -> Result<()>
    where
        A: DevicePtr<T>,
        B: DevicePtr<T>,
        C: DevicePtrMut<T>,
    {
        let (span_a, span_b, span_c) = self.desc.spans();
        for (what, have, need) in [("A", a.len(), span_a), ("B", b.len(), span_b), ("C", c.len(), span_c)] {
            if have < need {
                return Err(Error::InvalidInput(format!("GEMM {}: {what} holds {have} {} elements, the descriptor spans {need}", self.desc, T::NAME)));
            }
        }
        let stream = self.gpu.stream.clone();
        // The guards order these accesses after earlier work on the buffers (where the caller's context
        // tracks events) and record them when dropped, after the launches below are enqueued.
        let (pa, _ga) = a.device_ptr(&stream);
        let (pb, _gb) = b.device_ptr(&stream);
        let (pc, _gc) = c.device_ptr_mut(&stream);
        let (oa, ob, oc) = (Operand { ptr: pa, len: span_a }, Operand { ptr: pb, len: span_b }, Operand { ptr: pc, len: span_c });
        let d = self.desc;
        let need = [needs_stage(d.m, d.k, d.lda, pa), needs_stage(d.k, d.n, d.ldb, pb), needs_stage(d.m, d.n, d.ldc, pc)];
        self.ensure_stage(need)?;
        let e = std::mem::size_of::<T>();
        let staged = |slot: &Option<CudaSlice<T>>, on: bool| slot.as_ref().filter(|_| on).map(|b| Operand::of(&self.gpu, b));
        let (sa, sb, sc) = (staged(&self.stage.a, need[0]), staged(&self.stage.b, need[1]), staged(&self.stage.c, need[2]));
        if let Some(sa) = sa {
            copy_rows(&self.gpu, oa, d.lda, sa, d.k, d.m, d.k, e)?;
        }
        if let Some(sb) = sb {
            copy_rows(&self.gpu, ob, d.ldb, sb, d.n, d.k, d.n, e)?;
        }
        self.run_dense(sa.unwrap_or(oa), sb.unwrap_or(ob), sc.unwrap_or(oc), sb.is_some())?;
        match sc {
            Some(sc) => copy_rows(&self.gpu, sc, d.n, oc, d.ldc, d.m, d.n, e),
            None => Ok(()),
        }
    }

    /// Lets the kernel start reading B before the kernel enqueued just before this GEMM has finished —
    /// promise that kernel does not write B (model weights loaded earlier): see [`BReady`]. Used by the
    /// split-K decode steps on Hopper; a no-op for the others and for f32. Default: `AfterPrevious`.
    pub fn set_b_ready(&mut self, b_ready: BReady) {
        if let Inner::Half(p) = &mut self.inner {
            p.set_b_ready(b_ready);
        }
    }

    /// `b_staged`: B was just copied into the plan's staging buffer, so it is never read early.
    fn run_dense(&mut self, a: Operand, b: Operand, c: Operand, b_staged: bool) -> Result<()> {
        match &mut self.inner {
            Inner::Half(p) => {
                let ready = if b_staged { BReady::AfterPrevious } else { p.b_ready() };
                p.run_at_ready(a, b, c, ready)
            }
            Inner::Single(p) => p.run_at(a, b, c),
        }
    }
}

/// `c = a · b` once: plans with the library's choice, runs, and returns the configuration used. For
/// repeated calls on one shape keep a [`GemmPlan`] (planning loads the kernel and may allocate).
pub fn gemm<T: Element, A: DevicePtr<T>, B: DevicePtr<T>, C: DevicePtrMut<T>>(gpu: &Gpu, desc: GemmDesc, a: &A, b: &B, c: &mut C) -> Result<GemmConfig> {
    let mut plan = GemmPlan::<T>::new(gpu, desc)?;
    plan.run(a, b, c)?;
    Ok(plan.config())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_check_their_pitches_and_spans() {
        let d = GemmDesc::new(3, 5, 7);
        assert!(d.is_dense());
        assert_eq!(d.spans(), (21, 35, 15));
        let s = d.with_strides(8, 6, 5);
        assert!(!s.is_dense());
        assert_eq!(s.spans(), (2 * 8 + 7, 6 * 6 + 5, 2 * 5 + 5));
        assert_eq!(s.to_string(), "3x5x7 (lda 8, ldb 6, ldc 5)");
        let e = d.with_strides(6, 5, 5).shape().unwrap_err().to_string();
        assert!(e.contains("lda = 6") && e.contains("K = 7"), "{e}");
        let e = GemmDesc::new(0, 1, 1).shape().unwrap_err().to_string();
        assert!(e.contains("M = 0"), "{e}");
    }

    #[test]
    fn only_the_operands_that_need_it_are_staged() {
        // Dense and aligned: as it is; one row is contiguous whatever its pitch.
        assert!(!needs_stage(32, 64, 64, 0x1000));
        assert!(!needs_stage(1, 64, 128_256, 0x1000 + 2 * 64_128));
        // Rows apart, or an address off 16 bytes: staged.
        assert!(needs_stage(32, 64, 128, 0x1000));
        assert!(needs_stage(1, 64, 64, 0x1002));
        assert!(needs_stage(2, 64, 64, 0x1008));
    }

    #[test]
    fn configs_print_label_tile_and_split() {
        let c = GemmConfig { label: "d15", kernel: "hgemm_decode_v15", tile: (64, 16), split_k: 4, padded: true, staged: true };
        assert_eq!(c.to_string(), "d15+pad (tile 64x16, split-K 4, staged)");
    }
}
