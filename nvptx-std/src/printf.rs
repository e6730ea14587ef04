//! `printf!` from a kernel, over CUDA's `vprintf` (what C++'s `printf` in device code compiles to).
//!
//! ```ignore
//! nvptx_std::printf!("block %d thread %d: x = %f\n", block_idx_x(), thread_idx_x(), x);
//! ```
//!
//! The format is C's (`%d`, `%u`, `%ld`, `%f`, `%e`, `%x`, `%p`, `%s` is not offered: a device string has
//! no host address), checked by nobody: an argument whose size does not match its conversion prints
//! garbage, as in CUDA C++. Arguments are packed as C varargs are — each at an offset aligned to its
//! size; `f32` promoted to `f64`, 8- and 16-bit integers to 32 bits, pointers as 64-bit addresses —
//! into a buffer on the thread's stack, and `vprintf(format, buffer)` copies them to the device's printf
//! FIFO. **When the output appears**: the host prints the FIFO at the next synchronizing call after the
//! kernel (a stream or context synchronize, a blocking copy) — not while the kernel runs; a kernel that
//! traps loses what it printed; the FIFO holds 1 MiB by default (`cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE)`),
//! and lines beyond it are dropped. Every thread that reaches the call prints: guard it
//! (`if thread_idx_x() == 0`).

unsafe extern "C" {
    /// CUDA's device-side `vprintf(format, args)`: the PTX `.extern .func vprintf`, resolved by `ptxas`
    /// (a system call of the CUDA runtime ABI).
    pub fn vprintf(format: *const u8, args: *const u8) -> i32;
}

/// The packed arguments of one call: at most `N` arguments of at most 8 bytes each.
#[doc(hidden)]
#[repr(C, align(8))]
pub struct Buf<const N: usize> {
    words: [u64; N],
    at: usize,
}

impl<const N: usize> Default for Buf<N> {
    fn default() -> Self {
        Buf { words: [0; N], at: 0 }
    }
}

impl<const N: usize> Buf<N> {
    /// Appends `bytes` (4 or 8 of them) at the next offset aligned to their size.
    #[inline(always)]
    fn put(&mut self, value: u64, size: usize) {
        let at = self.at.next_multiple_of(size);
        if at + size > 8 * N {
            return; // Cannot happen: N counts the arguments and none is over 8 bytes.
        }
        let dst = self.words.as_mut_ptr() as *mut u8;
        // SAFETY: at + size <= 8·N bytes of `words` (checked above), and `at` is a multiple of `size`
        // in an 8-byte-aligned buffer: an aligned 4- or 8-byte store.
        unsafe {
            if size == 8 {
                *(dst.add(at) as *mut u64) = value;
            } else {
                *(dst.add(at) as *mut u32) = value as u32;
            }
        }
        self.at = at + size;
    }

    /// The buffer's address, for `vprintf` (null without arguments, as CUDA passes).
    #[inline(always)]
    pub fn as_ptr(&self) -> *const u8 {
        if N == 0 { core::ptr::null() } else { self.words.as_ptr() as *const u8 }
    }
}

/// A value `printf!` can pass, promoted as C varargs are.
pub trait Arg {
    /// Appends the value to `buf`.
    fn push<const N: usize>(self, buf: &mut Buf<N>);
}

macro_rules! arg_as {
    ($($t:ty => $via:ty, $size:literal);* $(;)?) => {$(
        impl Arg for $t {
            #[inline(always)]
            fn push<const N: usize>(self, buf: &mut Buf<N>) {
                buf.put((self as $via) as u64, $size);
            }
        }
    )*};
}
arg_as! {
    i8 => i32, 4; i16 => i32, 4; i32 => i32, 4; u8 => u32, 4; u16 => u32, 4; u32 => u32, 4;
    i64 => i64, 8; u64 => u64, 8; isize => i64, 8; usize => u64, 8;
}

impl Arg for bool {
    #[inline(always)]
    fn push<const N: usize>(self, buf: &mut Buf<N>) {
        buf.put(self as u64, 4);
    }
}

impl Arg for f32 {
    #[inline(always)]
    fn push<const N: usize>(self, buf: &mut Buf<N>) {
        buf.put((self as f64).to_bits(), 8);
    }
}

impl Arg for f64 {
    #[inline(always)]
    fn push<const N: usize>(self, buf: &mut Buf<N>) {
        buf.put(self.to_bits(), 8);
    }
}

impl<T> Arg for *const T {
    #[inline(always)]
    fn push<const N: usize>(self, buf: &mut Buf<N>) {
        buf.put(self as usize as u64, 8);
    }
}

impl<T> Arg for *mut T {
    #[inline(always)]
    fn push<const N: usize>(self, buf: &mut Buf<N>) {
        buf.put(self as usize as u64, 8);
    }
}

/// `printf!("fmt", args…)`: C's `printf` from a kernel (see the module doc: the format is C's, and the
/// output appears at the host's next synchronizing call). Returns `vprintf`'s result (the number of
/// arguments, or a negative value on error).
#[macro_export]
macro_rules! printf {
    ($fmt:literal $(, $arg:expr)* $(,)?) => {{
        let mut buf = $crate::printf::Buf::<{ 0 $( + { let _ = stringify!($arg); 1 } )* }>::default();
        $( $crate::printf::Arg::push($arg, &mut buf); )*
        // SAFETY: a NUL-terminated format and a buffer packed as C varargs, both alive for the call.
        unsafe { $crate::printf::vprintf(concat!($fmt, "\0").as_ptr(), buf.as_ptr()) }
    }};
}
