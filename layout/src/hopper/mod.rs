//! Hopper (`sm_90a`) layout math: the TMA's shared-memory swizzle modes, the constraints
//! `cuTensorMapEncodeTiled` puts on a 2-D tiled tensor map, and `wgmma`'s 64-bit shared-memory matrix
//! descriptor.
//!
//! **Status:** CPU-tested only. The mode ↔ [`SwizzleFn`] mapping is tested against the modes as the CUDA
//! documentation describes them (written out independently in [`tma_swizzle_documented`]), not yet
//! against bytes a TMA wrote on a GPU; the descriptor fields follow the PTX ISA's "matrix descriptor"
//! section and have not yet been round-tripped through `wgmma` on a GPU (issue 6).
//!
//! # TMA swizzle modes are `Swizzle<3, B, 4>` on byte addresses
//!
//! ```text
//! byte address bits:   9 8 7 | 6 5 4 | 3 2 1 0
//!                      line  | chunk | byte in the 16-byte chunk
//!                      (which 128-byte line, mod 8)
//!
//! SWIZZLE_128B: chunk[6:4] ^= line[9:7]   period 1024 B   Swizzle<3,3,4>  (CuTe Swizzle<3,4,3>)
//! SWIZZLE_64B : chunk[5:4] ^= line[8:7]   period  512 B   Swizzle<3,2,4>  (CuTe Swizzle<2,4,3>)
//! SWIZZLE_32B : chunk[4]   ^= line[7]     period  256 B   Swizzle<3,1,4>  (CuTe Swizzle<1,4,3>)
//! ```
//!
//! The XOR source is always the 128-byte line (bank row) number, whatever the mode's span: with
//! `SWIZZLE_64B` and 64-byte box rows, box rows `2j` and `2j+1` share line `j` and get the same XOR.
//! The unit is the **byte**; on `2^k`-byte elements the same permutation is `Swizzle<3, B, 4 - k>` on
//! element offsets ([`TmaSwizzle::element_swizzle`]), e.g. `Swizzle<3,3,3>` on f16 offsets for
//! `SWIZZLE_128B`. Because the hardware XORs *absolute* shared-memory address bits, a swizzled TMA
//! destination (and the start of a swizzled `wgmma` operand) must be aligned to the period.

#[cfg(doc)]
use crate::swizzle::SwizzleFn;

mod tma;
mod wgmma_desc;

pub use tma::{TMA_MAX_BOX, TMA_SMEM_ALIGN, TmaError, TmaSwizzle, TmaTile2d, tma_swizzle_documented};
pub use wgmma_desc::{DescError, WgmmaDesc};

/// The Hopper HGEMM steps' tiles and shared-memory budgets (HGEMM h1–h6): one source for the kernels
/// (`kernels-gpu/src/hgemm/tma*.rs`), which lay their stages out from these, and the host registry,
/// which asks the driver for exactly [`tma_hgemm::dyn_smem`] bytes.
pub mod tma_hgemm;
