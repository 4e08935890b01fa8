//! The queue merged on the fly: the workload regenerated in arrival order, never stored.

use core::cmp::Ordering;

use super::spec::{Params, Workload};
use super::workload::pack;
use super::workload::WorkloadDraws;
use crate::error::{Capacity, Error};

/// The in-flight capacity a [`Workspace`](super::Workspace) has unless told otherwise.
pub const DEFAULT_IN_FLIGHT: usize = 256;

/// Caller-provided storage for regenerating the queue: the shipments sorted by start time
/// (2 bytes per shipment, up to `N`) and the heap of shipments in flight (up to `F`, 24 bytes
/// each).
pub struct QueueSpace<const N: usize, const F: usize = DEFAULT_IN_FLIGHT> {
    pub(crate) order: [u16; N],
    in_flight: [Pending; F],
}

impl<const N: usize, const F: usize> QueueSpace<N, F> {
    /// Returns empty storage.
    pub const fn new() -> Self {
        Self {
            order: [0; N],
            in_flight: [Pending::ZERO; F],
        }
    }
}

impl<const N: usize, const F: usize> Default for QueueSpace<N, F> {
    fn default() -> Self {
        Self::new()
    }
}

/// One queued event.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Event {
    /// Its shipment (`g`).
    pub shipment: u32,
    /// Its step within the shipment (`k`).
    pub step: u32,
    /// Rounds a consumer needs to process it (`sure`).
    pub rounds: u32,
    /// Its arrival time in the queue (`t`).
    pub arrival: f64,
}

/// An in-flight shipment's next event, ordered by (arrival, shipment).
#[derive(Clone, Copy)]
pub(crate) struct Pending {
    arrival: f64,
    /// The shipment's start time, kept to compute its next arrival with one draw.
    start: f64,
    shipment: u16,
    step: u8,
}

impl Event {
    pub(crate) const ZERO: Event = Event {
        shipment: 0,
        step: 0,
        rounds: 0,
        arrival: 0.0,
    };
}

impl Pending {
    pub(crate) const ZERO: Pending = Pending {
        arrival: 0.0,
        start: 0.0,
        shipment: 0,
        step: 0,
    };

    pub(crate) fn before(&self, other: &Pending) -> bool {
        // Arrivals are finite and non-negative (never -0), so their bit patterns order like
        // the numbers: one integer comparison, no branches on NaN.
        (self.arrival.to_bits(), self.shipment) < (other.arrival.to_bits(), other.shipment)
    }
}

/// A binary min-heap of [`Pending`] events in caller-provided storage.
pub(crate) struct InFlight<'w> {
    items: &'w mut [Pending],
    len: usize,
}

impl<'w> InFlight<'w> {
    pub(crate) fn new(items: &'w mut [Pending]) -> Self {
        Self { items, len: 0 }
    }

    pub(crate) fn peek(&self) -> Option<&Pending> {
        self.items[..self.len].first()
    }

    pub(crate) fn push(&mut self, p: Pending) -> Result<(), Error> {
        if self.len == self.items.len() {
            return Err(Error::CapacityExceeded {
                capacity: Capacity::ShipmentsInFlight,
                limit: self.items.len() as u32,
            });
        }
        let mut i = self.len;
        self.len += 1;
        while i > 0 {
            let parent = (i - 1) / 2;
            if !p.before(&self.items[parent]) {
                break;
            }
            self.items[i] = self.items[parent];
            i = parent;
        }
        self.items[i] = p;
        Ok(())
    }

    /// Replaces the minimum with `p` (or removes it, for `None`) and restores the heap.
    pub(crate) fn replace_top(&mut self, p: Option<Pending>) {
        let p = match p {
            Some(p) => p,
            None => {
                self.len -= 1;
                if self.len == 0 {
                    return;
                }
                self.items[self.len]
            }
        };
        let mut i = 0;
        loop {
            let left = 2 * i + 1;
            if left >= self.len {
                break;
            }
            let right = left + 1;
            let child = if right < self.len && self.items[right].before(&self.items[left]) {
                right
            } else {
                left
            };
            if !self.items[child].before(&p) {
                break;
            }
            self.items[i] = self.items[child];
            i = child;
        }
        self.items[i] = p;
    }
}

/// Sorts shipments `0..order.len()` into `order` by (start time, shipment), where a
/// shipment's start is [`Workload::start`] of its first draw.
///
/// A counting sort into 256 buckets by the first draw (the start grows with it), then each
/// bucket sorted exactly; no storage beyond `order` and 2 KiB of stack. The start is
/// recomputed from the draw, never stored.
fn sort_by_start<D: WorkloadDraws>(order: &mut [u16], draws: &mut D, w: &Workload) {
    const BUCKETS: usize = 256;
    let n = order.len();
    if w.queue_gap == 0.0 {
        // Every start is 0: the queue keeps generation order.
        for (g, slot) in order.iter_mut().enumerate() {
            *slot = g as u16; // n <= 65536
        }
        return;
    }
    let bucket = |r: f64| ((r * BUCKETS as f64) as usize).min(BUCKETS - 1);
    let mut ends = [0u32; BUCKETS];
    for g in 0..n as u32 {
        ends[bucket(draws.draw(g, 0))] += 1;
    }
    let mut next = [0u32; BUCKETS];
    let mut sum = 0;
    for (end, first) in ends.iter_mut().zip(next.iter_mut()) {
        *first = sum;
        sum += *end;
        *end = sum;
    }
    for g in 0..n as u32 {
        let b = bucket(draws.draw(g, 0));
        if let Some(slot) = order.get_mut(next[b] as usize) {
            *slot = g as u16;
        }
        next[b] += 1;
    }
    let mut start_of = |g: u16| w.start(draws.draw(u32::from(g), 0));
    let mut begin = 0;
    for &end in &ends {
        let bucket = &mut order[begin..end as usize];
        if bucket.len() > 1 {
            bucket.sort_unstable_by(|&a, &b| {
                start_of(a)
                    .partial_cmp(&start_of(b))
                    .unwrap_or(Ordering::Equal)
                    .then(a.cmp(&b))
            });
        }
        begin = end as usize;
    }
    // Rounding can give neighbouring buckets equal starts: such a run goes by shipment.
    let mut i = 0;
    while i < n {
        let s = start_of(order[i]);
        let mut j = i + 1;
        while j < n && start_of(order[j]) == s {
            j += 1;
        }
        if j - i > 1 {
            order[i..j].sort_unstable();
        }
        i = j;
    }
}

/// The workload in arrival order, regenerated on the fly (an iterator of events).
pub struct Queue<'w, D> {
    draws: D,
    order: &'w mut [u16],
    in_flight: InFlight<'w>,
    next_start: usize,
    /// The start time of `order[next_start]`, once computed.
    next_start_time: Option<f64>,
    /// All the queue reads of the parameters.
    w: Workload,
    failed: bool,
}

impl<'w, D: WorkloadDraws> Queue<'w, D> {
    /// Returns the queue for `params`, sorting the shipments into `space` (which must hold
    /// `params.shipments`).
    pub fn new<const N: usize, const F: usize>(
        params: &Params,
        draws: D,
        space: &'w mut QueueSpace<N, F>,
    ) -> Result<Self, Error> {
        params.validate()?;
        Self::from_parts(
            &params.workload(),
            draws,
            &mut space.order,
            &mut space.in_flight,
        )
    }

    /// The queue of a valid workload `w`.
    fn from_parts(
        w: &Workload,
        mut draws: D,
        order: &'w mut [u16],
        in_flight: &'w mut [Pending],
    ) -> Result<Self, Error> {
        let n = w.shipments as usize;
        let capacity = order.len() as u32;
        let order = order.get_mut(..n).ok_or(Error::CapacityExceeded {
            capacity: Capacity::WorkspaceShipments,
            limit: capacity,
        })?;
        sort_by_start(order, &mut draws, w);
        Ok(Self {
            draws,
            order,
            in_flight: InFlight::new(in_flight),
            next_start: 0,
            next_start_time: None,
            w: *w,
            failed: false,
        })
    }

    #[inline(always)]
    fn start(&mut self, shipment: u32) -> f64 {
        self.w.start(self.draws.draw(shipment, 0))
    }

    #[inline(always)]
    fn arrival(&mut self, start: f64, shipment: u32, step: u32) -> f64 {
        let jitter = self.draws.draw(shipment, 1 + 2 * step);
        self.w.arrival(start, step, jitter)
    }

    #[inline(always)]
    fn rounds(&mut self, shipment: u32, step: u32) -> u32 {
        let draws = &mut self.draws;
        self.w.rounds(step, || draws.draw(shipment, 2 + 2 * step))
    }

    fn pending(&mut self, start: f64, shipment: u32, step: u32) -> Pending {
        Pending {
            arrival: self.arrival(start, shipment, step),
            start,
            shipment: shipment as u16,
            step: step as u8,
        }
    }

    fn next_event(&mut self) -> Result<Option<Event>, Error> {
        // Start every shipment that could come before the earliest in-flight event: its
        // first event arrives no earlier than its start, and ties go to the lower shipment.
        while let Some(&g) = self.order.get(self.next_start) {
            let g = u32::from(g);
            let start = match self.next_start_time {
                Some(t) => t,
                None => {
                    let t = self.start(g);
                    self.next_start_time = Some(t);
                    t
                }
            };
            let due = match self.in_flight.peek() {
                None => true,
                Some(top) => match start.partial_cmp(&top.arrival) {
                    Some(Ordering::Less) => true,
                    Some(Ordering::Equal) => g < u32::from(top.shipment),
                    _ => false,
                },
            };
            if !due {
                break;
            }
            let first = self.pending(start, g, 0);
            self.in_flight.push(first)?;
            self.next_start += 1;
            self.next_start_time = None;
        }
        let Some(&top) = self.in_flight.peek() else {
            return Ok(None);
        };
        let shipment = u32::from(top.shipment);
        let step = u32::from(top.step);
        let next = if step + 1 < self.w.events_per_shipment {
            let next = self.pending(top.start, shipment, step + 1);
            // The stream relies on a shipment's events arriving in step order.
            if next.arrival < top.arrival {
                return Err(Error::WorkloadOrder { shipment });
            }
            Some(next)
        } else {
            None
        };
        self.in_flight.replace_top(next);
        let rounds = self.rounds(shipment, step);
        Ok(Some(Event {
            shipment,
            step,
            rounds,
            arrival: top.arrival,
        }))
    }
}

impl<D: WorkloadDraws> Queue<'_, D> {
    /// Writes the next events to `buf`, packed for the timing wheel (see [`pack`]), and
    /// returns how many: fewer than `buf.len()` only once the queue is exhausted. Only for
    /// processing times below 256 rounds (longer ones are cut to 255).
    pub(crate) fn fill_packed(&mut self, buf: &mut [u32]) -> Result<usize, Error> {
        if self.failed {
            return Ok(0);
        }
        for (len, slot) in buf.iter_mut().enumerate() {
            match self.next_event() {
                Ok(Some(e)) => {
                    *slot = pack(e.shipment, e.step, e.rounds);
                }
                Ok(None) => return Ok(len),
                Err(e) => {
                    self.failed = true;
                    return Err(e);
                }
            }
        }
        Ok(buf.len())
    }
}

impl<D: WorkloadDraws> Iterator for Queue<'_, D> {
    type Item = Result<Event, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let item = self.next_event().transpose();
        if matches!(item, Some(Err(_))) {
            self.failed = true;
        }
        item
    }
}
