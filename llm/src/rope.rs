//! The rotary embedding's frequencies and the `cos`/`sin` table the `rope` kernel reads, computed as
//! transformers computes them (f32 frequencies, the product `position · frequency` in f32), so the table
//! rounds to the same 16-bit values.
use crate::config::RopeScaling;

/// The `head_dim / 2` inverse frequencies `θ^(−2i/D)`, scaled.
pub fn inv_freq(theta: f64, head_dim: usize, scaling: RopeScaling) -> Vec<f32> {
    let base: Vec<f32> = (0..head_dim / 2).map(|i| 1.0f32 / (theta as f32).powf((2 * i) as f32 / head_dim as f32)).collect();
    match scaling {
        RopeScaling::None => base,
        RopeScaling::Linear { factor } => base.iter().map(|&f| f / factor as f32).collect(),
        RopeScaling::Llama3 { factor, low_freq_factor, high_freq_factor, original_max_position_embeddings } => {
            let (factor, lo, hi, old) = (factor as f32, low_freq_factor as f32, high_freq_factor as f32, original_max_position_embeddings as f32);
            let (low_wavelen, high_wavelen) = (old / lo, old / hi);
            base.iter().map(|&f| {
                let wavelen = 2.0 * std::f32::consts::PI / f;
                let scaled = if wavelen > low_wavelen { f / factor } else { f };
                if wavelen < high_wavelen || wavelen > low_wavelen {
                    scaled
                } else {
                    let smooth = (old / wavelen - lo) / (hi - lo);
                    (1.0 - smooth) * scaled / factor + smooth * scaled
                }
            }).collect()
        }
    }
}

/// `[positions][head_dim / 2][2]`: `cos` and `sin` of `p · inv_freq[i]` (the product in f32).
pub fn table(inv_freq: &[f32], positions: usize) -> Vec<f32> {
    let mut t = Vec::with_capacity(positions * inv_freq.len() * 2);
    for p in 0..positions {
        for &f in inv_freq {
            let x = (p as f32 * f) as f64;
            t.push(x.cos() as f32);
            t.push(x.sin() as f32);
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frequencies_follow_the_formulas() {
        let f = inv_freq(10000.0, 128, RopeScaling::None);
        assert_eq!((f.len(), f[0]), (64, 1.0));
        assert!((f[32] as f64 - 10000f64.powf(-0.5)).abs() < 1e-7);
        let lin = inv_freq(10000.0, 128, RopeScaling::Linear { factor: 4.0 });
        assert!(lin.iter().zip(&f).all(|(a, b)| (a * 4.0 - b).abs() <= 1e-7 * b.abs()));
        // Llama 3.1: short wavelengths kept, long ones over the factor, the middle smoothed between.
        let l3 = inv_freq(500000.0, 128, RopeScaling::Llama3 { factor: 8.0, low_freq_factor: 1.0, high_freq_factor: 4.0, original_max_position_embeddings: 8192.0 });
        let b = inv_freq(500000.0, 128, RopeScaling::None);
        assert_eq!(l3[0], b[0]);
        assert!((l3[63] - b[63] / 8.0).abs() <= 1e-6 * b[63]);
        let mid = (0..64).find(|&i| l3[i] != b[i] && (l3[i] - b[i] / 8.0).abs() > 1e-6 * b[i]).expect("a smoothed frequency");
        assert!(l3[mid] < b[mid] && l3[mid] > b[mid] / 8.0);
    }

    #[test]
    fn the_table_rotates_by_position() {
        let t = table(&[1.0, 0.5], 3);
        assert_eq!(t.len(), 12);
        assert_eq!((t[0], t[1]), (1.0, 0.0));
        assert!((t[4] - 1f32.cos()).abs() < 1e-7 && (t[7] - 0.5f32.sin()).abs() < 1e-7 && (t[9] - 2f32.sin()).abs() < 1e-7);
    }
}
