//! The reference oracle: straight ports of the auto-scaling, consumers and bulkhead lesson
//! programs (the specification), shared by the cross-crate tests, the host's tests and the
//! fuzz targets.
//!
//! The ports follow the JavaScript line by line with growable vectors and no fixed capacity,
//! so they are slow but obviously the lesson's semantics; they reuse only the core's random
//! generators (checked against the lessons' outputs by the golden and differential tests) and
//! the auto-scaling `Params::required` (the demand formula, likewise).
//! Each returns what the lesson would compute, or says why the core may legitimately refuse
//! the run (a documented capacity).

use capsim_core::autoscale;
use capsim_core::bulkhead::{self, Mode, Split};
use capsim_core::consumers;
use capsim_core::rng::{CounterHash, GroupLcg, ParkMiller, UnitRng};

/// What a lesson program does with some parameters.
#[derive(Debug)]
pub enum Lesson<M> {
    /// It prints these metrics.
    Metrics(M),
    /// It needs more room than the core's documented fixed capacity (the core must refuse).
    OverCapacity,
}

/// `olcum-agi/grup.mjs`'s `kosum`, with every constant taken from `p` (call only with
/// parameters that `p.validate()` accepts).
pub fn autoscale(p: &autoscale::Params) -> Lesson<autoscale::Metrics> {
    autoscale_with(p, &mut GroupLcg::new(p.seed))
}

/// [`autoscale()`] drawing its health checks from `r`.
pub fn autoscale_with(p: &autoscale::Params, r: &mut impl UnitRng) -> Lesson<autoscale::Metrics> {
    #[derive(Clone)]
    struct Instance {
        ready: bool,
        left: i64,
        failures: u32,
        broken: bool,
    }
    let booting = |boot: u32| Instance {
        ready: false,
        left: i64::from(boot),
        failures: 0,
        broken: false,
    };
    let max = autoscale::MAX_GROUP_SIZE as f64;
    // `Array.from({ length: gerekli(0) })`: ToLength clamps negative lengths to 0.
    let initial = p.required(0);
    if initial > max {
        return Lesson::OverCapacity;
    }
    let initial = if initial > 0.0 { initial as usize } else { 0 };
    let mut group = vec![
        Instance {
            ready: true,
            left: 0,
            failures: 0,
            broken: false
        };
        initial
    ];
    let mut m = autoscale::Metrics {
        min_size: 99,
        ..Default::default()
    };
    let cooldown = f64::from(p.cooldown);
    let mut last_action = -cooldown;
    for t in 0..p.rounds {
        let g = p.required(t);
        if p.failure_rounds.contains(&t) {
            if let Some(victim) = group.iter_mut().find(|o| o.ready && !o.broken) {
                victim.broken = true;
            }
        }
        let mut kept = Vec::with_capacity(group.len());
        for mut o in group {
            if !o.ready {
                kept.push(o);
                continue;
            }
            if o.broken {
                m.broken_rounds += 1;
            }
            let passed = !o.broken && r.next_unit() >= p.transient_failure;
            o.failures = if passed { 0 } else { o.failures + 1 };
            if o.failures >= p.threshold {
                m.replacements += 1;
                if !o.broken {
                    m.false_replacements += 1;
                }
                kept.push(booting(p.boot_rounds));
                m.launched += 1;
            } else {
                kept.push(o);
            }
        }
        group = kept;
        let ready = group.iter().filter(|o| o.ready).count() as f64;
        if f64::from(t) - last_action >= cooldown {
            if ready < g {
                let add = g - ready;
                if group.len() as f64 + add > max {
                    return Lesson::OverCapacity;
                }
                for _ in 0..add as usize {
                    group.push(booting(p.boot_rounds));
                }
                m.launched += add as u32;
                m.scaling_actions += 1;
                last_action = f64::from(t);
            } else if ready > g + 1.0 {
                // `for (i = 0; i < hazir - g - 1; i++) grup.splice(findIndex(hazir), 1)`:
                // removes a ready instance, or the last one (`splice(-1, 1)`), while any is
                // left; later passes change nothing. (Past 2^53 passes JavaScript's `i++` stops
                // counting and the loop never ends; capsim, like tests/tools/gen_vectors.py,
                // takes the answer the loop reaches once the group is empty.)
                let removals = ((ready - g - 1.0) as usize).min(group.len());
                for _ in 0..removals {
                    match group.iter().position(|o| o.ready) {
                        Some(i) => group.remove(i),
                        None => group.pop().expect("removals <= len"),
                    };
                }
                m.scaling_actions += 1;
                last_action = f64::from(t);
            }
        }
        for o in group.iter_mut() {
            if !o.ready {
                o.left -= 1;
                if o.left <= 0 {
                    o.ready = true;
                }
            }
        }
        let size = group.len() as u32;
        let launching = group.iter().filter(|o| !o.ready).count() as u32;
        m.min_size = m.min_size.min(size);
        m.max_size = m.max_size.max(size);
        m.max_launching = m.max_launching.max(launching);
        m.max_launching_ratio = js_max(
            m.max_launching_ratio,
            f64::from(launching) / f64::from(size),
        );
        if (group.iter().filter(|o| o.ready).count() as f64) < g {
            m.under_capacity_rounds += 1;
        }
    }
    Lesson::Metrics(m)
}

/// `Math.max` of two numbers: NaN if either is.
fn js_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if b > a {
        b
    } else {
        a
    }
}

/// The ten metrics of `m` that the lesson program computes ([`autoscale()`] leaves the others
/// at their defaults): what a core run is compared with the port on.
pub fn autoscale_lesson_part(m: &autoscale::Metrics) -> autoscale::Metrics {
    autoscale::Metrics {
        min_size: m.min_size,
        max_size: m.max_size,
        max_launching: m.max_launching,
        max_launching_ratio: m.max_launching_ratio,
        under_capacity_rounds: m.under_capacity_rounds,
        launched: m.launched,
        false_replacements: m.false_replacements,
        broken_rounds: m.broken_rounds,
        scaling_actions: m.scaling_actions,
        replacements: m.replacements,
        ..Default::default()
    }
}

/// `bolme/kosum.mjs`'s `kosum`, with every constant taken from `p` (call only with parameters
/// that `p.validate()` accepts), and the options the lesson does not have (a slowdown that
/// ends, a breaker, retries) as the core's documentation states them, written here from that
/// text alone with growable lists: the busy slots' end rounds (`yer`), every ended call's
/// round and outcome, the retries waiting.
pub fn bulkhead(p: &bulkhead::Params) -> Lesson<bulkhead::Metrics> {
    bulkhead_with(p, &mut ParkMiller::new(p.seed))
}

/// The breaker's state in [`bulkhead_with`].
#[derive(Clone, Copy, PartialEq)]
enum Breaker {
    Closed,
    Open { until: u32 },
    HalfOpen { probe: Option<(u32, bool)> },
}

/// [`bulkhead()`] drawing its arrivals and shuffles from `r`.
pub fn bulkhead_with<R: UnitRng>(p: &bulkhead::Params, r: &mut R) -> Lesson<bulkhead::Metrics> {
    let poisson = |r: &mut R, lam: f64| {
        let limit = libm::exp(-lam);
        let mut k = 0usize;
        let mut prod = 1.0;
        loop {
            k += 1;
            prod *= r.next_unit();
            if prod <= limit {
                return k - 1;
            }
        }
    };
    let sizes: Vec<u64> = match p.split {
        Split::Shared => vec![u64::from(p.total_slots)],
        Split::Partitioned(k) => vec![u64::from(k), u64::from(p.total_slots - k)],
    };
    // Per pool, the end round of each busy slot (`yer`).
    let mut yer: Vec<Vec<u32>> = sizes.iter().map(|_| Vec::new()).collect();
    let mut m = bulkhead::Metrics::default();
    let broken = |t: u32| {
        p.mode == Mode::Slowdown
            && t >= p.failure_start
            && p.resilience.failure_end.is_none_or(|e| t < e)
    };
    // Every event call out: (end round, fails); every call ended: (round, failed).
    let mut out: Vec<(u32, bool)> = Vec::new();
    let mut ended: Vec<(u32, bool)> = Vec::new();
    // Retries waiting: `waiting[round][k]`, the requests whose retry k is due then.
    let last_due =
        p.horizon as usize + (bulkhead::MAX_HOLD + p.resilience.retry_backoff) as usize + 2;
    let mut waiting: Vec<Vec<usize>> = vec![vec![0; p.resilience.retries as usize + 1]; last_due];
    let mut state = Breaker::Closed;
    let mut window_from = 0u32;
    let mut order = Vec::new();
    for t in 0..p.horizon {
        for pool in yer.iter_mut() {
            pool.retain(|&x| x > t);
        }
        if p.resilience.breaker.is_some() {
            ended.extend(out.iter().filter(|c| c.0 == t).map(|&(_, f)| (t, f)));
        }
        out.retain(|c| c.0 > t);
        if let Some(b) = p.resilience.breaker {
            let open = |t: u32, m: &mut bulkhead::Metrics| {
                if m.breaker_opened_round.is_none() {
                    m.breaker_opened_round = Some(t);
                }
                Breaker::Open {
                    until: t + b.open_rounds,
                }
            };
            if let Breaker::HalfOpen {
                probe: Some((end, fails)),
            } = state
            {
                if end == t {
                    if fails {
                        state = open(t, &mut m);
                    } else {
                        state = Breaker::Closed;
                        window_from = t + 1;
                    }
                }
            }
            if let Breaker::Open { until } = state {
                if t >= until {
                    state = Breaker::HalfOpen { probe: None };
                }
            }
            // Calls ended before any window's first round are never read again.
            ended.retain(|c| c.0 + b.window > t);
            if state == Breaker::Closed {
                let low = (t + 1).saturating_sub(b.window).max(window_from);
                let window: Vec<bool> = ended
                    .iter()
                    .filter(|c| c.0 >= low && c.0 <= t)
                    .map(|c| c.1)
                    .collect();
                let failed = window.iter().filter(|&&f| f).count() as f64;
                if !window.is_empty() && failed >= b.ratio * window.len() as f64 {
                    state = open(t, &mut m);
                }
            }
        }
        m.busy_slot_rounds += yer.iter().map(|x| x.len() as u64).sum::<u64>();
        order.clear();
        let tracking = poisson(r, p.tracking_rate / p.rounds_per_second);
        let events = poisson(r, p.event_rate / p.rounds_per_second);
        if tracking + events > bulkhead::MAX_ARRIVALS_PER_ROUND {
            return Lesson::OverCapacity;
        }
        order.extend(std::iter::repeat_n(true, tracking));
        order.extend(std::iter::repeat_n(false, events));
        for i in (1..order.len()).rev() {
            let j = libm::floor(r.next_unit() * (i + 1) as f64) as usize;
            order.swap(i, j);
        }
        // The retries due now, first retries first, then the new requests (try 0).
        let mut tries: Vec<(bool, u32)> = Vec::new();
        for k in 1..=p.resilience.retries {
            let due = waiting[t as usize][k as usize];
            tries.extend(std::iter::repeat_n((false, k), due));
        }
        tries.extend(order.iter().map(|&is_tracking| (is_tracking, 0)));
        for (is_tracking, k) in tries {
            let pool = if is_tracking || sizes.len() == 1 {
                0
            } else {
                1
            };
            let idle = |yer: &Vec<Vec<u32>>| -> u64 {
                (0..sizes.len())
                    .filter(|&o| o != pool)
                    .map(|o| sizes[o] - yer[o].len() as u64)
                    .sum()
            };
            if is_tracking {
                if (yer[0].len() as u64) < sizes[0] {
                    yer[0].push(t + p.tracking_hold);
                    m.tracking_served += 1;
                } else {
                    m.tracking_dropped += 1;
                    m.idle_slots += idle(&yer);
                }
                continue;
            }
            let permitted = match state {
                Breaker::Closed => true,
                Breaker::Open { .. } => false,
                Breaker::HalfOpen { probe } => probe.is_none(),
            };
            let fails = broken(t);
            let hold = if fails { p.slow_hold } else { p.event_hold };
            let took = permitted && (yer[pool].len() as u64) < sizes[pool];
            if took {
                yer[pool].push(t + hold);
                out.push((t + hold, fails));
                m.dependency_calls += 1;
                if fails {
                    m.broken_slot_rounds += u64::from(p.slow_hold);
                }
                if let Breaker::HalfOpen { probe: None } = state {
                    state = Breaker::HalfOpen {
                        probe: Some((t + hold, fails)),
                    };
                }
                if fails && k < p.resilience.retries {
                    // It ends in round t + hold - 1: retried from the next on.
                    waiting[(t + hold + p.resilience.retry_backoff) as usize][k as usize + 1] += 1;
                } else {
                    m.event_served += 1;
                }
                continue;
            }
            if permitted {
                m.idle_slots += idle(&yer);
            }
            if k < p.resilience.retries {
                waiting[(t + 1 + p.resilience.retry_backoff) as usize][k as usize + 1] += 1;
            } else {
                m.event_dropped += 1;
            }
        }
    }
    Lesson::Metrics(m)
}

/// One event of the consumers workload.
#[derive(Clone, Debug)]
pub struct QueuedEvent {
    /// Its shipment (`g`).
    pub shipment: u32,
    /// Its step within the shipment (`k`).
    pub step: u32,
    /// Its arrival time (`t`).
    pub arrival: f64,
    /// Its processing time (`sure`).
    pub rounds: u64,
}

/// `rakip/tuketici.mjs`'s `isYuku` before sorting (generation order), generalised as
/// `consumers::Params` documents; `draw(g, i)` is called in the program's order and returns
/// draw `i` of shipment `g` (see `consumers::WorkloadDraws`).
pub fn consumers_workload(
    p: &consumers::Params,
    mut draw: impl FnMut(u32, u32) -> f64,
) -> Vec<QueuedEvent> {
    let steps = p.events_per_shipment;
    let gap = p.queue_gap;
    let mut workload = Vec::new();
    for shipment in 0..p.shipments {
        let start = draw(shipment, 0) * f64::from(p.shipments) * gap;
        for step in 0..steps {
            let arrival = start + f64::from(step) * gap + draw(shipment, 1 + 2 * step) * gap;
            let rounds = if step == steps - 1 {
                u64::from(p.final_event_rounds)
            } else {
                let r = draw(shipment, 2 + 2 * step);
                u64::from(p.event_rounds_min)
                    + libm::floor(r * f64::from(p.event_rounds_spread)) as u64
            };
            workload.push(QueuedEvent {
                shipment,
                step,
                arrival,
                rounds,
            });
        }
    }
    workload
}

/// `rakip/tuketici.mjs`'s `kosum` on its own workload (one generator stream read in
/// generation order), generalised as `consumers::Params` documents (call only with
/// parameters that `p.validate()` accepts).
pub fn consumers(p: &consumers::Params) -> consumers::Metrics {
    let mut r = CounterHash::new(p.seed);
    consumers_on(p, consumers_workload(p, |_, _| r.next_unit()))
}

/// `rakip/tuketici.mjs`'s `kosum` on `workload` (in generation order). Rounds in which every
/// consumer is only counting down are skipped in one step (the lesson's loop would only
/// decrement).
pub fn consumers_on(p: &consumers::Params, mut queue: Vec<QueuedEvent>) -> consumers::Metrics {
    let shipments = p.shipments as usize;
    let steps = p.events_per_shipment;
    // `sort((a, b) => a.t - b.t)`: stable, arrivals are finite.
    queue.sort_by(|a, b| a.arrival.partial_cmp(&b.arrival).expect("finite arrivals"));
    // Per consumer: the event it holds and the rounds left (`kalan`).
    let mut held: Vec<Option<(usize, u64)>> = vec![None; p.consumers as usize];
    let mut last: Vec<i64> = vec![-1; shipments];
    let mut reordered = vec![false; shipments];
    let (mut next, mut round, mut applied) = (0usize, 0u64, 0usize);
    while applied < queue.len() {
        // Skip rounds that would only count down: no consumer is done or empty-handed with
        // events left, so the smallest countdown passes before anything happens.
        let waiting = held.iter().all(|c| match c {
            Some((_, left)) => *left > 0,
            None => next == queue.len(),
        });
        if waiting {
            let skip = held
                .iter()
                .flatten()
                .map(|&(_, left)| left)
                .min()
                .unwrap_or(1)
                - 1;
            for (_, left) in held.iter_mut().flatten() {
                *left -= skip;
            }
            round += skip;
        }
        for (_, left) in held.iter_mut().flatten() {
            if *left > 0 {
                *left -= 1;
            }
        }
        let mut slots = p.slots;
        for c in held.iter_mut() {
            if let Some((e, 0)) = *c {
                if slots == 0 {
                    continue;
                }
                slots -= 1;
                let e = &queue[e];
                let g = e.shipment as usize;
                if i64::from(e.step) < last[g] {
                    reordered[g] = true;
                }
                last[g] = i64::from(e.step);
                applied += 1;
                *c = None;
            }
        }
        for c in held.iter_mut() {
            if c.is_none() && next < queue.len() {
                *c = Some((next, queue[next].rounds));
                next += 1;
            }
        }
        round += 1;
    }
    let wrong = last.iter().filter(|&&k| k != i64::from(steps) - 1).count();
    consumers::Metrics {
        rounds: round,
        reordered_shipments: reordered.iter().filter(|&&b| b).count() as u32,
        wrong_final_state: wrong as u32,
        throughput: queue.len() as f64 / round as f64,
        // The lesson's queue holds every event from round 0.
        max_backlog: queue.len() as u64,
        dropped_events: 0,
        dropped_shipments: 0,
    }
}

/// The lesson's loop with the next question's queue, as `consumers::Params` documents the
/// arrival process, the outage, the buffer and keyed routing (call only with parameters that
/// `p.validate()` accepts; any parameters, with or without those options).
///
/// Written from the documented contract, not from the engine: a list of (round, event) in
/// queue order (the lesson's sorted queue all in round 0, or shipment after shipment at the
/// Poisson arrival rounds, a shipment's events in step order), a `VecDeque` per partition,
/// and the lesson's countdown (`kalan`) per consumer. Stretches with an empty queue and idle
/// consumers are jumped over (the lesson's loop would only count rounds).
pub fn consumers_flow(p: &consumers::Params) -> consumers::Metrics {
    use std::collections::VecDeque;
    let mut r = CounterHash::new(p.seed);
    let lesson = consumers_workload(p, |_, _| r.next_unit());
    let mut arrivals: Vec<(u64, QueuedEvent)> = Vec::new();
    match p.flow.arrival_rate {
        None => {
            let mut queue = lesson.clone();
            queue.sort_by(|a, b| a.arrival.partial_cmp(&b.arrival).expect("finite"));
            arrivals.extend(queue.into_iter().map(|e| (0, e)));
        }
        Some(rate) => {
            let stream = consumers::ArrivalStream::new(p.seed);
            let mut time = 0.0f64;
            for g in 0..p.shipments {
                // An exponential gap of mean 1 / rate from the stream's draw g.
                time += -libm::log1p(-stream.unit(g)) / rate;
                let mut round = libm::floor(time) as u64;
                if let Some(o) = p.flow.outage {
                    if u64::from(o.start) <= round && round < u64::from(o.end) {
                        round = u64::from(o.end);
                    }
                }
                let steps = p.events_per_shipment as usize;
                for e in &lesson[g as usize * steps..(g as usize + 1) * steps] {
                    arrivals.push((round, e.clone()));
                }
            }
        }
    }
    let n = p.consumers as usize;
    let keyed = p.flow.routing == consumers::Routing::Keyed;
    let mut parts: Vec<VecDeque<QueuedEvent>> = vec![VecDeque::new(); if keyed { n } else { 1 }];
    let buffer = p.flow.buffer.map_or(u64::MAX, u64::from);
    let shipments = p.shipments as usize;
    let mut held: Vec<Option<(QueuedEvent, u64)>> = vec![None; n];
    let mut last: Vec<i64> = vec![-1; shipments];
    let mut reordered = vec![false; shipments];
    let mut dropped_shipment = vec![false; shipments];
    let (mut next, mut round, mut applied, mut queued) = (0usize, 0u64, 0u64, 0u64);
    let (mut max_backlog, mut dropped) = (0u64, 0u64);
    loop {
        // Nothing queued, nobody busy: the next round that matters is the next arrival's.
        if queued == 0 && held.iter().all(Option::is_none) {
            match arrivals.get(next) {
                Some(&(t, _)) => round = round.max(t),
                None => break,
            }
        }
        // Rounds that would only count down (every consumer busy and not done, or free with
        // an empty partition) up to the next arrival: skipped in one step, as in `consumers_on`.
        let waiting = held.iter().enumerate().all(|(i, c)| match c {
            Some((_, left)) => *left > 0,
            None => parts[if keyed { i } else { 0 }].is_empty(),
        });
        if waiting {
            let until_arrival = arrivals.get(next).map_or(u64::MAX, |&(t, _)| t - round);
            let skip = held
                .iter()
                .flatten()
                .map(|(_, left)| *left)
                .min()
                .unwrap_or(1)
                .saturating_sub(1)
                .min(until_arrival);
            for (_, left) in held.iter_mut().flatten() {
                *left -= skip;
            }
            round += skip;
        }
        while let Some((t, e)) = arrivals.get(next) {
            if *t != round {
                break;
            }
            if queued < buffer {
                let part = if keyed { e.shipment as usize % n } else { 0 };
                parts[part].push_back(e.clone());
                queued += 1;
            } else {
                dropped += 1;
                dropped_shipment[e.shipment as usize] = true;
            }
            next += 1;
        }
        max_backlog = max_backlog.max(queued);
        for (_, left) in held.iter_mut().flatten() {
            if *left > 0 {
                *left -= 1;
            }
        }
        let mut slots = p.slots;
        for c in held.iter_mut() {
            if let Some((e, 0)) = c {
                if slots == 0 {
                    continue;
                }
                slots -= 1;
                let g = e.shipment as usize;
                if i64::from(e.step) < last[g] {
                    reordered[g] = true;
                }
                last[g] = i64::from(e.step);
                applied += 1;
                *c = None;
            }
        }
        for (i, c) in held.iter_mut().enumerate() {
            if c.is_none() {
                let part = if keyed { i } else { 0 };
                if let Some(e) = parts[part].pop_front() {
                    queued -= 1;
                    let rounds = e.rounds;
                    *c = Some((e, rounds));
                }
            }
        }
        round += 1;
        if next == arrivals.len() && queued == 0 && held.iter().all(Option::is_none) {
            break;
        }
    }
    let wrong = last
        .iter()
        .filter(|&&k| k != i64::from(p.events_per_shipment) - 1)
        .count();
    consumers::Metrics {
        rounds: round,
        reordered_shipments: reordered.iter().filter(|&&b| b).count() as u32,
        wrong_final_state: wrong as u32,
        throughput: applied as f64 / round as f64,
        max_backlog,
        dropped_events: dropped,
        dropped_shipments: dropped_shipment.iter().filter(|&&b| b).count() as u32,
    }
}

/// Whether some shipment's events in `workload` (generation order) arrive out of step order.
pub fn out_of_order(workload: &[QueuedEvent], shipment: u32) -> bool {
    workload.windows(2).any(|w| {
        w[0].shipment == shipment && w[1].shipment == shipment && w[1].arrival < w[0].arrival
    })
}
