//! Host memory a kernel writes into directly: page-locked, mapped into the device's address space, so that
//! a kernel's store reaches the host with no copy on the stream (session 109: the argmax posts each decode
//! step's tokens here, and [`crate::model::Model::decode_steps`] reads them while the next step runs).
//!
//! Only `u64` words, read one at a time with an atomic load: a kernel's aligned 8-byte store is seen whole
//! or not at all, so a word can carry a value and the count that says which launch wrote it.
use std::sync::{Arc, atomic::{AtomicU64, Ordering}};

use kernel_lab::{
    Error, Gpu, Result,
    cudarc::driver::{CudaStream, DevicePtrMut, DeviceSlice, DriverError, PinnedHostSlice, SyncOnDrop, sys},
    error::DriverContext,
};

/// `len` page-locked `u64` words of host memory mapped for the device of `gpu`'s context.
pub struct Mapped {
    /// Owns the allocation (freed on drop).
    host: PinnedHostSlice<u64>,
    /// The host's pointer to it.
    hptr: *mut u64,
    /// The device's pointer to it.
    dptr: sys::CUdeviceptr,
    stream: Arc<CudaStream>,
}

// SAFETY: `hptr` points into the allocation `host` owns (itself Send and Sync); `Mapped` hands out only
// atomic word reads through `&self` and writes through `&mut self`, as a `PinnedHostSlice` would.
unsafe impl Send for Mapped {}
// SAFETY: as for Send.
unsafe impl Sync for Mapped {}

impl Mapped {
    /// `len` words, zeroed (at least one).
    pub fn new(gpu: &Gpu, len: usize) -> Result<Mapped> {
        let what = || format!("allocating {len} words of mapped host memory");
        if len == 0 {
            return Err(Error::InvalidInput(what() + ": none asked for"));
        }
        // SAFETY: page-locked host memory of `len` u64, mapped for the device (`DEVICEMAP`); zeroed through
        // its pointer below before any slice of it is made.
        let mut host = unsafe { gpu.ctx.alloc_pinned_with_flags::<u64>(len, sys::CU_MEMHOSTALLOC_DEVICEMAP) }.during(what)?;
        let ptr = host.as_mut_ptr().during(what)?;
        // SAFETY: `ptr` points at the `len` words just allocated; nothing else holds them yet.
        unsafe { std::ptr::write_bytes(ptr, 0, len) };
        let mut dptr: sys::CUdeviceptr = 0;
        // SAFETY: `ptr` is the start of an allocation made by `cuMemHostAlloc` with `DEVICEMAP` in this
        // context (bound by the allocation above); flags must be 0.
        unsafe { sys::cuMemHostGetDevicePointer_v2(&mut dptr, ptr as *mut std::ffi::c_void, 0) }.result().during(what)?;
        Ok(Mapped { host, hptr: ptr, dptr, stream: gpu.stream.clone() })
    }

    /// Its words.
    pub fn len(&self) -> usize {
        self.host.len()
    }

    /// Whether it holds no word (never: [`Mapped::new`] refuses none).
    pub fn is_empty(&self) -> bool {
        self.host.is_empty()
    }

    /// Word `i`, as it is now (an atomic load: a kernel may be writing the words meanwhile); `None` past the end.
    pub fn read(&self, i: usize) -> Option<u64> {
        if i >= self.host.len() {
            return None;
        }
        // SAFETY: the mapping (made zeroed) holds `len` 8-byte-aligned words and lives as long as `self`; the
        // device touches them only with whole-word stores, so an atomic load sees one of them whole.
        Some(unsafe { AtomicU64::from_ptr(self.hptr.add(i)) }.load(Ordering::Acquire))
    }

    /// Every word set to 0 by the host. The caller makes sure that no grid writes the words meanwhile (the
    /// stream synchronized, say), or what it writes may be lost.
    pub fn zero(&mut self) {
        for i in 0..self.host.len() {
            // SAFETY: word i < len of the mapping `self` owns, 8-byte aligned (atomic stores: the device
            // writes the same words at other times).
            unsafe { AtomicU64::from_ptr(self.hptr.add(i)) }.store(0, Ordering::Relaxed);
        }
    }
}

impl DeviceSlice<u64> for Mapped {
    fn len(&self) -> usize {
        self.host.len()
    }
    fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }
}

impl DevicePtrMut<u64> for Mapped {
    /// The device's address of the words. No event is waited on or recorded: who writes when is the
    /// caller's protocol (the argmax's counts), not the stream's.
    fn device_ptr_mut<'a>(&'a mut self, _stream: &'a CudaStream) -> (sys::CUdeviceptr, SyncOnDrop<'a>) {
        (self.dptr, SyncOnDrop::Sync(None))
    }
}

/// Whether every piece of work queued on `stream` has finished: `Ok(true)`, `Ok(false)` while some runs, the
/// error a failed grid left otherwise.
pub fn stream_idle(stream: &CudaStream) -> Result<bool> {
    // SAFETY: a stream handle of a live `CudaStream`; the query only reads its state.
    match unsafe { sys::cuStreamQuery(stream.cu_stream()) } {
        sys::CUresult::CUDA_SUCCESS => Ok(true),
        sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
        e => Err(Error::Driver { what: "querying the stream".into(), source: DriverError(e) }),
    }
}
