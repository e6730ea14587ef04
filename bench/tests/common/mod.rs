//! What the attention tests share: 16-bit elements through f32 and random inputs rounded to them.
use half::{bf16, f16};
use kernel_lab_bench::gemm::Element;

/// A 16-bit element the tests convert through f32.
pub trait Half: Element {
    fn of(x: f32) -> Self;
    fn to(self) -> f32;
}
impl Half for f16 {
    fn of(x: f32) -> Self {
        f16::from_f32(x)
    }
    fn to(self) -> f32 {
        self.to_f32()
    }
}
impl Half for bf16 {
    fn of(x: f32) -> Self {
        bf16::from_f32(x)
    }
    fn to(self) -> f32 {
        self.to_f32()
    }
}

/// Random values in [−2, 2) rounded to `T` (scores with a spread, peaked rows): the device gets `T`, the
/// reference the same values in f32.
#[allow(dead_code)] // the attention tests use it; fp8_weights does not
pub fn rounded<T: Half>(rng: &mut impl rand::Rng, n: usize) -> (Vec<T>, Vec<f32>) {
    let t: Vec<T> = (0..n).map(|_| T::of(rng.random_range(-2.0f32..2.0))).collect();
    let f = t.iter().map(|x| x.to()).collect();
    (t, f)
}
