//! The GPU side of the host: driver context and kernels ([`gpu`]), the embedded PTX ([`ptx`]),
//! timing ([`timing`]), verification helpers ([`verify`]), TMA tensor maps ([`tma`]) and the memory
//! budget checked before a measurement allocates ([`budget`]), inputs and verification on the device
//! ([`device_check`]) and the environment's tuning knobs ([`tuning`]).
pub mod budget;
pub mod device_check;
pub mod gpu;
pub mod ptx;
pub mod timing;
pub mod tma;
pub mod tuning;
pub mod verify;

/// The git commit this library was built from (`build.rs` stamps it; `None` outside a git checkout):
/// what every result a program reports should name.
pub const BUILD_COMMIT: Option<&str> = option_env!("KERNEL_LAB_COMMIT");
