//! Decoding a reply costs a small, stated multiple of its size: its words
//! go from the line's text straight into the buffers' `Vec<u32>`s, never
//! through a JSON value per word (which cost 35 times a 64 MiB reply's
//! size, 2.27 GB). Measured with an allocator that counts the bytes live
//! at the peak; one test in this binary, so nothing else allocates beside
//! it.

use ser_harness::protocol::{decode, Reply};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed on to the system allocator unchanged; the
// counters only add and subtract the sizes asked for.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
        PEAK.fetch_max(live, Relaxed);
        System.alloc(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// What decoding may cost beyond the line it decodes, as a multiple of the
/// line's length (stated in docs/protocol.md).
const DECODE_COST: usize = 1;

#[test]
fn a_64_mib_reply_decodes_within_its_own_size_again() {
    let words = 6_000_000usize;
    let mut line = String::with_capacity(64 << 20);
    line.push_str(r#"{"type": "buffers", "id": "big", "buffers": {"Out": ["#);
    for i in 0..words {
        if i > 0 {
            line.push(',');
        }
        line.push_str("4294967295");
    }
    line.push_str("]}}");
    assert!(line.len() > 60 << 20, "{}", line.len());
    let before = LIVE.load(Relaxed);
    PEAK.store(before, Relaxed);
    let reply = decode::<Reply>("a reply", &line).expect("a valid reply");
    let cost = PEAK.load(Relaxed) - before;
    let Reply::Buffers(b) = &reply else {
        panic!("a buffers reply")
    };
    assert_eq!(b.buffers["Out"].len(), words);
    assert!(
        cost <= DECODE_COST * line.len(),
        "decoding a {} byte reply took {cost} bytes at its peak ({:.2}x)",
        line.len(),
        cost as f64 / line.len() as f64
    );
    eprintln!(
        "decoding a {} MiB reply: {:.2}x its size at the peak",
        line.len() >> 20,
        cost as f64 / line.len() as f64
    );
}
