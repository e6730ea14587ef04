//! The grouped block order: launch index → output tile, so that blocks running at the same time share
//! panels of A and B in L2.
//!
//! In launch order the blocks sweep a whole row of C tiles before the next row, so every row of tiles
//! re-streams all of B. Grouped, [`GROUP`] rows of tiles sweep the columns together and each panel of B
//! is fetched once per group (the math, and its CPU tests, are `layout::sgemm::grouped_block`, which
//! the host uses too). Introduced by SGEMM v8; HGEMM block v6+ and the persistent Hopper steps use it.
pub(crate) use layout::sgemm::grouped_block;

/// Rows of tiles that sweep the columns together.
pub(crate) const GROUP: u32 = 8;

