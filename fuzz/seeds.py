#!/usr/bin/env python3
"""Writes the committed seed corpus: named parameter sets, encoded as the `arbitrary` impls in
capsim-core read them (core/src/fuzzing.rs and each model's `impl Arbitrary for Params`).

A field is one byte 0 (the lesson's value) or 255 followed by the value (any value: a u32 in
4 little-endian bytes; a double as 8, then its 8 little-endian bytes). The consumers' queue
gap has one more byte before it (1: the narrow typical range). Check a file with
`cargo +nightly fuzz fmt <target> fuzz/corpus/<target>/<file>`.
Run from the repository root: python3 fuzz/seeds.py
"""
import os
import struct

L = object()  # the lesson's value


def u32(v):
    return b"\x00" if v is L else b"\xff" + struct.pack("<I", v)


def f64(v):
    return b"\x00" if v is L else b"\xff\x08" + struct.pack("<d", v)


def autoscale(threshold=L, cooldown=L, seed=L, rounds=L, capacity=L, boot_rounds=L,
              transient_failure=L, failure_rounds=L, demand_base=L, demand_amplitude=L,
              demand_period=L, surge_start=L, surge_end=L, surge=L):
    out = u32(rounds)
    if failure_rounds is L:
        out += b"\x00"  # ratio(1, 4): 1 + 0 % 4 <= 1
    else:
        out += b"\x01" + bytes([len(failure_rounds)]) + b"".join(u32(t) for t in failure_rounds)
    out += u32(threshold) + u32(cooldown) + u32(seed) + f64(capacity) + u32(boot_rounds)
    out += f64(transient_failure) + f64(demand_base) + f64(demand_amplitude)
    out += f64(demand_period) + u32(surge_start) + u32(surge_end) + f64(surge)
    return out


def bulkhead(split="shared", mode="healthy", seed=L, total_slots=L, rounds_per_second=L,
             horizon=L, failure_start=L, tracking_rate=L, event_rate=L, tracking_hold=L,
             event_hold=L, slow_hold=L):
    out = u32(total_slots)
    out += b"\x01" if split == "shared" else b"\x00" + u32(split)
    out += b"\x01" if mode == "healthy" else b"\x00"
    out += f64(rounds_per_second) + u32(horizon) + u32(seed) + u32(failure_start)
    out += f64(tracking_rate) + f64(event_rate)
    out += u32(tracking_hold) + u32(event_hold) + u32(slow_hold)
    return out


def consumers(consumers=L, slots=L, shipments=L, events_per_shipment=L, queue_gap=L, seed=L,
              final_event_rounds=L, event_rounds_min=L, event_rounds_spread=L,
              arrival_rate=None, outage=None, buffer=None, keyed=False):
    """The flow options (each `ratio(3, 4)`: byte 0 off, byte 3 on) take L for the fuzz
    value the impl names (0.5 shipments a round, 1000..2200, 300 events)."""
    out = (u32(consumers) + u32(slots) + u32(shipments) + u32(events_per_shipment)
           + b"\x01" + f64(queue_gap) + u32(seed) + u32(final_event_rounds) + u32(event_rounds_min)
           + u32(event_rounds_spread))
    out += b"\x00" if arrival_rate is None else b"\x03" + f64(arrival_rate)
    out += b"\x00" if outage is None else b"\x03" + u32(outage[0]) + u32(outage[1])
    out += b"\x00" if buffer is None else b"\x03" + u32(buffer)
    return out + (b"\x03" if keyed else b"\x00")


def hook(h):
    """A lifecycle hook: None, or (rounds, "continue" | "abandon")."""
    if h is None:
        return b"\x01"  # an odd byte: `arbitrary::<bool>()` is true, no hook
    rounds, result = h
    return b"\x00" + u32(rounds) + (b"\x00" if result == "abandon" else b"\x01")


ACTIONS = ["standby", "unstandby", "protect", "unprotect"]
POLICIES = ["lesson", "oldest", "newest"]


def lifecycle(launch_hook=None, terminate_hook=None, stockout=None, events=(),
              count_pending=False, protected=L, removal_policy="lesson", reclaim="release",
              restart_rounds=L, check_latency=L, apply_delay=L):
    """`Lifecycle`'s fields in the order its `Arbitrary` impl reads them (L: option off)."""
    out = hook(launch_hook) + hook(terminate_hook)
    if stockout is None:
        out += b"\x01"
    else:
        out += b"\x00" + u32(stockout[0]) + u32(stockout[1])
    out += bytes([len(events)])  # int_in_range(0..=16): the byte modulo 17
    for round_, action, count in events:
        out += bytes([ACTIONS.index(action)]) + u32(round_) + u32(count)
    out += bytes([int(count_pending)]) + u32(protected) + bytes([POLICIES.index(removal_policy)])
    out += bytes([int(reclaim == "stop")]) + u32(restart_rounds) + u32(check_latency)
    out += u32(apply_delay)
    return out


ISSUE_BULKHEAD = dict(split="shared", mode="slowdown", total_slots=8300, tracking_rate=6400.0,
                      event_rate=6400.0, tracking_hold=127, event_hold=127, slow_hold=1,
                      failure_start=127, horizon=1500, seed=2078)

CORPUS = {
    "autoscale": {
        "lesson-bad-pair": autoscale(),
        "lesson-good-pair": autoscale(threshold=5, cooldown=8),
        "issue-negative-demand": autoscale(demand_base=100.0),
        "issue-runaway-scale-in": autoscale(demand_amplitude=-1e17, rounds=50),
        "group-full": autoscale(demand_base=30000.0),
        "no-failures": autoscale(failure_rounds=[], transient_failure=0.0, boot_rounds=0),
    },
    "lifecycle": {
        # the group's parameters, then its lifecycle options
        "hooks-stop-oldest": autoscale() + lifecycle(launch_hook=(3, "continue"),
                                                     terminate_hook=(2, "continue"),
                                                     removal_policy="oldest", reclaim="stop"),
        "abandon-latency-delay": autoscale(threshold=2, cooldown=0)
        + lifecycle(launch_hook=(1, "abandon"), count_pending=True, check_latency=7,
                    apply_delay=12),
        "stockout-and-actions": autoscale() + lifecycle(
            stockout=(150, 190), protected=4, removal_policy="newest",
            events=[(0, "protect", 3), (50, "standby", 2), (120, "unstandby", 2),
                    (200, "unprotect", 3)]),
        "inert-options": autoscale() + lifecycle(stockout=(240, 300),
                                                 events=[(240, "standby", 5)]),
        "extremes": autoscale(demand_base=20000.0, rounds=100)
        + lifecycle(launch_hook=(360, "abandon"), terminate_hook=(360, "continue"),
                    protected=256, reclaim="stop", restart_rounds=6, check_latency=7,
                    apply_delay=64),
    },
    "formula_lifecycle": {
        # which example formula, the evaluation interval (5 + n % 60), the group, its lifecycle
        "demand-lesson-day": b"\x02" + b"\x0a\x00" + autoscale() + lifecycle(),
        "zero-hooks-stop": b"\x0e" + b"\x00\x00" + autoscale()
        + lifecycle(launch_hook=(3, "continue"), terminate_hook=(2, "continue"), reclaim="stop"),
        "working-hours-stockout": b"\x0b" + b"\x3b\x00" + autoscale(rounds=400) + lifecycle(
            stockout=(10, 60), protected=4, events=[(5, "standby", 2)], apply_delay=3),
    },
    "bulkhead": {
        "lesson-shared-healthy": bulkhead(),
        "lesson-partitioned-slowdown": bulkhead(split=24, mode="slowdown"),
        "issue-release-calendar": bulkhead(**ISSUE_BULKHEAD),
        "too-many-arrivals": bulkhead(tracking_rate=6400.0, event_rate=6400.0),
    },
    "bulkhead_batch": {
        "lesson-layouts": bulkhead() + bulkhead(split=24) + bulkhead(mode="slowdown")
        + bulkhead(split=16, mode="slowdown") + b"\xff",
        "mismatch": bulkhead() + bulkhead(seed=7) + bulkhead() + bulkhead() + b"\x00",
        "issue-release-calendar": bulkhead(**ISSUE_BULKHEAD) + bulkhead(**ISSUE_BULKHEAD)
        + bulkhead(split=4150) + bulkhead() + b"\xff",
    },
    "consumers": {
        "lesson-n1-s2": consumers(),
        "lesson-n8-s2": consumers(consumers=8, shipments=500),
        "lesson-n6-s4": consumers(consumers=6, slots=4, shipments=500),
        "gap-zero": consumers(consumers=4, queue_gap=0.0, shipments=300),
        "slow-final": consumers(consumers=3, final_event_rounds=1_000_000, shipments=100),
        # The lesson's next question: 0.5 shipments a round, an outage 1000..2200, 300 events.
        "next-question": consumers(shipments=290, arrival_rate=L, outage=(L, L), buffer=L),
        "next-question-keyed": consumers(consumers=8, shipments=290, arrival_rate=L,
                                         outage=(L, L), buffer=L, keyed=True),
        "keyed-lesson-queue": consumers(consumers=8, shipments=290, keyed=True),
    },
    "consumers_ties": {
        # then a table of 8 bytes, and its length less one
        "lesson-coarse": consumers(consumers=8, shipments=200) + bytes([0, 128, 64, 255, 1, 7, 0, 0, 5]),
        "all-zero": consumers(consumers=4, shipments=100) + bytes(9),
        "two-values": consumers(consumers=3, slots=1, shipments=300) + bytes([0, 128] + [0] * 6 + [1]),
        "gap-zero": consumers(consumers=5, queue_gap=0.0, shipments=100) + bytes([3, 9] + [0] * 6 + [1]),
    },
    "consumers_windowed": {
        # then a table of 8 bytes, and its length less one
        "lesson-n8": consumers(consumers=8, shipments=290) + bytes([0, 128, 64, 255, 1, 7, 0, 0, 5]),
        "gap-zero": consumers(consumers=5, queue_gap=0.0, shipments=200) + bytes(9),
        "gap-huge": consumers(consumers=64, slots=3, events_per_shipment=126, queue_gap=1e9,
                              shipments=16) + bytes([3, 9] + [0] * 6 + [1]),
        "one-shipment": consumers(consumers=2, shipments=1, events_per_shipment=126)
        + bytes([255] + [0] * 7 + [0]),
    },
    "consumers_batch": {
        "lesson-table": consumers(shipments=500) + consumers(consumers=2) + consumers(consumers=4)
        + consumers(consumers=8) + consumers(consumers=6, slots=4) + b"\x03\xff",
        "five-lanes": consumers(shipments=100) * 5 + b"\x04\xff",
        "mismatch": consumers(shipments=100) + consumers(seed=5) + consumers() + consumers()
        + consumers() + b"\x02\x00",
    },
    "draws": {
        # which model (1: bulkhead), both models' parameters, 8 draw bytes, their count less one
        "autoscale-always-failing": b"\x00" + autoscale() + bulkhead() + bytes([20] + [0] * 7 + [0]),
        "autoscale-at-the-probability": b"\x00" + autoscale(transient_failure=0.5)
        + bulkhead() + bytes([128, 127, 255, 0] + [0] * 4 + [3]),
        "bulkhead-near-one": b"\x01" + autoscale() + bulkhead() + bytes([255] + [0] * 7 + [0]),
        "bulkhead-mixed": b"\x01" + autoscale() + bulkhead(split=24, mode="slowdown")
        + bytes([0, 128, 255, 3, 200, 17, 90, 254, 7]),
    },
    "cli_lists": {
        "integers": b"2,3,5",
        "ranges": b"1..=3,7,10..12",
        "numbers": b"0.08,1e-3,-5",
        "splits": b"shared,28,24,1..=3",
        "modes": b"healthy,slowdown",
        "failure-rounds": b"40:95:170,none",
        "empty-range": b"5..5",
        "hooks": b"3,none,2..=4:abandon",
        "lifecycle-words": b"yes,no,lesson,oldest,newest,release,stop",
        "stockouts": b"150..190,1..=2,none",
        "events": b"0:protect:3+50:standby:1,none",
    },
}

if __name__ == "__main__":
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
    for target, files in CORPUS.items():
        os.makedirs(os.path.join(root, target), exist_ok=True)
        for name, data in files.items():
            with open(os.path.join(root, target, name), "wb") as f:
                f.write(data)
    print("wrote", sum(len(f) for f in CORPUS.values()), "files under", root)
