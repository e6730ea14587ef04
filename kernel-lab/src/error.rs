//! Errors as values, each saying what failed and in which kernel, buffer or call.
use std::fmt;

use cudarc::{cublas::result::CublasError, driver::DriverError};

/// Everything the host library can fail with.
#[derive(Debug)]
pub enum Error {
    /// No CUDA driver library (libcuda) could be loaded, or it reports no device.
    NoGpu(String),
    /// A CUDA driver call failed; `what` says which call, on what.
    Driver {
        /// The call and what it was doing.
        what: String,
        /// The driver's error.
        source: DriverError,
    },
    /// The driver rejected a PTX module (JIT error log attached).
    PtxLoad {
        /// The module's target (`sm_80`, `sm_90a`) or name.
        module: &'static str,
        /// The JIT's error log.
        log: String,
    },
    /// A kernel name is not registered, or not in the PTX module it is registered for.
    KernelNotFound {
        /// The kernel's name.
        kernel: String,
        /// Where it was looked for.
        detail: String,
    },
    /// A launch of a kernel failed (at launch, or when the stream was synchronized after it).
    Launch {
        /// The kernel's name.
        kernel: String,
        /// The driver's error.
        source: DriverError,
    },
    /// A kernel needs a newer GPU than the one present.
    Unsupported {
        /// The kernel (or step) refused.
        kernel: String,
        /// What it needs.
        needs: String,
        /// What this GPU or build has.
        have: String,
    },
    /// A cuBLAS call failed.
    Cublas {
        /// The call.
        what: String,
        /// cuBLAS's status.
        source: CublasError,
    },
    /// The caller passed something invalid (size, length mismatch, alignment, option).
    InvalidInput(String),
    /// A kernel's output did not match the reference or was not fully written.
    Verification(String),
    /// A collective across a group of GPUs failed: a rank waited past its timeout for a peer, or NCCL
    /// returned an error (`kernel_lab::comm`).
    Collective(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NoGpu(why) => write!(f, "no CUDA GPU available: {why}"),
            Error::Driver { what, source } => write!(f, "CUDA driver error in {what}: {}", driver_msg(source)),
            Error::PtxLoad { module, log } => {
                write!(f, "the driver could not load PTX module `{module}`")?;
                if !log.trim().is_empty() {
                    write!(f, "; JIT log:\n{}", log.trim())?;
                }
                Ok(())
            }
            Error::KernelNotFound { kernel, detail } => write!(f, "kernel `{kernel}` not found: {detail}"),
            Error::Launch { kernel, source } => write!(f, "kernel `{kernel}` failed: {}", driver_msg(source)),
            Error::Unsupported { kernel, needs, have } => {
                write!(f, "kernel `{kernel}` needs {needs}, this GPU is {have}; skipped")
            }
            Error::Cublas { what, source } => write!(f, "cuBLAS error in {what}: {source:?}"),
            Error::InvalidInput(msg) => write!(f, "invalid input: {msg}"),
            Error::Verification(msg) => write!(f, "verification failed: {msg}"),
            Error::Collective(msg) => write!(f, "collective failed: {msg}"),
        }
    }
}

impl std::error::Error for Error {}

/// `CUDA_ERROR_X (description)` for a driver error.
pub fn driver_msg(e: &DriverError) -> String {
    let name = e.error_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|_| format!("{:?}", e.0));
    let desc = e.error_string().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    if desc.is_empty() { name } else { format!("{name} ({desc})") }
}

/// Shorthand for results of this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// Attaches "what was being done" to a driver result.
pub trait DriverContext<T> {
    /// Maps a `DriverError` to [`Error::Driver`] naming `what`.
    fn during(self, what: impl FnOnce() -> String) -> Result<T>;
}

impl<T> DriverContext<T> for std::result::Result<T, DriverError> {
    fn during(self, what: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|source| Error::Driver { what: what(), source })
    }
}
