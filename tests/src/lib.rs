//! Shared helpers for the cross-crate tests and the CLI's tests (`capsim` has this crate as a
//! dev-dependency): the committed expected files and a workspace for the lessons.

use capsim_core::consumers::Workspace;
use capsim_core::lesson::{render, Lesson, LESSON_SHIPMENTS};

/// Returns the text of `tests/<relative>` (`golden/…`, `data/…`); panics naming the file.
pub fn read(relative: &str) -> String {
    let path = format!("{}/{relative}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Returns what the lesson program printed for lesson `name` (`tests/golden/<name>.out`).
pub fn golden(name: &str) -> Vec<u8> {
    read(&format!("golden/{name}.out")).into_bytes()
}

/// Returns a workspace that holds every lesson, on the heap (it is tens of kilobytes).
pub fn lesson_workspace() -> Box<Workspace<LESSON_SHIPMENTS>> {
    Box::new(Workspace::new())
}

/// Returns `lesson` rendered with a fresh [`lesson_workspace`].
pub fn rendered(lesson: Lesson) -> String {
    let mut out = String::new();
    render(lesson, &mut out, &mut lesson_workspace())
        .unwrap_or_else(|e| panic!("{}: {e}", lesson.name()));
    out
}
