//! A paged KV cache's pages on the host: which pages each slot's sequence holds, in order, and which are
//! free. The cache itself is one pool of pages per layer on the GPU (`[pages][kv_heads][page_size][D]`, K
//! and V), shared by the slots: a sequence holds `⌈len / page_size⌉` of them, so the pool is sized by the
//! tokens the batch holds at once, not by `slots × max_len`. The block table the kernels read
//! (`[slots][max_pages]`) is [`Pages::table`], copied to the GPU when it changes.

/// Pages of `page_size` tokens: the free ones and each slot's.
#[derive(Clone, Debug)]
pub struct Pages {
    page_size: usize,
    count: usize,
    max_pages: usize,
    /// Free pages, the next one taken from the end.
    free: Vec<i32>,
    /// Each slot's pages in position order.
    held: Vec<Vec<i32>>,
    /// Whether the table changed since [`Pages::take_table`].
    changed: bool,
}

impl Pages {
    /// `count` pages of `page_size` tokens for `slots` sequences of up to `max_len` tokens, all free.
    pub fn new(page_size: usize, count: usize, slots: usize, max_len: usize) -> Pages {
        Pages { page_size, count, max_pages: max_len.div_ceil(page_size.max(1)), free: (0..count as i32).rev().collect(), held: vec![vec![]; slots], changed: true }
    }

    /// Tokens per page.
    pub fn page_size(&self) -> usize {
        self.page_size
    }

    /// Pages in the pool.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Table entries per slot: the pages of a sequence of `max_len` tokens.
    pub fn max_pages(&self) -> usize {
        self.max_pages
    }

    /// Free pages.
    pub fn free(&self) -> usize {
        self.free.len()
    }

    /// Gives each `(slot, len)` the pages its first `len` tokens need, or none at all: too few free pages
    /// is an error naming the pool, and nothing is taken.
    pub fn reserve(&mut self, want: &[(usize, usize)]) -> Result<(), String> {
        let need: usize = want.iter().map(|&(s, len)| len.div_ceil(self.page_size).saturating_sub(self.held[s].len())).sum();
        if let Some(&(s, len)) = want.iter().find(|&&(_, len)| len > self.max_pages * self.page_size) {
            return Err(format!("slot {s}: {len} tokens exceed the {} a sequence's pages hold", self.max_pages * self.page_size));
        }
        if need > self.free.len() {
            return Err(format!("the KV cache's pages are used up: {need} more pages of {} tokens needed, {} of {} free (a larger pool: --kv-pages)",
                               self.page_size, self.free.len(), self.count));
        }
        for &(s, len) in want {
            while self.held[s].len() < len.div_ceil(self.page_size) {
                let p = self.free.pop().ok_or("the free list emptied (internal)")?;
                self.held[s].push(p);
                self.changed = true;
            }
        }
        Ok(())
    }

    /// Frees `slot`'s pages past those its first `len` tokens need.
    pub fn shrink(&mut self, slot: usize, len: usize) {
        let keep = len.div_ceil(self.page_size);
        while self.held[slot].len() > keep {
            if let Some(p) = self.held[slot].pop() {
                self.free.push(p);
            }
        }
    }

    /// The block table `[slots][max_pages]`: each slot's pages, then -1 (an entry no kernel reads: each
    /// reads only the pages of the positions a slot holds).
    pub fn table(&self) -> Vec<i32> {
        let mut t = vec![-1; self.held.len() * self.max_pages];
        for (s, pages) in self.held.iter().enumerate() {
            t[s * self.max_pages..][..pages.len()].copy_from_slice(pages);
        }
        t
    }

    /// Gives `to` (holding no page) the pages `from` holds.
    pub fn move_slot(&mut self, from: usize, to: usize) {
        debug_assert!(self.held[to].is_empty(), "moving pages onto slot {to}, which holds some");
        let pages = std::mem::take(&mut self.held[from]);
        self.free.extend(std::mem::replace(&mut self.held[to], pages));
        self.changed = true;
    }

    /// Marks the table changed (a copy of it failed: the next [`Pages::take_table`] gives it again).
    pub fn mark_changed(&mut self) {
        self.changed = true;
    }

    /// The table if it changed since the last call (a page taken), to copy to the GPU.
    pub fn take_table(&mut self) -> Option<Vec<i32>> {
        std::mem::take(&mut self.changed).then(|| self.table())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_take_and_return_whole_pages_and_share_the_pool() {
        let mut p = Pages::new(16, 6, 3, 64);
        assert_eq!((p.max_pages(), p.free()), (4, 6));
        assert_eq!(p.take_table(), Some(vec![-1; 12]));
        assert_eq!(p.take_table(), None);
        p.reserve(&[(0, 17), (2, 16)]).unwrap();
        assert_eq!(p.free(), 3);
        let t = p.take_table().unwrap();
        assert_eq!((&t[0..2], t[2], &t[4..8], t[8], t[9]), (&[0, 1][..], -1, &[-1; 4][..], 2, -1));
        // Growing within a page takes nothing.
        p.reserve(&[(0, 32)]).unwrap();
        assert_eq!((p.free(), p.take_table()), (3, None));
        // More than is free: an error, nothing taken.
        let e = p.reserve(&[(1, 33), (2, 48)]).unwrap_err();
        assert!(e.contains("5 more pages of 16 tokens needed, 3 of 6 free"), "{e}");
        assert_eq!(p.free(), 3);
        // More than a sequence may hold.
        assert!(p.reserve(&[(1, 65)]).unwrap_err().contains("65 tokens exceed the 64"));
        // Freed pages go to the next taker; every page is held once.
        p.shrink(0, 5);
        assert_eq!(p.free(), 4);
        p.reserve(&[(1, 64)]).unwrap();
        let t = p.table();
        let mut used: Vec<i32> = t.iter().copied().filter(|&x| x >= 0).collect();
        used.sort();
        assert_eq!(used, vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(p.free(), 0);
        p.shrink(1, 0);
        p.shrink(1, 0);
        assert_eq!(p.free(), 4);
        // A slot's pages move to an empty slot, the table rows with them.
        p.take_table();
        p.move_slot(2, 1);
        let t = p.take_table().unwrap();
        assert_eq!((t[4], t[8], p.free()), (2, -1, 4));
    }
}
