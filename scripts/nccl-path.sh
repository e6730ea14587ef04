# Sourced by the device scripts that make NCCL communicators: NVLink multicast off, and pip's
# nvidia-nccl library (libnccl.so.2) linked as the libnccl.so cudarc loads, on LD_LIBRARY_PATH.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
NCCL_DIR=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib"))' 2>/dev/null)
if [ -n "$NCCL_DIR" ] && [ -e "$NCCL_DIR/libnccl.so.2" ]; then
  mkdir -p /tmp/nccl-lib && ln -sf "$NCCL_DIR/libnccl.so.2" /tmp/nccl-lib/libnccl.so
  export LD_LIBRARY_PATH=/tmp/nccl-lib:${LD_LIBRARY_PATH:-}
fi
