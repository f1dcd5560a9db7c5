//! The native door's allocator: mimalloc, entered by its plain `malloc`
//! for every layout its blocks already satisfy.
//!
//! The `mimalloc` crate's `GlobalAlloc` calls `mi_malloc_aligned` for every
//! allocation, which checks the alignment before it reaches the same
//! small-block path: ~70 instructions an allocation in mimalloc's v3 line
//! (the crate's default), ~48 in v2, against ~30 for v2's `mi_malloc`; a
//! create makes ~125 allocations (BENCHMARKS.md). mimalloc's v2 line
//! aligns every block of at least `MI_MAX_ALIGN_SIZE` (16) bytes to 16 and
//! smaller ones to their size rounded to a power of two: its own
//! `mi_malloc_is_naturally_aligned` holds whenever the alignment is at most
//! 16 and at most the size, so those layouts go straight to `mi_malloc`.
//! Anything else (a zero-sized layout, an alignment above 16 or above the
//! size) takes the aligned entry point as before.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys as mi;

/// mimalloc's `MI_MAX_ALIGN_SIZE`: the alignment every block of that size
/// or more has.
const MAX_NATURAL_ALIGN: usize = 16;

/// Whether a plain allocation of `size` bytes is aligned to `align`.
#[inline]
fn natural(size: usize, align: usize) -> bool {
    align <= MAX_NATURAL_ALIGN && align <= size
}

/// mimalloc as the global allocator (`#[global_allocator]` in the native
/// binary and the benchmarks).
pub struct Allocator;

// SAFETY: every entry point hands the layout's size to mimalloc, and asks
// for the layout's alignment explicitly unless `natural` says mimalloc's
// plain blocks have it; blocks are freed by the allocator that made them.
unsafe impl GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: mimalloc's C entry points take any size and alignment.
        unsafe {
            if natural(layout.size(), layout.align()) {
                mi::mi_malloc(layout.size()) as *mut u8
            } else {
                mi::mi_malloc_aligned(layout.size(), layout.align()) as *mut u8
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        unsafe {
            if natural(layout.size(), layout.align()) {
                mi::mi_zalloc(layout.size()) as *mut u8
            } else {
                mi::mi_zalloc_aligned(layout.size(), layout.align()) as *mut u8
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` came from this allocator (GlobalAlloc's contract).
        unsafe { mi::mi_free(ptr as *mut c_void) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from this allocator; mimalloc keeps the
        // alignment asked for, or the natural one of the new size.
        unsafe {
            if natural(new_size, layout.align()) {
                mi::mi_realloc(ptr as *mut c_void, new_size) as *mut u8
            } else {
                mi::mi_realloc_aligned(ptr as *mut c_void, new_size, layout.align()) as *mut u8
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every layout, natural or not, comes back aligned as asked, keeps
    /// its bytes through a growing and a shrinking realloc, and zeroed
    /// memory is zero.
    #[test]
    fn blocks_are_aligned_as_their_layouts_ask() {
        let a = Allocator;
        for align in [1usize, 2, 4, 8, 16, 32, 64, 4096] {
            for size in [1usize, 3, 7, 8, 15, 16, 24, 33, 48, 100, 1000, 5000, 70_000] {
                let layout = Layout::from_size_align(size, align).expect("a valid layout");
                // SAFETY: non-zero sizes; every block freed once, by the
                // allocator that made it, with its layout.
                unsafe {
                    let p = a.alloc(layout);
                    assert!(!p.is_null());
                    assert_eq!(p as usize % align, 0, "size {size} align {align}");
                    std::ptr::write_bytes(p, 0xA5, size);
                    let grown = a.realloc(p, layout, size * 3);
                    assert_eq!(grown as usize % align, 0, "grown from size {size} align {align}");
                    assert!((0..size).all(|i| *grown.add(i) == 0xA5));
                    let grown_layout = Layout::from_size_align(size * 3, align).expect("a valid layout");
                    let shrunk = a.realloc(grown, grown_layout, size.div_ceil(2));
                    assert_eq!(shrunk as usize % align, 0, "shrunk from size {size} align {align}");
                    assert!((0..size.div_ceil(2)).all(|i| *shrunk.add(i) == 0xA5));
                    a.dealloc(shrunk, Layout::from_size_align(size.div_ceil(2), align).expect("a valid layout"));
                    let z = a.alloc_zeroed(layout);
                    assert_eq!(z as usize % align, 0);
                    assert!((0..size).all(|i| *z.add(i) == 0));
                    a.dealloc(z, layout);
                }
            }
        }
    }
}
