//! The host side of the RMSNorm example: the embedded PTX and the f64 reference the GPU result is
//! checked against (the example itself is `examples/rmsnorm.rs`).

/// The kernel crate's PTX, built by `build.rs`.
pub static PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/rmsnorm_kernels_sm_80.ptx"));

/// `y[r][c] = x[r][c] · w[c] / √(mean_c x[r][c]² + eps)` in f64.
pub fn rmsnorm_f64(x: &[f32], w: &[f32], cols: usize, eps: f32) -> Vec<f64> {
    x.chunks(cols).flat_map(|row| {
        let ms = row.iter().map(|&v| v as f64 * v as f64).sum::<f64>() / cols as f64;
        let scale = 1.0 / (ms + eps as f64).sqrt();
        row.iter().zip(w).map(move |(&v, &g)| v as f64 * scale * g as f64)
    }).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn reference_normalizes_each_row() {
        let y = super::rmsnorm_f64(&[3.0, 4.0, 1.0, 1.0], &[1.0, 2.0], 2, 0.0);
        let s = (12.5f64).sqrt();
        assert_eq!(y, vec![3.0 / s, 8.0 / s, 1.0, 2.0]);
        assert!(super::PTX.contains(".visible .entry rmsnorm_f32(") && super::PTX.contains(".maxntid 256, 1, 1"));
    }
}
