//! The GPU side of the host: driver context and kernels ([`gpu`]), the embedded PTX ([`ptx`]),
//! timing ([`timing`]), verification helpers ([`verify`]) and TMA tensor maps ([`tma`]).
pub mod gpu;
pub mod ptx;
pub mod timing;
pub mod tma;
pub mod verify;
