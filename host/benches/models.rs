//! Criterion benchmarks: one run of each model, each lesson sweep, and the consumers
//! workload generation on its own. Run with `cargo bench -p capsim`.

use capsim_core::consumers::{self, LessonDraws, Queue, QueueSpace, Workspace, DEFAULT_IN_FLIGHT};
use capsim_core::lesson::{render, Lesson, LESSON_EVENTS, LESSON_SHIPMENTS};
use capsim_core::{autoscale, bulkhead};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use std::hint::black_box;

/// The lesson's workload sorted whole, for one configuration at a time.
type SortedWorkspace = Workspace<LESSON_SHIPMENTS, DEFAULT_IN_FLIGHT, 1, LESSON_EVENTS>;

/// Counts bytes: rendering without the cost of storing the text.
struct Sink(usize);

impl core::fmt::Write for Sink {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        self.0 += s.len();
        Ok(())
    }
}

fn single_runs(c: &mut Criterion) {
    let mut g = c.benchmark_group("run");
    let a = autoscale::Params::default();
    g.bench_function("autoscale", |b| b.iter(|| autoscale::run(black_box(&a))));
    // Rotating seeds: one seed repeated trains the branch predictor on its runs.
    let mut seed = 0u32;
    g.bench_function("autoscale_rotating_seeds", |b| {
        b.iter(|| {
            seed = seed % 1000 + 1;
            autoscale::run(black_box(&autoscale::Params { seed, ..a.clone() }))
        })
    });
    let bh = bulkhead::Params::default();
    g.bench_function("bulkhead", |b| b.iter(|| bulkhead::run(black_box(&bh))));
    // The queue merged on the fly (a small board's workspace), then sorted whole.
    let mut ws = Box::new(Workspace::<LESSON_SHIPMENTS>::new());
    let mut sorted = Box::new(SortedWorkspace::new());
    for n in [1, 8] {
        let p = consumers::Params {
            consumers: n,
            ..consumers::Params::default()
        };
        g.throughput(Throughput::Elements(p.events()));
        g.bench_function(format!("consumers_n{n}_s2"), |b| {
            b.iter(|| consumers::run(black_box(&p), &mut ws))
        });
        g.bench_function(format!("consumers_n{n}_s2_sorted"), |b| {
            b.iter(|| consumers::run(black_box(&p), &mut sorted))
        });
        let mut seed = 0u32;
        g.bench_function(format!("consumers_n{n}_s2_sorted_rotating_seeds"), |b| {
            b.iter(|| {
                seed = seed % 1000 + 1;
                consumers::run(
                    black_box(&consumers::Params { seed, ..p.clone() }),
                    &mut sorted,
                )
            })
        });
    }
    g.finish();
}

fn workload(c: &mut Criterion) {
    let mut g = c.benchmark_group("workload");
    let p = consumers::Params::default();
    g.throughput(Throughput::Elements(p.events()));
    let mut order = Box::new(QueueSpace::<5000>::new());
    g.bench_function("consumers_generate", |b| {
        b.iter(|| {
            let q = Queue::new(&p, LessonDraws::new(&p), &mut order).unwrap();
            q.map(|e| e.unwrap().rounds as u64).sum::<u64>()
        })
    });
    g.finish();
}

fn lesson_sweeps(c: &mut Criterion) {
    let mut g = c.benchmark_group("sweep");
    g.sample_size(20);
    // What `capsim lesson` uses: one lane per consumers configuration.
    let mut ws = Box::new(capsim::LessonWorkspace::new());
    for (name, lesson) in [
        ("group_9_pairs", Lesson::GroupSweep),
        ("consumers_s_by_n", Lesson::Consumers),
        ("bulkhead_splits", Lesson::Bulkhead),
    ] {
        g.bench_function(name, |b| {
            b.iter_batched(
                || Sink(0),
                |mut out| render(lesson, &mut out, &mut ws).map(|()| out.0),
                BatchSize::SmallInput,
            )
        });
    }
    // A small board's way: one lane, the queue regenerated for each configuration.
    let mut one_lane = Box::new(Workspace::<LESSON_SHIPMENTS>::new());
    g.bench_function("consumers_s_by_n_one_lane", |b| {
        b.iter_batched(
            || Sink(0),
            |mut out| render(Lesson::Consumers, &mut out, &mut one_lane).map(|()| out.0),
            BatchSize::SmallInput,
        )
    });
    g.finish();
}

criterion_group!(benches, single_runs, workload, lesson_sweeps);
criterion_main!(benches);
