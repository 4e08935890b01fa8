//! Watching a run round by round: the [`Observer`] every model's runs report to, generic
//! over the model's round state ([`Round`]), so that it names no model.

/// One round of a model as its runs report it: each model's `RoundState`, a small `Copy`
/// state of the round, and what else a round reports before it ([`Round::Note`]).
pub trait Round {
    /// What a round may report before its state ([`Observer::note`]): the model's own
    /// events within a round (an auto-scaling group's formula evaluation), or
    /// [`core::convert::Infallible`] for a model that reports nothing but its states.
    type Note<'a>;
}

/// Watches a run round by round: a trace, a plot, a teaching board that pauses after each
/// round (step mode). `S` is the model's round state ([`Round`]); an observer of several
/// models implements `Observer` for each state it watches (or for every `S: Round`).
///
/// # The contract
///
/// A single run (`run_with` of each model, one configuration) calls, after every round and in
/// round order, first [`Observer::round`] with the state of that round, then
/// [`Observer::round_done`]. A round may report notes ([`Observer::note`]) before its state.
/// Every round is reported, the ones an event-driven engine skips included (the consumers
/// engine reports them as rounds in which nothing was applied). Summed over a run, the states
/// give the run's metrics (see each state's doc).
///
/// Batched engines (several configurations on one pass: `consumers::run_batch_with` and
/// `bulkhead::run_batch_with` with more than one) report no per-round state: they call only
/// `round_done` (so a board can pace them), lane after lane, with rounds that are not in
/// order across lanes and rounds the consumers engine skips left out. To observe a run, run
/// one configuration.
///
/// `()` watches nothing and costs nothing: engines skip the per-round work when
/// [`Observer::ROUNDS`] is false. Such an observer (a board pacing the lessons) gets only
/// `round_done`, for the rounds the engine processes, as from a batch.
pub trait Observer<S: Round> {
    /// Whether the engine should build and report per-round states and notes (`()` says
    /// no, so an unobserved run does no per-round work for it).
    const ROUNDS: bool = true;

    /// Called in a round with what the round reports besides its state (see
    /// [`Round::Note`]), before that round's [`Observer::round`].
    fn note(&mut self, note: &S::Note<'_>) {
        let _ = note;
    }

    /// Called after each simulated round with its state, just before `round_done`.
    fn round(&mut self, state: &S) {
        let _ = state;
    }

    /// Called after each simulated round, after [`Observer::round`].
    fn round_done(&mut self, round: u64) {
        let _ = round;
    }
}

impl<S: Round> Observer<S> for () {
    const ROUNDS: bool = false;
}

impl<S: Round, O: Observer<S> + ?Sized> Observer<S> for &mut O {
    const ROUNDS: bool = O::ROUNDS;

    fn note(&mut self, note: &S::Note<'_>) {
        (**self).note(note);
    }

    fn round(&mut self, state: &S) {
        (**self).round(state);
    }

    fn round_done(&mut self, round: u64) {
        (**self).round_done(round);
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::{Observer, Round};

    /// A round state whose rounds note a number.
    struct Tick(u64);

    impl Round for Tick {
        type Note<'a> = &'a str;
    }

    /// Records every call, in order.
    #[derive(Default)]
    struct Calls(std::vec::Vec<(&'static str, u64)>);

    impl Observer<Tick> for Calls {
        fn note(&mut self, note: &&str) {
            self.0.push(("note", note.len() as u64));
        }

        fn round(&mut self, state: &Tick) {
            self.0.push(("round", state.0));
        }

        fn round_done(&mut self, round: u64) {
            self.0.push(("done", round));
        }
    }

    /// Reports one round as an engine does, to any observer of `Tick`.
    fn report<O: Observer<Tick>>(observer: &mut O, round: u64) -> bool {
        if O::ROUNDS {
            observer.note(&"three");
            observer.round(&Tick(round));
        }
        observer.round_done(round);
        O::ROUNDS
    }

    #[test]
    fn a_borrowed_observer_hears_every_call_and_unit_none() {
        let mut calls = Calls::default();
        assert!(report(&mut &mut calls, 7));
        assert_eq!(calls.0, [("note", 5), ("round", 7), ("done", 7)]);
        assert!(!report(&mut (), 7));
        assert!(!report(&mut &mut (), 7));
    }
}
