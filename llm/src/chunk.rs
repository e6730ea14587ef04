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

/// Each sequence's next token, in order, where a first step ran the pieces `first` (the head of `plan`'s
/// first chunk: sequences `0..first.len()`, each piece starting its sequence) and gave a token per piece
/// (`from_first`), and later steps ran the rest of every sequence `first` did not end, giving a token per such
/// sequence in order (`from_rest`): a sequence ended in the first step takes its piece's token, any other its
/// turn of `from_rest` (`Model::mixed` with a prefill chunk). `None` where the counts do not agree.
pub fn next_in_order(lens: &[usize], first: &[Piece], from_first: &[u32], from_rest: &[u32]) -> Option<Vec<u32>> {
    if from_first.len() != first.len() || first.iter().enumerate().any(|(i, p)| p.seq != i || p.start != 0) {
        return None;
    }
    let mut rest = from_rest.iter();
    let out: Option<Vec<u32>> = lens.iter().enumerate().map(|(i, &len)| match first.get(i) {
        Some(p) if p.ends(len) => Some(from_first[i]),
        _ => rest.next().copied(),
    }).collect();
    out.filter(|_| rest.next().is_none())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A first chunk of any room over prompts of any lengths, the rest run after: every sequence gets the
    /// token of the step that ended it, whichever that was.
    #[test]
    fn a_split_first_chunk_gives_each_sequence_its_own_next_token() {
        let cases: &[&[usize]] = &[&[1], &[5], &[3, 4], &[7, 1, 9, 2], &[16, 16], &[1, 1, 1]];
        for &lens in cases {
            for room in [1, 2, 3, 4, 7, 8, 16, 1000] {
                let first = plan(lens, room).swap_remove(0);
                // Tokens named after their sequence: 100 + i from the first step, 200 + i from the rest.
                let from_first: Vec<u32> = first.iter().map(|p| 100 + p.seq as u32).collect();
                let from_rest: Vec<u32> = (0..lens.len()).filter(|&i| first.get(i).is_none_or(|p| !p.ends(lens[i]))).map(|i| 200 + i as u32).collect();
                let got = next_in_order(lens, &first, &from_first, &from_rest).unwrap();
                for (i, &t) in got.iter().enumerate() {
                    let ended = first.get(i).is_some_and(|p| p.ends(lens[i]));
                    assert_eq!(t, if ended { 100 } else { 200 } + i as u32, "{lens:?} room {room}: sequence {i}");
                }
                assert_eq!(next_in_order(lens, &first, &from_first, &[from_rest.clone(), vec![9]].concat()), None, "{lens:?} room {room}: one too many");
                if !from_rest.is_empty() {
                    assert_eq!(next_in_order(lens, &first, &from_first, &from_rest[1..]), None, "{lens:?} room {room}: one too few");
                }
            }
        }
    }

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
