//! The GEMM shapes people run: every linear layer of published models (fused QKV, O, fused gate/up,
//! down, LM head) at token counts 1–16384 and tensor-parallel degrees 1 and 2, as
//! `../shared/shapes/shapes.py gemm` writes them (`MxNxK<TAB>model<TAB>layer<TAB>tp`). A copy of its
//! output is embedded ([`EMBEDDED`], `bench/data/gemm-shapes.tsv`: the repository builds without
//! `../shared`); `--shapes-file F` reads any file in that form (a bare `MxNxK` per line is enough), and
//! `--sample N --seed S` draws N of them without replacement — the same N for the same seed on every
//! machine ([`sample`] uses its own generator, not a crate's, so an update cannot change a sample).
use crate::{Error, Result};

/// `shapes.py gemm` over `models.tsv` as of this commit (1,785 shapes).
pub const EMBEDDED: &str = include_str!("../data/gemm-shapes.tsv");

/// One corpus line: the shape and where it comes from (empty strings and TP 0 for a bare `MxNxK`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CorpusShape {
    /// Rows of A and C: the token count.
    pub m: usize,
    /// Columns of C: the layer's output features.
    pub n: usize,
    /// The reduction: the layer's input features.
    pub k: usize,
    /// The model (`llama-3-8b`).
    pub model: String,
    /// The layer (`qkv`, `o`, `gate_up`, `down`, `lm_head`).
    pub layer: String,
    /// The tensor-parallel degree (0: not given).
    pub tp: u32,
}

impl CorpusShape {
    /// `model/layer/tpN`, or `-` for a bare shape.
    pub fn origin(&self) -> String {
        if self.model.is_empty() { "-".into() } else { format!("{}/{}/tp{}", self.model, self.layer, self.tp) }
    }
}

/// Parses corpus text: one `MxNxK[<TAB>model<TAB>layer<TAB>tp]` per line; `#` comments and blank lines
/// skipped. `what` names the source in errors (a file name), each error with its line number.
pub fn parse(text: &str, what: &str) -> Result<Vec<CorpusShape>> {
    let mut out = vec![];
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |why: &str| Error::InvalidInput(format!("{what}:{}: `{line}`: {why}", i + 1));
        let mut cols = line.split('\t');
        let dims: Vec<&str> = cols.next().unwrap_or("").split(['x', 'X']).collect();
        let [m, n, k] = dims.as_slice() else { return Err(bad("expected MxNxK first")) };
        let num = |d: &str| d.trim().parse::<usize>().ok().filter(|&v| v > 0).ok_or_else(|| bad("each of M, N, K must be a positive integer"));
        let (m, n, k) = (num(m)?, num(n)?, num(k)?);
        let model = cols.next().unwrap_or("").trim().to_string();
        let layer = cols.next().unwrap_or("").trim().to_string();
        let tp = match cols.next().map(str::trim) {
            None | Some("") => 0,
            Some(t) => t.parse().map_err(|_| bad("the fourth column (TP) must be an integer"))?,
        };
        out.push(CorpusShape { m, n, k, model, layer, tp });
    }
    if out.is_empty() {
        return Err(Error::InvalidInput(format!("{what}: no shapes in it")));
    }
    Ok(out)
}

/// The embedded corpus, parsed.
pub fn embedded() -> Vec<CorpusShape> {
    // The embedded text is tested to parse (`embedded_corpus_parses`).
    parse(EMBEDDED, "bench/data/gemm-shapes.tsv").unwrap_or_default()
}

/// SplitMix64: a fixed generator, so a sample depends on the seed alone.
fn splitmix(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `n` distinct entries of `all` drawn by `seed` (a partial Fisher–Yates shuffle), in draw order; all
/// of them (shuffled) when `n ≥ all.len()`.
pub fn sample<T: Clone>(all: &[T], n: usize, seed: u64) -> Vec<T> {
    let mut idx: Vec<usize> = (0..all.len()).collect();
    let mut x = seed;
    let n = n.min(idx.len());
    for i in 0..n {
        let j = i + (splitmix(&mut x) % (idx.len() - i) as u64) as usize;
        idx.swap(i, j);
    }
    idx[..n].iter().map(|&i| all[i].clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_corpus_parses() {
        let all = parse(EMBEDDED, "embedded").unwrap();
        assert_eq!(all.len(), 1785);
        assert!(all.iter().all(|s| s.tp == 1 || s.tp == 2));
        assert!(all.iter().any(|s| s.model == "llama-3-8b" && s.layer == "gate_up" && s.n == 28672 && s.k == 4096));
    }

    /// The embedded copy is `shapes.py gemm`'s output where `../shared/shapes` is present (skipped
    /// elsewhere, as in CI's clone).
    #[test]
    fn embedded_corpus_matches_shapes_py() {
        let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/shapes/shapes.py");
        if !script.exists() {
            eprintln!("skipped: {} not found", script.display());
            return;
        }
        let Ok(out) = std::process::Command::new("python3").arg(&script).arg("gemm").output() else {
            eprintln!("skipped: python3 not runnable");
            return;
        };
        let want = parse(&String::from_utf8_lossy(&out.stdout), "shapes.py").unwrap();
        assert_eq!(embedded(), want, "regenerate bench/data/gemm-shapes.tsv from shapes.py");
    }

    #[test]
    fn samples_are_distinct_seeded_and_bounded() {
        let all: Vec<u32> = (0..1000).collect();
        let a = sample(&all, 200, 7);
        assert_eq!(a, sample(&all, 200, 7));
        assert_ne!(a, sample(&all, 200, 8));
        let mut d = a.clone();
        d.sort();
        d.dedup();
        assert_eq!(d.len(), 200);
        assert_eq!(sample(&all, 5000, 1).len(), 1000);
        // Spread: a 200-of-1000 sample has entries in every tenth.
        for t in 0..10 {
            assert!(a.iter().any(|&v| v / 100 == t), "tenth {t}");
        }
    }

    #[test]
    fn bad_lines_name_the_line() {
        let e = parse("# c\n1x2x3\n4x5\n", "f.tsv").unwrap_err().to_string();
        assert!(e.contains("f.tsv:3") && e.contains("MxNxK"), "{e}");
        let e = parse("0x2x3", "f").unwrap_err().to_string();
        assert!(e.contains("positive"), "{e}");
        assert!(parse("# only\n", "f").unwrap_err().to_string().contains("no shapes"));
        let s = parse("7x8x9\n1x2x3\tm\tqkv\t2\n", "f").unwrap();
        assert_eq!((s[0].origin(), s[1].origin()), ("-".to_string(), "m/qkv/tp2".to_string()));
    }
}
