//! The logging shim, as embassy's `fmt.rs`: `info!` and `error!` go out as defmt frames with
//! the `defmt`/`rtt` features, else as one line each on semihosting stderr. The rest of the
//! firmware logs through them and never names either back end.
//!
//! Format strings use plain `{}`, which both back ends accept; every argument implements
//! `Display` and `defmt::Format` (wrap any other `Display` in [`Show`]).
#![macro_use]

macro_rules! info {
    ($($arg:tt)*) => {{
        #[cfg(any(feature = "defmt", feature = "rtt"))]
        ::defmt::info!($($arg)*);
        #[cfg(not(any(feature = "defmt", feature = "rtt")))]
        ::semihosting::eprintln!($($arg)*);
    }};
}

macro_rules! error {
    ($($arg:tt)*) => {{
        #[cfg(any(feature = "defmt", feature = "rtt"))]
        ::defmt::error!($($arg)*);
        #[cfg(not(any(feature = "defmt", feature = "rtt")))]
        ::semihosting::eprintln!($($arg)*);
    }};
}

/// Logs a [`core::fmt::Display`] value through either back end (defmt gets its text).
pub struct Show<T>(pub T);

impl<T: core::fmt::Display> core::fmt::Display for Show<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(any(feature = "defmt", feature = "rtt"))]
impl<T: core::fmt::Display> defmt::Format for Show<T> {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(f, "{}", defmt::Display2Format(&self.0));
    }
}
