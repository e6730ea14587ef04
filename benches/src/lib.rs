//! Shared helpers of the criterion benches live in `kernel_lab::bench`; this crate only hosts `benches/`.
