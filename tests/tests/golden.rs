//! The five lesson outputs, byte for byte, against the lessons' own printed tables
//! (`tests/golden/*.out`, copied from the lesson programs' output).

use capsim_core::consumers::Workspace;
use capsim_core::lesson::{
    render, render_all, render_all_in, render_in, Lang, Lesson, LESSON_SHIPMENTS,
};
use capsim_tests::{golden, golden_en, lesson_workspace, rendered};

/// Returns the lesson's golden output as text.
fn golden_text(lesson: Lesson) -> String {
    String::from_utf8(golden(lesson.name())).expect("golden files are UTF-8")
}

fn assert_same(lesson: Lesson) {
    let (want, got) = (golden_text(lesson), rendered(lesson));
    for (i, (w, g)) in want.lines().zip(got.lines()).enumerate() {
        assert_eq!(g, w, "{} line {}", lesson.name(), i + 1);
    }
    assert_eq!(got, want, "{}: whole output", lesson.name());
}

#[test]
fn group() {
    assert_same(Lesson::Group);
}

#[test]
fn group_sweep() {
    assert_same(Lesson::GroupSweep);
}

#[test]
fn group_ledger() {
    assert_same(Lesson::GroupLedger);
}

#[test]
fn consumers() {
    assert_same(Lesson::Consumers);
}

#[test]
fn bulkhead() {
    assert_same(Lesson::Bulkhead);
}

#[test]
fn all_is_the_five_in_order() {
    let want: String = Lesson::ALL.into_iter().map(golden_text).collect();
    let mut got = String::new();
    render_all(&mut got, &mut lesson_workspace()).unwrap();
    assert_eq!(got, want);
}

#[test]
fn consumers_renders_the_same_with_any_number_of_lanes() {
    use capsim_core::consumers::DEFAULT_IN_FLIGHT;
    use capsim_core::lesson::LESSON_CONFIGURATIONS;
    let want = golden_text(Lesson::Consumers);
    let mut out = String::new();
    let mut ws = Box::new(Workspace::<
        LESSON_SHIPMENTS,
        DEFAULT_IN_FLIGHT,
        LESSON_CONFIGURATIONS,
    >::new());
    render(Lesson::Consumers, &mut out, &mut ws).unwrap();
    assert_eq!(out, want, "12 lanes");
    let mut out = String::new();
    let mut ws = Box::new(Workspace::<LESSON_SHIPMENTS, 32, 5>::new());
    render(Lesson::Consumers, &mut out, &mut ws).unwrap();
    assert_eq!(out, want, "5 lanes, 32 in flight");
}

#[test]
fn a_small_workspace_fails_only_the_consumers_lesson() {
    let mut ws = Workspace::<100>::new();
    for lesson in Lesson::ALL {
        let mut out = String::new();
        let result = render(lesson, &mut out, &mut ws);
        assert_eq!(
            result.is_err(),
            lesson == Lesson::Consumers,
            "{}",
            lesson.name()
        );
    }
}

// ---------------------------------------------------------------- English

/// Returns the lesson's English golden output as text.
fn golden_en_text(lesson: Lesson) -> String {
    String::from_utf8(golden_en(lesson.name())).expect("golden files are UTF-8")
}

/// Returns the numbers of `text` in order, as written (`7-24` is 7 and 24; `%93.5` is 93.5).
fn numbers(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        let part_of_number = c.is_ascii_digit()
            || (c == '.'
                && start.is_some()
                && text[i + 1..].starts_with(|d: char| d.is_ascii_digit()));
        match (part_of_number, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push(&text[s..i]);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(&text[s..]);
    }
    out
}

/// Returns the words of `text` (runs of ASCII letters and apostrophes).
fn words(text: &str) -> std::collections::BTreeSet<&str> {
    text.split(|c: char| !(c.is_ascii_alphabetic() || c == '\''))
        .filter(|w| !w.is_empty())
        .collect()
}

#[test]
fn english_renders_its_golden_files() {
    for lesson in Lesson::ALL {
        let mut got = String::new();
        render_in(lesson, Lang::En, &mut got, &mut lesson_workspace()).unwrap();
        let want = golden_en_text(lesson);
        for (i, (w, g)) in want.lines().zip(got.lines()).enumerate() {
            assert_eq!(g, w, "{} (en) line {}", lesson.name(), i + 1);
        }
        assert_eq!(got, want, "{} (en): whole output", lesson.name());
    }
    let want: String = Lesson::ALL.into_iter().map(golden_en_text).collect();
    let mut got = String::new();
    render_all_in(Lang::En, &mut got, &mut lesson_workspace()).unwrap();
    assert_eq!(got, want, "all (en)");
}

#[test]
fn turkish_is_the_default_language() {
    assert_eq!(Lang::default(), Lang::Tr);
    let mut got = String::new();
    render_all_in(Lang::Tr, &mut got, &mut lesson_workspace()).unwrap();
    let want: String = Lesson::ALL.into_iter().map(golden_text).collect();
    assert_eq!(got, want);
}

/// The translation's contract: the same lines, and on them the same numbers in the same order
/// as the lesson program's own output (read from the committed files, not from the renderer).
#[test]
fn english_prints_the_lessons_numbers_in_the_same_places() {
    for lesson in Lesson::ALL {
        let (tr, en) = (golden_text(lesson), golden_en_text(lesson));
        assert_eq!(
            tr.lines().count(),
            en.lines().count(),
            "{}: lines",
            lesson.name()
        );
        for (i, (t, e)) in tr.lines().zip(en.lines()).enumerate() {
            assert_eq!(numbers(e), numbers(t), "{} line {}", lesson.name(), i + 1);
        }
        assert!(
            numbers(&tr).len() > 20,
            "{}: the lesson prints numbers",
            lesson.name()
        );
    }
}

#[test]
fn english_has_no_turkish_word() {
    // Words both outputs may hold: identifiers the lessons cite (AY3, K01, V4, N, S), the
    // unit `s`, the distribution's name, and words spelled alike in both languages ("is" is
    // Turkish "work" in "is yuku"; "an" is Turkish "moment" in "o an").
    const SHARED: [&str; 13] = [
        "AY", "K", "N", "Poisson", "S", "V", "an", "is", "max", "min", "model", "s", "x",
    ];
    let turkish: String = Lesson::ALL.into_iter().map(golden_text).collect();
    let english: String = Lesson::ALL.into_iter().map(golden_en_text).collect();
    let turkish = words(&turkish);
    let left: Vec<&str> = words(&english)
        .into_iter()
        .filter(|w| turkish.contains(w) && !SHARED.contains(w))
        .collect();
    assert!(
        left.is_empty(),
        "Turkish words in the English output: {left:?}"
    );
    // And the Turkish words the lessons are about are all gone.
    for word in [
        "esik", "soguma", "kapasite", "alti", "tur", "yuva", "atil", "takip", "olay",
    ] {
        assert!(
            turkish.contains(word),
            "{word} is a word of the Turkish output"
        );
        assert!(
            !words(&english).contains(word),
            "{word} in the English output"
        );
    }
}

#[test]
fn numbers_reads_integers_decimals_and_ranges() {
    assert_eq!(
        numbers("7-24 (%26) 0.389, 4.8."),
        ["7", "24", "26", "0.389", "4.8"]
    );
    assert_eq!(numbers("K01 AY3'un"), ["01", "3"]);
    assert!(numbers("no digits").is_empty());
}
