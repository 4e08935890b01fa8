//! The autoscale model's limits: the largest group, run and option each engine and each
//! copy of the parameters has room for. The folder's ground floor: this file imports
//! nothing from its siblings, and every sibling that checks a limit imports it from here.

/// The most instances a group may hold at once.
pub const MAX_GROUP_SIZE: usize = 256;
/// The most permanent-failure rounds one run may list.
pub const MAX_FAILURE_ROUNDS: usize = 64;
/// The most rounds one run may simulate.
pub const MAX_ROUNDS: u32 = 10_000_000;

/// The most rounds per demand period (keeps the sine's argument below 2^20 · π/2).
pub const MAX_ROUNDS_PER_PERIOD: f64 = 131_000.0;
/// The longest hook wait, in rounds: Alibaba caps a wait at six hours (one round = 60 s).
pub const MAX_HOOK_ROUNDS: u32 = 360;
/// The longest health-check latency, in rounds: an instance's results in transit fit one
/// byte, which keeps its record at 16 bytes (a board's stack holds 256 of them).
pub const MAX_CHECK_LATENCY: u32 = 7;
/// The longest apply delay, in rounds (the requests in flight sit in a ring of
/// `IN_FLIGHT_SLOTS`).
pub const MAX_APPLY_DELAY: u32 = 64;
/// Slots of a ring of launches in flight, by the round (modulo this) in which they join:
/// one per round of apply delay, plus this round (the group's ring, and the spot class's).
pub(crate) const IN_FLIGHT_SLOTS: usize = MAX_APPLY_DELAY as usize + 1;
/// The longest health-check interval, in rounds (a week of one-minute rounds).
pub const MAX_CHECK_INTERVAL: u32 = 10_080;
/// The most step adjustments one step policy may list.
pub const MAX_STEPS: usize = 20;
/// Rounds of the fast engines' booting ring: boots of up to this many rounds take the fast
/// path.
pub(crate) const BOOT_RING: usize = 8;
