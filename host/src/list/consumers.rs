//! The consumers flow options' items, and how a row shows them: the outage rounds and the
//! routing.

use capsim_core::consumers::{Outage, Routing};

use super::{span_item, word_item};

span_item!(
    /// Consumers outage rounds: `A..B` (B excluded), `A..=B`, or `none`.
    Outage
);

word_item!(
    /// The consumers' routing: `shared` or `keyed`.
    Routing {
        "shared" => Routing::Shared,
        "keyed" => Routing::Keyed,
    } else |s| format!("'{s}' is not a routing")
);

/// How a row shows the consumers' flow options (the JSON the core's serde derives write):
/// `none` or the number, `[]` or `[A,B]` (`A..B` as text), the routing's name.
mod flow_values {
    use capsim_core::consumers::{Outage, Routing};

    use crate::models::Value;
    use crate::output::Cell;

    impl Value for Option<f64> {
        fn cell(&self) -> Cell {
            self.map_or(Cell::Word("none"), Cell::Float)
        }
    }

    impl Value for Option<Outage> {
        fn cell(&self) -> Cell {
            self.map_or(Cell::Ints(Vec::new()), |o| Cell::Span(o.start, o.end))
        }
    }

    crate::models::named_values!(Routing);
}
