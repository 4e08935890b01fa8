//! The queue sorted whole: every event generated at once and sorted into queue order.

use super::lanes::wheel::wheel_fits;
use super::spec::Workload;
use super::workload::pack;
use super::workload::WorkloadDraws;

/// Storage for sorting a workload of up to `Q` events whole: per event a 128-bit sort key
/// (arrival bits, then the packed event) and a 32-bit bucket count, reused for the sorted
/// packed events.
pub(crate) struct SortedSpace<const Q: usize> {
    pub(crate) keys: [u128; Q],
    pub(crate) events: [u32; Q],
}

impl<const Q: usize> SortedSpace<Q> {
    pub(crate) const fn new() -> Self {
        Self {
            keys: [0; Q],
            events: [0; Q],
        }
    }
}

/// Generates the workload whole into `keys` and `events` and sorts it into queue order,
/// returning the packed events ([`pack`]); `None` when it has more events than they hold
/// or a shipment's arrivals are out of step order (the streaming [`Queue`](super::Queue) then reports
/// that).
///
/// The queue order is the program's stable sort by arrival: (arrival, shipment, step), as
/// generation order is (shipment, step). Each event's key is one `u128`, the arrival's bits
/// (non-negative, never −0 or NaN: they order like the numbers) above its packed event
/// (shipment, then step, above the rounds), so sorting keys sorts events and no two keys are
/// equal. A counting sort by `floor(arrival · events / top)` (monotone in the arrival: a
/// product by a positive constant and a floor never reverse an order) scatters them into
/// as many buckets as events, about one each; each bucket is then sorted exactly. The
/// draws are made again for the scatter instead of being stored (a hash each, ≈ 1.5 ns).
pub(crate) fn sort_whole<'s, D: WorkloadDraws>(
    w: &Workload,
    draws: &mut D,
    order: &mut [u16],
    keys: &mut [u128],
    events: &'s mut [u32],
) -> Option<&'s [u32]> {
    let total = usize::try_from(w.events()).ok()?;
    if total == 0 || total > keys.len().min(events.len()) || !wheel_fits(w) {
        return None;
    }
    let order = order.get_mut(..w.shipments as usize)?;
    roughly_by_start(order, draws);
    let keys = keys.get_mut(..total)?;
    let counts = events.get_mut(..total)?;
    let scale = f64::from(w.shipments);
    let gap = w.queue_gap;
    let steps = w.events_per_shipment;
    // Every arrival is at most (shipments + steps) · gap: a start below shipments · gap,
    // then under `steps` gaps. Rounding may pass it: the last bucket takes the rest.
    let top = (scale + f64::from(steps)) * gap;
    let per = if top > 0.0 { total as f64 / top } else { 0.0 };
    // Through `u32` (every bucket fits: `total` is at most 65,536 × 126), a cheaper
    // saturating conversion than to `usize`.
    let last = total as u32 - 1;
    let bucket = |t: f64| ((t * per) as u32).min(last) as usize;
    counts.fill(0);
    for &g in order.iter() {
        let g = u32::from(g);
        let start = w.start(draws.draw(g, 0));
        let mut previous = start;
        for k in 0..steps {
            let t = w.arrival(start, k, draws.draw(g, 1 + 2 * k));
            if t < previous {
                return None;
            }
            previous = t;
            if let Some(c) = counts.get_mut(bucket(t)) {
                *c += 1;
            }
        }
    }
    let mut sum = 0;
    let mut largest = 0;
    for c in counts.iter_mut() {
        let n = *c;
        largest = largest.max(n);
        *c = sum;
        sum += n;
    }
    for &g in order.iter() {
        let g = u32::from(g);
        let start = w.start(draws.draw(g, 0));
        for k in 0..steps {
            let t = w.arrival(start, k, draws.draw(g, 1 + 2 * k));
            let rounds = w.rounds(k, || draws.draw(g, 2 + 2 * k));
            let key = (u128::from(t.to_bits()) << 64) | u128::from(pack(g, k, rounds));
            if let Some(c) = counts.get_mut(bucket(t)) {
                if let Some(slot) = keys.get_mut(*c as usize) {
                    *slot = key;
                }
                *c += 1;
            }
        }
    }
    if largest <= SMALL_BUCKET {
        // No key is out of place by more than its bucket: one insertion sort over the whole
        // array moves each key only within its bucket, with no loop over the buckets.
        insertion_sort(keys);
    } else {
        // Each count is now its bucket's end.
        let mut begin = 0;
        for &end in counts.iter() {
            let end = end as usize;
            if let Some(b) = keys.get_mut(begin..end) {
                if b.len() <= SMALL_BUCKET as usize {
                    insertion_sort(b);
                } else {
                    b.sort_unstable();
                }
            }
            begin = end;
        }
    }
    for (e, &k) in counts.iter_mut().zip(keys.iter()) {
        *e = k as u32;
    }
    Some(counts)
}

/// Orders shipments `0..order.len()` roughly by start: a counting sort into 256 buckets by
/// the first draw (the start grows with it), generation order within a bucket. Visiting
/// shipments in this order, [`sort_whole`] counts and scatters arrivals into a window of
/// buckets a few kilobytes wide that moves along (cache hits), not all over its arrays.
pub(crate) fn roughly_by_start<D: WorkloadDraws>(order: &mut [u16], draws: &mut D) {
    const BUCKETS: usize = 256;
    let bucket = |r: f64| ((r * BUCKETS as f64) as usize).min(BUCKETS - 1);
    let mut next = [0u32; BUCKETS];
    for g in 0..order.len() as u32 {
        next[bucket(draws.draw(g, 0))] += 1;
    }
    let mut sum = 0;
    for n in next.iter_mut() {
        let count = *n;
        *n = sum;
        sum += count;
    }
    for g in 0..order.len() as u32 {
        let b = bucket(draws.draw(g, 0));
        if let Some(slot) = order.get_mut(next[b] as usize) {
            *slot = g as u16; // g < MAX_SHIPMENTS = 2^16
        }
        next[b] += 1;
    }
}

/// The largest bucket [`sort_whole`] sorts by insertion.
pub(crate) const SMALL_BUCKET: u32 = 16;

/// Sorts keys in place by insertion (no two equal): for keys each at most a few places
/// from where they belong.
#[inline(always)]
pub(crate) fn insertion_sort(b: &mut [u128]) {
    for i in 1..b.len() {
        let x = b[i];
        let mut j = i;
        while j > 0 && b[j - 1] > x {
            b[j] = b[j - 1];
            j -= 1;
        }
        b[j] = x;
    }
}
