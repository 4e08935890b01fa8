//! The lane engines: one configuration's run on the queue.

pub(crate) mod event;
pub(crate) mod wheel;
pub(crate) mod whole;

/// `ready` of a consumer holding nothing.
pub(crate) const IDLE: u64 = u64::MAX;
