//! The global allocator of the suite's programs (the runner, the bench, the
//! tests): mimalloc, asked for plain blocks wherever a plain block is
//! aligned enough.
//!
//! The interpreter allocates values as it evaluates; glibc's malloc was a
//! quarter of its time. The `mimalloc` crate's allocator asks for every
//! block through `mi_malloc_aligned`, whose fast path takes only blocks of
//! at most 1 KiB that happen to be aligned: larger ones (grown vectors, and
//! the futures of calls while the evaluator was `async`) went through its
//! over-allocating slow path, 3.5% of the generated-cases bench's
//! instructions. Every block `mi_malloc`
//! gives is a whole number of words from a word-aligned start, so a layout
//! aligned to a word or less needs nothing more.
//!
//! A program that sets the allocator also calls [`keep_freed_memory`]
//! first thing in `main`.

use libmimalloc_sys as mi;
use std::alloc::{GlobalAlloc, Layout};
use std::ffi::{c_int, c_long, c_void};

/// `mi_option_purge_delay` in mimalloc's `mi_option_e` (v3.3's
/// `include/mimalloc.h`; the test below pins the version this was read
/// from).
const MI_OPTION_PURGE_DELAY: c_int = 15;

extern "C" {
    // In the mimalloc library that `libmimalloc-sys` builds and links; the
    // crate declares it only behind its `extended` feature.
    fn mi_option_set(option: c_int, value: c_long);
}

/// Tells mimalloc to keep the memory it frees for later blocks rather than
/// purge it (by default 10 ms after it falls free). mimalloc asks for
/// transparent huge pages, so a purge gives 2 MiB pages back and the next
/// use of one faults in a fresh page that the kernel zeroes, and at times
/// compacts memory for, while the program waits: 15% of the wall time of
/// 2,000 generated cases through the reference (one core: 1.21 s against
/// 1.03 s elapsed, `perf stat -r 6`), as the reference allocates and frees
/// a case's values. The memory held is the most the program ever used at
/// once.
pub fn keep_freed_memory() {
    // SAFETY: sets an option mimalloc reads each time it would purge.
    unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, -1) }
}

/// mimalloc, with plain blocks where they are aligned enough.
pub struct Allocator;

/// A new block for `layout`, from mimalloc's plain function where a plain
/// block has the layout's alignment (a word's or less), else from its
/// aligned twin.
#[inline]
unsafe fn block(
    layout: Layout,
    plain: unsafe extern "C" fn(usize) -> *mut c_void,
    aligned: unsafe extern "C" fn(usize, usize) -> *mut c_void,
) -> *mut u8 {
    if is_plain(&layout) {
        plain(layout.size()) as *mut u8
    } else {
        aligned(layout.size(), layout.align()) as *mut u8
    }
}

/// Whether a plain block has the layout's alignment: a word's or less.
fn is_plain(layout: &Layout) -> bool {
    layout.align() <= std::mem::size_of::<usize>()
}

// SAFETY: each function hands the layout's size (and, where a plain block
// would not be aligned enough, its alignment) to mimalloc, whose blocks
// `dealloc` and `realloc` give back to it.
unsafe impl GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        block(layout, mi::mi_malloc, mi::mi_malloc_aligned)
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        block(layout, mi::mi_zalloc, mi::mi_zalloc_aligned)
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        mi::mi_free(ptr as *mut c_void);
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if is_plain(&layout) {
            mi::mi_realloc(ptr as *mut c_void, new_size) as *mut u8
        } else {
            mi::mi_realloc_aligned(ptr as *mut c_void, new_size, layout.align()) as *mut u8
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The option number above is read from mimalloc 3.3's header: another
    /// version may number its options differently.
    #[test]
    fn the_purge_option_is_numbered_as_in_the_linked_mimalloc() {
        extern "C" {
            fn mi_option_get(option: c_int) -> c_long;
            fn mi_version() -> c_int;
        }
        // SAFETY: plain queries of the linked library.
        let version = unsafe { mi_version() };
        assert_eq!(version / 100, 303, "mimalloc {version}: check mi_option_e");
        keep_freed_memory();
        assert_eq!(unsafe { mi_option_get(MI_OPTION_PURGE_DELAY) }, -1);
    }

    /// Every layout gets a block of its alignment, plain or not, which
    /// keeps its contents as it grows and shrinks; a zeroed block is zero.
    #[test]
    fn blocks_are_aligned_and_keep_their_contents() {
        let a = Allocator;
        for align in [1, 2, 4, 8, 16, 32, 4096] {
            for size in [1, 3, 8, 12, 24, 40, 1000, 1025, 5000, 70_000] {
                let small = Layout::from_size_align(size, align).unwrap();
                unsafe {
                    let p = a.alloc(small);
                    assert_eq!(p as usize % align, 0, "{small:?}");
                    std::ptr::write_bytes(p, 0xAB, size);
                    let p = a.realloc(p, small, size * 3);
                    assert_eq!(p as usize % align, 0, "{small:?} grown");
                    assert_eq!(*p.add(size - 1), 0xAB, "{small:?} grown");
                    let large = Layout::from_size_align(size * 3, align).unwrap();
                    let p = a.realloc(p, large, size);
                    assert_eq!(p as usize % align, 0, "{small:?} shrunk");
                    assert_eq!(*p.add(size - 1), 0xAB, "{small:?} shrunk");
                    a.dealloc(p, small);
                    let z = a.alloc_zeroed(small);
                    assert_eq!(z as usize % align, 0, "{small:?} zeroed");
                    assert!(std::slice::from_raw_parts(z, size).iter().all(|&b| b == 0));
                    a.dealloc(z, small);
                }
            }
        }
    }
}
