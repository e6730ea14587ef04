//! Host side of the TMA: encodes a 2-D tiled `CUtensorMap` with the driver's `cuTensorMapEncodeTiled`
//! (through cudarc's dynamically loaded driver) and places it in device global memory, where the
//! kernels read it (`kernels_gpu::prim::tma`: passing it by value needs a 64-byte-aligned kernel
//! parameter, which rustc's nvptx ABI cannot declare).
//!
//! The geometry is checked first by [`layout::hopper::TmaTile2d::check`], so a bad shape is reported as
//! the constraint it breaks ("row stride 8198 bytes is not a multiple of 16") rather than as the driver's
//! bare `CUDA_ERROR_INVALID_VALUE`.
use cudarc::driver::{CudaSlice, DevicePtr, sys};
use layout::hopper::{TmaError, TmaSwizzle, TmaTile2d};


use crate::{
    error::{DriverContext, Error, Result},
    runtime::gpu::Gpu,
};

/// A tensor map in device memory (128 bytes), plus the geometry it was encoded with. The tensor it
/// describes must outlive every launch that uses it; the borrow in [`TensorMap2d::encode_f16`] is only
/// for the encode, so callers keep the tensor alive themselves (as the kernels' `# Safety` requires).
pub struct TensorMap2d {
    /// The 16 `u64` of the `CUtensorMap`, in global memory (allocations are 256-byte aligned, the
    /// tensor map needs 64).
    pub dev: CudaSlice<u64>,
    /// The same 128 bytes on the host, for kernels that take the map by value ([`TensorMapParam`]).
    pub host: TensorMapParam,
    /// What was encoded.
    pub tile: TmaTile2d,
}

/// A `CUtensorMap` passed **by value** as a kernel parameter (`kernels_gpu::prim::tma::TensorMapParam`,
/// CUDA's `const __grid_constant__ CUtensorMap`): the launch copies its 128 bytes into the kernel's
/// parameter space, declared 64-byte aligned in the PTX.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct TensorMapParam(pub [u64; 16]);

// SAFETY: plain bytes with no pointers into host memory; the kernel parameter it is passed as is a
// 128-byte `.b8` array, which `launch!` checks against the PTX (`ParamBytes` below).
unsafe impl cudarc::driver::DeviceRepr for TensorMapParam {}

impl crate::runtime::gpu::ParamBytes for &TensorMapParam {
    fn param_bytes(&self) -> u32 {
        128
    }
    /// Not a slot: 128 bytes do not fit one, so `launch_pdl` passes `param_ref` instead and
    /// never this value.
    fn param_slot(&self, _: &std::sync::Arc<cudarc::driver::CudaStream>) -> u64 {
        0
    }
    /// The map's 128 bytes, where they lie on the host (borrowed for the launch).
    fn param_ref(&self) -> *const std::ffi::c_void {
        std::ptr::from_ref::<TensorMapParam>(*self).cast()
    }
}

/// The constraint a [`TmaError`] names, in words.
pub fn describe(e: &TmaError) -> String {
    match *e {
        TmaError::GlobalAddressAlign { addr } => format!("tensor base address {addr:#x} is not 16-byte aligned"),
        TmaError::GlobalStride { stride_bytes } => {
            format!("row stride {stride_bytes} bytes must be a multiple of 16, below 2^40, and hold a row")
        }
        TmaError::GlobalDim { dim, extent } => format!("global extent {extent} of dimension {dim} must be in 1..=2^32"),
        TmaError::BoxDim { dim, extent } => format!("box extent {extent} of dimension {dim} must be in 1..=256"),
        TmaError::BoxInnerBytes { bytes } => format!("box inner extent of {bytes} bytes is not a multiple of 16"),
        TmaError::BoxWiderThanSpan { bytes, span } => {
            format!("box inner extent of {bytes} bytes exceeds the {span}-byte swizzle span")
        }
        TmaError::ElemBytes { bytes } => format!("element size {bytes} bytes is not 1, 2, 4 or 8"),
    }
}

fn cu_swizzle(mode: TmaSwizzle) -> sys::CUtensorMapSwizzle {
    match mode {
        TmaSwizzle::None => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE,
        TmaSwizzle::B32 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_32B,
        TmaSwizzle::B64 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_64B,
        TmaSwizzle::B128 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
    }
}

impl TensorMap2d {
    /// Encodes a tensor map for the f16 (stored as `u16` bits) tensor `g_tensor` with geometry `tile`
    /// (`elem_bytes` must be 2), zero fill out of bounds, L2 promotion 128 B, and copies it to the device.
    pub fn encode_f16(gpu: &Gpu, g_tensor: &CudaSlice<u16>, tile: TmaTile2d) -> Result<TensorMap2d> {
        Self::encode_16bit(gpu, g_tensor, tile, false)
    }

    /// As [`TensorMap2d::encode_f16`] for a bf16 tensor.
    pub fn encode_bf16(gpu: &Gpu, g_tensor: &CudaSlice<u16>, tile: TmaTile2d) -> Result<TensorMap2d> {
        Self::encode_16bit(gpu, g_tensor, tile, true)
    }

    fn encode_16bit(gpu: &Gpu, g_tensor: &CudaSlice<u16>, tile: TmaTile2d, bf16: bool) -> Result<TensorMap2d> {
        let (addr, _sync) = g_tensor.device_ptr(&gpu.stream);
        Self::encode_16bit_at(gpu, addr, g_tensor.len(), tile, bf16)
    }

    /// As [`TensorMap2d::encode_f16`] (`bf16`: [`TensorMap2d::encode_bf16`]) for the `len` 16-bit
    /// elements at device address `addr` (a caller's view or sub-buffer; its alignment and extent are
    /// checked as for a buffer). The caller keeps that memory alive for every launch with the map.
    pub fn encode_16bit_at(gpu: &Gpu, addr: u64, len: usize, tile: TmaTile2d, bf16: bool) -> Result<TensorMap2d> {
        let (dtype, name) = if bf16 {
            (sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, "bf16")
        } else {
            (sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT16, "f16")
        };
        Self::encode(gpu, addr, len as u64, 2, tile, dtype, name)
    }

    /// As [`TensorMap2d::encode_f16`] for a tensor of bytes (FP8 e4m3 stored as `u8`: the TMA moves
    /// bytes, so `UINT8` describes it; `elem_bytes` must be 1).
    pub fn encode_u8(gpu: &Gpu, g_tensor: &CudaSlice<u8>, tile: TmaTile2d) -> Result<TensorMap2d> {
        let (addr, _sync) = g_tensor.device_ptr(&gpu.stream);
        Self::encode(gpu, addr, g_tensor.len() as u64, 1, tile, sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_UINT8, "u8")
    }

    /// As [`TensorMap2d::encode_f16`] for an f32 tensor (`elem_bytes` must be 4).
    pub fn encode_f32(gpu: &Gpu, g_tensor: &CudaSlice<f32>, tile: TmaTile2d) -> Result<TensorMap2d> {
        let (addr, _sync) = g_tensor.device_ptr(&gpu.stream);
        Self::encode(gpu, addr, g_tensor.len() as u64, 4, tile, sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT32, "f32")
    }

    /// Encodes the map of the `len`-element tensor at device address `addr` (elements of
    /// `elem_bytes`, driver type `dtype`, called `name` in errors).
    fn encode(gpu: &Gpu, addr: u64, len: u64, elem_bytes: u32, tile: TmaTile2d, dtype: sys::CUtensorMapDataType, name: &str) -> Result<TensorMap2d> {
        if tile.elem_bytes != elem_bytes {
            return Err(Error::InvalidInput(format!("a {name} tensor map needs elem_bytes {elem_bytes}, got {}", tile.elem_bytes)));
        }
        let need = (tile.rows - 1) * tile.stride_bytes / elem_bytes as u64 + tile.cols;
        if len < need {
            return Err(Error::InvalidInput(format!(
                "tensor map over {}×{} {name} (row stride {} B) needs {need} elements, the buffer has {len}",
                tile.rows, tile.cols, tile.stride_bytes)));
        }
        tile.check(addr).map_err(|e| Error::InvalidInput(format!("TMA tensor map: {}", describe(&e))))?;
        let dims: [u64; 2] = [tile.cols, tile.rows];
        let strides: [u64; 1] = [tile.stride_bytes];
        let boxes: [u32; 2] = [tile.box_cols, tile.box_rows];
        let elem_strides: [u32; 2] = [1, 1];
        let mut map = std::mem::MaybeUninit::<sys::CUtensorMap>::zeroed();
        // SAFETY: the driver writes 128 bytes into `map`; every array has the length rank 2 needs
        // (strides: rank - 1); `addr` is a live allocation of at least `need` elements (checked above,
        // the caller's slice); the geometry passed `TmaTile2d::check`, the documented constraints of this call.
        unsafe {
            sys::cuTensorMapEncodeTiled(
                map.as_mut_ptr(),
                dtype,
                2,
                addr as *mut std::ffi::c_void,
                dims.as_ptr(),
                strides.as_ptr(),
                boxes.as_ptr(),
                elem_strides.as_ptr(),
                sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
                cu_swizzle(tile.swizzle),
                sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
            )
        }
        .result()
        .during(|| format!("cuTensorMapEncodeTiled ({}×{} {name}, box {}×{}, {:?})", tile.rows, tile.cols, tile.box_rows, tile.box_cols, tile.swizzle))?;
        // SAFETY: initialized by the successful call above (and zeroed before it).
        let map = unsafe { map.assume_init() };
        let dev = gpu.upload(&map.opaque)?;
        Ok(TensorMap2d { dev, host: TensorMapParam(map.opaque), tile })
    }
}

/// A 3-D tiled tensor map in device memory (a19's token-major Q, K, V: dims (head dim, heads, tokens),
/// boxes of 64 × 1 × 128), with the geometry it was encoded with.
pub struct TensorMap3d {
    /// The 16 `u64` of the `CUtensorMap`, in global memory.
    pub dev: CudaSlice<u64>,
    /// Extents, innermost first.
    pub dims: [u64; 3],
    /// Bytes between consecutive indices of dimensions 1 and 2.
    pub strides_bytes: [u64; 2],
    /// Box extents, innermost first.
    pub box_dims: [u32; 3],
}

/// The driver's constraints on a tiled 3-D map of `elem_bytes` elements at `addr` (those
/// [`TmaTile2d::check`] checks for 2-D, per dimension), and the elements its extents reach.
pub fn check_3d(addr: u64, elem_bytes: u32, dims: [u64; 3], strides_bytes: [u64; 2], box_dims: [u32; 3], swizzle: TmaSwizzle) -> std::result::Result<u64, TmaError> {
    if !matches!(elem_bytes, 1 | 2 | 4 | 8) {
        return Err(TmaError::ElemBytes { bytes: elem_bytes });
    }
    if addr % 16 != 0 {
        return Err(TmaError::GlobalAddressAlign { addr });
    }
    for (dim, &extent) in dims.iter().enumerate() {
        if extent == 0 || extent > 1 << 32 {
            return Err(TmaError::GlobalDim { dim: dim as u32, extent });
        }
    }
    // Each stride a multiple of 16 below 2^40 that holds a row of dimension 0.
    for &stride in &strides_bytes {
        if stride % 16 != 0 || stride >= 1 << 40 || stride < dims[0] * elem_bytes as u64 {
            return Err(TmaError::GlobalStride { stride_bytes: stride });
        }
    }
    for (dim, &extent) in box_dims.iter().enumerate() {
        if extent == 0 || extent > layout::hopper::TMA_MAX_BOX {
            return Err(TmaError::BoxDim { dim: dim as u32, extent });
        }
    }
    let inner = box_dims[0] * elem_bytes;
    if inner % 16 != 0 {
        return Err(TmaError::BoxInnerBytes { bytes: inner });
    }
    if let Some(span) = swizzle.span_bytes() {
        if inner > span {
            return Err(TmaError::BoxWiderThanSpan { bytes: inner, span });
        }
    }
    Ok(((dims[1] - 1) * strides_bytes[0] + (dims[2] - 1) * strides_bytes[1]) / elem_bytes as u64 + dims[0])
}

impl TensorMap3d {
    /// Encodes the 3-D map of the `len` 16-bit elements (f16, or bf16 with `bf16`) at device address
    /// `addr`: extents `dims` (innermost first), strides `strides_bytes` of dimensions 1 and 2, boxes
    /// `box_dims`, `swizzle`, zero fill out of bounds, L2 promotion 128 B; copied to the device. The
    /// geometry is checked first ([`check_3d`]) and the buffer must hold every element the extents
    /// reach. The caller keeps that memory alive for every launch with the map.
    #[allow(clippy::too_many_arguments)]
    pub fn encode_16bit_at(gpu: &Gpu, addr: u64, len: usize, dims: [u64; 3], strides_bytes: [u64; 2], box_dims: [u32; 3], swizzle: TmaSwizzle, bf16: bool)
                           -> Result<TensorMap3d> {
        let map = encode_3d_16bit(addr, len, dims, strides_bytes, box_dims, swizzle, bf16)?;
        Ok(TensorMap3d { dev: gpu.upload(&map.opaque)?, dims, strides_bytes, box_dims })
    }

    /// As [`TensorMap3d::encode_16bit_at`], for a kernel that takes the map by value ([`TensorMapParam`]):
    /// nothing is copied to the device (the launch copies the 128 bytes into the kernel's parameters).
    #[allow(clippy::too_many_arguments)]
    pub fn param_16bit_at(addr: u64, len: usize, dims: [u64; 3], strides_bytes: [u64; 2], box_dims: [u32; 3], swizzle: TmaSwizzle, bf16: bool) -> Result<TensorMapParam> {
        Ok(TensorMapParam(encode_3d_16bit(addr, len, dims, strides_bytes, box_dims, swizzle, bf16)?.opaque))
    }
}

/// The driver's encoding of a 3-D map over 16-bit elements (see [`TensorMap3d::encode_16bit_at`]).
fn encode_3d_16bit(addr: u64, len: usize, dims: [u64; 3], strides_bytes: [u64; 2], box_dims: [u32; 3], swizzle: TmaSwizzle, bf16: bool) -> Result<sys::CUtensorMap> {
    let name = if bf16 { "bf16" } else { "f16" };
    let need = check_3d(addr, 2, dims, strides_bytes, box_dims, swizzle).map_err(|e| Error::InvalidInput(format!("TMA tensor map: {}", describe(&e))))?;
    if (len as u64) < need {
        return Err(Error::InvalidInput(format!("3-D tensor map over {dims:?} {name} (strides {strides_bytes:?} B) needs {need} elements, the buffer has {len}")));
    }
    let dtype = if bf16 { sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 } else { sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT16 };
    let elem_strides: [u32; 3] = [1, 1, 1];
    let mut map = std::mem::MaybeUninit::<sys::CUtensorMap>::zeroed();
    // SAFETY: the driver writes 128 bytes into `map`; every array has the length rank 3 needs
    // (strides: rank − 1); `addr` is a live allocation of at least `need` elements (checked above,
    // the caller's); the geometry passed `check_3d`, the documented constraints of this call.
    unsafe {
        sys::cuTensorMapEncodeTiled(map.as_mut_ptr(), dtype, 3, addr as *mut std::ffi::c_void, dims.as_ptr(), strides_bytes.as_ptr(), box_dims.as_ptr(),
                                    elem_strides.as_ptr(), sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE, cu_swizzle(swizzle),
                                    sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                                    sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
    }
    .result()
    .during(|| format!("cuTensorMapEncodeTiled (3-D {dims:?} {name}, strides {strides_bytes:?}, box {box_dims:?}, {swizzle:?})"))?;
    // SAFETY: initialized by the successful call above (and zeroed before it).
    Ok(unsafe { map.assume_init() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_d_maps_check_each_dimension() {
        let sw = TmaSwizzle::B128;
        // Token-major Q of 10 tokens × 32 heads × D = 96: strides D·2 and heads·D·2.
        assert_eq!(check_3d(0, 2, [96, 32, 10], [192, 32 * 192], [64, 1, 128], sw), Ok(9 * 32 * 96 + 31 * 96 + 96));
        assert_eq!(check_3d(8, 2, [96, 32, 10], [192, 32 * 192], [64, 1, 128], sw), Err(TmaError::GlobalAddressAlign { addr: 8 }));
        assert_eq!(check_3d(0, 2, [100, 32, 10], [200, 6400], [64, 1, 128], sw), Err(TmaError::GlobalStride { stride_bytes: 200 }));
        assert_eq!(check_3d(0, 2, [96, 32, 10], [192, 6152], [64, 1, 128], sw), Err(TmaError::GlobalStride { stride_bytes: 6152 }));
        assert_eq!(check_3d(0, 2, [96, 32, 0], [192, 6144], [64, 1, 128], sw), Err(TmaError::GlobalDim { dim: 2, extent: 0 }));
        assert_eq!(check_3d(0, 2, [96, 32, 10], [192, 6144], [128, 1, 128], sw), Err(TmaError::BoxWiderThanSpan { bytes: 256, span: 128 }));
        assert_eq!(check_3d(0, 2, [96, 32, 10], [192, 6144], [64, 1, 512], sw), Err(TmaError::BoxDim { dim: 2, extent: 512 }));
    }

    #[test]
    fn errors_name_the_constraint() {
        let msg = describe(&TmaError::GlobalStride { stride_bytes: 8198 });
        assert!(msg.contains("8198") && msg.contains("multiple of 16"), "{msg}");
        let msg = describe(&TmaError::BoxWiderThanSpan { bytes: 256, span: 128 });
        assert!(msg.contains("256") && msg.contains("128-byte swizzle span"), "{msg}");
    }
}
