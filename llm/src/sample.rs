//! Choosing the next token from a row of logits on the host: greedy, or seeded top-k / top-p (nucleus)
//! sampling with a temperature.

/// How the next token is chosen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Sampling {
    /// The largest logit (first on a tie), on the GPU.
    Greedy,
    /// Softmax of `logits / temperature` over the `top_k` largest (0: all), then the smallest set of them
    /// whose probabilities reach `top_p`, drawn with a seeded generator.
    TopKTopP { temperature: f32, top_k: usize, top_p: f32, seed: u64 },
}

/// A small seeded generator (SplitMix64): the same seed gives the same tokens.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// Uniform in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The token drawn from `logits` with top-k, top-p and `temperature` (> 0), using `rng`.
pub fn top_k_top_p(logits: &[f32], temperature: f32, top_k: usize, top_p: f32, rng: &mut Rng) -> u32 {
    let mut idx: Vec<u32> = (0..logits.len() as u32).filter(|&i| !logits[i as usize].is_nan()).collect();
    idx.sort_by(|&a, &b| logits[b as usize].total_cmp(&logits[a as usize]).then(a.cmp(&b)));
    if top_k > 0 {
        idx.truncate(top_k.max(1));
    }
    let Some(&first) = idx.first() else { return 0 };
    let m = logits[first as usize] as f64;
    let w: Vec<f64> = idx.iter().map(|&i| ((logits[i as usize] as f64 - m) / temperature.max(1e-6) as f64).exp()).collect();
    let total: f64 = w.iter().sum();
    // The nucleus: the most likely tokens until their probability reaches top_p (at least one).
    let mut keep = 0;
    let mut acc = 0.0;
    while keep < w.len() {
        acc += w[keep] / total;
        keep += 1;
        if acc >= top_p as f64 {
            break;
        }
    }
    let kept: f64 = w[..keep].iter().sum();
    let mut r = rng.next_f64() * kept;
    for (i, &wi) in w[..keep].iter().enumerate() {
        if r < wi {
            return idx[i];
        }
        r -= wi;
    }
    idx[keep - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_k_one_is_greedy_and_the_seed_repeats() {
        let logits = [0.5, 3.0, -1.0, 3.0, 2.0];
        let mut r = Rng::new(7);
        assert_eq!(top_k_top_p(&logits, 1.0, 1, 1.0, &mut r), 1, "first of the tied maxima");
        let draw = |seed| {
            let mut r = Rng::new(seed);
            (0..50).map(|_| top_k_top_p(&logits, 1.0, 0, 0.9, &mut r)).collect::<Vec<_>>()
        };
        assert_eq!(draw(3), draw(3));
        assert!(draw(3).iter().all(|&t| t != 2), "p = 0.9 leaves out the least likely token");
        assert!(draw(3).contains(&4) && draw(3).contains(&1) && draw(3).contains(&3));
    }
}
