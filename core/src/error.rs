//! The one error type: bad parameters, and fixed capacities reached during a run.

use core::fmt;

/// Returned instead of panicking: by `Params::validate` for bad parameters, and by a run that
/// reaches one of the documented fixed capacities.
///
/// `param` names the parameter as the CLI flag spells it (without the leading `--`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Error {
    /// A parameter is outside the values the model accepts; `accepted` says which are.
    OutOfRange {
        /// The parameter, spelled as its CLI flag.
        param: &'static str,
        /// The accepted values, in words (for example `"1 to 2147483646"`).
        accepted: &'static str,
    },
    /// A run needed more room than a fixed capacity provides.
    CapacityExceeded {
        /// What filled up (for example `"group size"`).
        what: &'static str,
        /// The capacity that was reached.
        limit: u32,
    },
    /// Runs batched on one random stream differ in a parameter that defines the stream.
    BatchMismatch {
        /// The parameter, spelled as its CLI flag.
        param: &'static str,
    },
    /// The consumers workload is not in arrival order within one shipment, so it cannot be
    /// streamed (only possible with extreme queue gaps; the run stops rather than reorder).
    WorkloadOrder {
        /// The shipment whose events came out of order.
        shipment: u32,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::OutOfRange { param, accepted } => {
                write!(f, "--{param}: accepted values are {accepted}")
            }
            Error::CapacityExceeded { what, limit } => {
                write!(f, "{what} exceeds its capacity of {limit}")
            }
            Error::BatchMismatch { param } => {
                write!(f, "--{param}: runs batched on one stream must share it")
            }
            Error::WorkloadOrder { shipment } => write!(
                f,
                "shipment {shipment}: events are not in arrival order (queue gap too large)"
            ),
        }
    }
}

impl core::error::Error for Error {}

/// Returns `Ok(())` when `ok`, else the out-of-range error for `param`.
pub(crate) fn ensure(ok: bool, param: &'static str, accepted: &'static str) -> Result<(), Error> {
    if ok {
        Ok(())
    } else {
        Err(Error::OutOfRange { param, accepted })
    }
}

/// The seed range every model accepts (the bulkhead generator is degenerate outside it).
pub const SEED_RANGE: core::ops::RangeInclusive<u32> = 1..=2_147_483_646;
/// [`SEED_RANGE`] in words.
pub(crate) const SEED_ACCEPTED: &str = "integers from 1 to 2147483646";

/// Checks a seed against [`SEED_RANGE`].
pub(crate) fn check_seed(seed: u32) -> Result<(), Error> {
    ensure(SEED_RANGE.contains(&seed), "seed", SEED_ACCEPTED)
}
