//! Prefill in chunks: which tokens of which sequences each forward step takes.
//!
//! A prompt (or a continuation of a cached sequence) longer than the chunk budget runs as several forward
//! steps; each step's work buffers hold only its chunk's tokens, and each chunk's queries attend to the
//! sequence's cached rows before it and to themselves (the causal mask aligned to the bottom right).
//! Sequences are taken in order and a sequence's tokens in order, so a chunk holds the tail of one
//! sequence, whole sequences and the head of another, and the sequences finish in the order given.

/// One sequence's share of a chunk: its new tokens `[start, start + count)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    /// The sequence, as an index into the lengths given to [`plan`].
    pub seq: usize,
    /// Its first new token in this chunk (0 at the sequence's first piece).
    pub start: usize,
    /// Its tokens in this chunk (at least 1).
    pub count: usize,
}

impl Piece {
    /// Whether the piece ends its sequence of `len` new tokens (its last row gives the next token).
    pub fn ends(&self, len: usize) -> bool {
        self.start + self.count == len
    }
}

/// Splits sequences of `lens[i]` new tokens into chunks of at most `budget` tokens (`0`: no limit, one
/// chunk), filling each chunk before the next. A sequence with no new tokens gets no piece.
pub fn plan(lens: &[usize], budget: usize) -> Vec<Vec<Piece>> {
    let budget = if budget == 0 { usize::MAX } else { budget };
    let mut chunks: Vec<Vec<Piece>> = Vec::new();
    let mut room = 0;
    for (seq, &len) in lens.iter().enumerate() {
        let mut start = 0;
        while start < len {
            if room == 0 {
                chunks.push(Vec::new());
                room = budget;
            }
            let count = (len - start).min(room);
            if let Some(c) = chunks.last_mut() {
                c.push(Piece { seq, start, count });
            }
            start += count;
            room -= count;
        }
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every token of every sequence in exactly one piece, in order; no chunk over the budget and every
    /// chunk but the last full; as few chunks as the budget allows.
    #[test]
    fn chunks_cover_every_token_once_in_order_within_the_budget() {
        let cases: &[&[usize]] = &[&[1], &[5], &[0, 3, 0], &[7, 1, 9, 2], &[16, 16], &[3, 0, 0, 4, 100], &[]];
        for &lens in cases {
            for budget in [0, 1, 2, 3, 4, 7, 16, 1000] {
                let chunks = plan(lens, budget);
                let total: usize = lens.iter().sum();
                let want = if total == 0 { 0 } else if budget == 0 { 1 } else { total.div_ceil(budget) };
                assert_eq!(chunks.len(), want, "{lens:?} budget {budget}");
                let mut next = vec![0usize; lens.len()];
                let mut last_seq = 0;
                for (i, c) in chunks.iter().enumerate() {
                    let size: usize = c.iter().map(|p| p.count).sum();
                    if budget > 0 {
                        assert!(size <= budget, "{lens:?} budget {budget}: chunk {i} holds {size}");
                        if i + 1 < chunks.len() {
                            assert_eq!(size, budget, "{lens:?}: only the last chunk may be short");
                        }
                    }
                    for p in c {
                        assert!(p.count > 0 && p.seq >= last_seq, "{lens:?} budget {budget}: {p:?}");
                        assert_eq!(p.start, next[p.seq], "{lens:?} budget {budget}: {p:?} out of order");
                        next[p.seq] += p.count;
                        last_seq = p.seq;
                    }
                }
                assert_eq!(next, lens.to_vec(), "{lens:?} budget {budget}");
                // Each sequence with tokens ends in exactly one piece.
                let ends = chunks.iter().flatten().filter(|p| p.ends(lens[p.seq])).count();
                assert_eq!(ends, lens.iter().filter(|&&l| l > 0).count());
            }
        }
    }

    #[test]
    fn a_long_prompt_spans_chunks_beside_short_ones() {
        let c = plan(&[3, 10, 2], 4);
        assert_eq!(c, vec![
            vec![Piece { seq: 0, start: 0, count: 3 }, Piece { seq: 1, start: 0, count: 1 }],
            vec![Piece { seq: 1, start: 1, count: 4 }],
            vec![Piece { seq: 1, start: 5, count: 4 }],
            vec![Piece { seq: 1, start: 9, count: 1 }, Piece { seq: 2, start: 0, count: 2 }],
        ]);
    }
}
