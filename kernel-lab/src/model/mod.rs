//! The bank model's glue on the host (the model itself is `layout::bank`): warp access patterns of
//! tiles ([`access`]), the traces that predict each kernel's shared-memory traffic from its descriptor
//! ([`traces`]), bank maps and the swizzle solver ([`bankmap`]).
pub mod access;
pub mod bankmap;
pub mod traces;
