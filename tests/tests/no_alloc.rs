//! Host-side proof of allocation freedom: every model run and every lesson render through
//! `capsim-core` makes zero heap allocations (counted by a global allocator, per thread).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use capsim_core::lesson::{render, Lesson};
use capsim_core::{autoscale, bulkhead, consumers};

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: forwards to the system allocator unchanged; only counts calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        unsafe { System.realloc(ptr, layout, size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_in(f: impl FnOnce()) -> u64 {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

/// A writer that only counts bytes (a `String` would allocate by itself).
struct ByteCount(usize);

impl core::fmt::Write for ByteCount {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        self.0 += s.len();
        Ok(())
    }
}

#[test]
fn models_and_lessons_never_allocate() {
    let mut ws = capsim_tests::lesson_workspace(); // allocated before counting
    let n = allocations_in(|| {
        autoscale::run(&autoscale::Params::default()).unwrap();
    });
    assert_eq!(n, 0, "autoscale");
    let n = allocations_in(|| {
        let p = consumers::Params {
            consumers: 8,
            ..consumers::Params::default()
        };
        consumers::run(&p, &mut ws).unwrap();
    });
    assert_eq!(n, 0, "consumers");
    let n = allocations_in(|| {
        bulkhead::run(&bulkhead::Params::default()).unwrap();
    });
    assert_eq!(n, 0, "bulkhead");
    for lesson in Lesson::ALL {
        let mut out = ByteCount(0);
        let n = allocations_in(|| render(lesson, &mut out, &mut ws).unwrap());
        assert_eq!(n, 0, "{}", lesson.name());
        assert!(out.0 > 500, "{} rendered", lesson.name());
    }
    // The counter does count: a Vec allocates.
    assert!(allocations_in(|| drop(std::hint::black_box(vec![1u8; 16]))) > 0);
}
