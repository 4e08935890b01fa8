//! The core's files import each other without circles, and a file imports a name of its own
//! folder from the file that defines it, never through the folder's re-exports (CONTRIBUTING:
//! "Imports"). Read from the `use` lines of `core/src/` as rustfmt writes them: items and `use`
//! statements of a file start at column 0; an inline module (`mod tests { … }`, a serde helper)
//! ends at the first `}` at column 0 and is left out (its `super` is the file itself).
//!
//! A name's defining file is found by following `pub use` re-exports to a file that declares
//! it (`fn`, `struct`, `enum`, `const`, `static`, `type`, `trait`, `macro_rules!`, `mod`). An
//! import is an arrow from the importing file to that defining file; a re-export (`pub use`)
//! is a folder's door for the files outside it, not an arrow. A name imported from another
//! folder may come through that folder's door (`crate::formula::History`), and the crate
//! root's re-exports (`crate::Error`, `crate::Observer`) are the crate's own words.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module's path from the crate root (`["autoscale", "spec"]`; the root is empty).
type Module = Vec<String>;

/// One file: its top-level `use` leaves (whether `pub`, the path, the name it binds) and the
/// names it declares.
struct File {
    path: PathBuf,
    uses: Vec<(bool, Vec<String>)>,
    declares: BTreeSet<String>,
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            walk(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn module_of(root: &Path, file: &Path) -> Module {
    let rel = file.strip_prefix(root).unwrap().with_extension("");
    let mut m: Module = rel
        .iter()
        .map(|s| s.to_string_lossy().into_owned())
        .collect();
    if matches!(m.last().map(String::as_str), Some("mod" | "lib")) {
        m.pop();
    }
    m
}

/// Returns the file's top-level lines, inline modules left out.
fn top_level(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if inside {
            inside = line != "}";
            continue;
        }
        let item = line
            .trim_start_matches("pub ")
            .trim_start_matches("pub(crate) ");
        if item.starts_with("mod ") && line.trim_end().ends_with('{') {
            inside = true;
            continue;
        }
        lines.push(line);
    }
    lines
}

/// Expands `a::{b, c::{d, e}}` into its leaves.
fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        return vec![tree.to_string()];
    };
    let (prefix, inner) = (&tree[..open], &tree[open + 1..tree.len() - 1]);
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|p| !p.trim().is_empty())
        .flat_map(expand)
        .map(|leaf| format!("{prefix}{leaf}"))
        .collect()
}

fn parse(path: PathBuf) -> File {
    let text = std::fs::read_to_string(&path).unwrap();
    let lines = top_level(&text);
    let (mut uses, mut declares) = (Vec::new(), BTreeSet::new());
    let mut statement: Option<(bool, String)> = None;
    for line in lines {
        if let Some((public, s)) = &mut statement {
            s.push_str(line);
            if line.trim_end().ends_with(';') {
                let (public, s) = (*public, s.trim_end_matches(';').to_string());
                for leaf in expand(&s) {
                    let leaf = leaf.split(" as ").next().unwrap().trim().to_string();
                    uses.push((public, leaf.split("::").map(str::to_string).collect()));
                }
                statement = None;
            }
            continue;
        }
        let (public, item) = match line.strip_prefix("pub") {
            Some(rest) if rest.starts_with(' ') || rest.starts_with('(') => {
                (true, rest.split_once(' ').map_or("", |(_, r)| r))
            }
            _ => (false, line),
        };
        if let Some(tree) = item.strip_prefix("use ") {
            statement = Some((public, String::new()));
            let s = &mut statement.as_mut().unwrap().1;
            s.push_str(tree);
            if tree.trim_end().ends_with(';') {
                let s = s.trim_end_matches(';').to_string();
                for leaf in expand(&s) {
                    let leaf = leaf.split(" as ").next().unwrap().trim().to_string();
                    uses.push((public, leaf.split("::").map(str::to_string).collect()));
                }
                statement = None;
            }
            continue;
        }
        let item = item.trim_start_matches("const fn ");
        for keyword in [
            "fn ",
            "struct ",
            "enum ",
            "const ",
            "static ",
            "type ",
            "trait ",
            "union ",
            "macro_rules! ",
            "mod ",
        ] {
            if let Some(rest) = item.strip_prefix(keyword) {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                declares.insert(name);
            }
        }
    }
    File {
        path,
        uses,
        declares,
    }
}

/// Returns the absolute path of `leaf` imported in module `at`, if it is in this crate.
fn absolute(files: &BTreeMap<Module, File>, at: &Module, leaf: &[String]) -> Option<Vec<String>> {
    let mut base = at.clone();
    let mut segs = leaf;
    match segs.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            segs = &segs[1..];
        }
        Some("self") => segs = &segs[1..],
        Some("super") => {
            while segs.first().is_some_and(|s| s == "super") {
                base.pop();
                segs = &segs[1..];
            }
        }
        Some(first) => {
            let mut child = base.clone();
            child.push(first.to_string());
            if !files.contains_key(&child) {
                return None; // another crate (core::fmt, heapless, libm)
            }
        }
        None => return None,
    }
    base.extend(segs.iter().cloned());
    Some(base)
}

/// Splits an absolute path into its longest module prefix and the rest.
fn module_and_rest(files: &BTreeMap<Module, File>, full: &[String]) -> (Module, Vec<String>) {
    (0..=full.len())
        .rev()
        .map(|k| (full[..k].to_vec(), full[k..].to_vec()))
        .find(|(m, _)| files.contains_key(m))
        .unwrap()
}

/// Returns the module that declares what `full` names, following re-exports.
fn definer(files: &BTreeMap<Module, File>, full: &[String], hops: u32) -> Module {
    let (module, rest) = module_and_rest(files, full);
    let Some(name) = rest.first() else {
        return module;
    };
    let file = &files[&module];
    if name == "*" || name == "self" || file.declares.contains(name) || hops > 16 {
        return module;
    }
    for (public, leaf) in &file.uses {
        if *public && leaf.last() == Some(name) {
            if let Some(target) = absolute(files, &module, leaf) {
                let mut next = target;
                next.extend(rest[1..].iter().cloned());
                return definer(files, &next, hops + 1);
            }
        }
    }
    module
}

/// What the reading found in the files under `root`: the imports through their own folder's
/// re-exports, the circles (each a path of folders' files back to its start), and every arrow.
struct Found {
    through_doors: Vec<String>,
    circles: Vec<String>,
    arrows: BTreeMap<Module, BTreeSet<Module>>,
}

fn read(root: &Path) -> Found {
    let mut paths = Vec::new();
    walk(root, &mut paths);
    let files: BTreeMap<Module, File> = paths
        .into_iter()
        .map(|p| (module_of(root, &p), parse(p)))
        .collect();
    let name = |m: &Module| {
        if m.is_empty() {
            "lib".into()
        } else {
            m.join("/")
        }
    };
    let mut arrows: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    let mut through_doors = Vec::new();
    for (module, file) in &files {
        for (public, leaf) in &file.uses {
            if *public {
                continue;
            }
            let Some(full) = absolute(&files, module, leaf) else {
                continue;
            };
            let defining = definer(&files, &full, 0);
            if defining == *module {
                continue;
            }
            let (door, _) = module_and_rest(&files, &full);
            if door != defining && !door.is_empty() && module.starts_with(&door) {
                through_doors.push(format!(
                    "{}: `{}` is defined in {}",
                    file.path.display(),
                    leaf.join("::"),
                    name(&defining)
                ));
            }
            arrows.entry(module.clone()).or_default().insert(defining);
        }
    }
    // A circle is a path of arrows back to where it started (depth-first, colouring).
    fn visit(
        m: &Module,
        arrows: &BTreeMap<Module, BTreeSet<Module>>,
        state: &mut BTreeMap<Module, bool>,
        path: &mut Vec<Module>,
        circles: &mut Vec<Vec<Module>>,
    ) {
        state.insert(m.clone(), false);
        path.push(m.clone());
        for next in arrows.get(m).into_iter().flatten() {
            match state.get(next) {
                None => visit(next, arrows, state, path, circles),
                Some(false) => {
                    let from = path.iter().position(|p| p == next).unwrap();
                    let mut circle = path[from..].to_vec();
                    circle.push(next.clone());
                    circles.push(circle);
                }
                Some(true) => {}
            }
        }
        path.pop();
        state.insert(m.clone(), true);
    }
    let (mut state, mut circles) = (BTreeMap::new(), Vec::new());
    for m in files.keys() {
        if !state.contains_key(m) {
            visit(m, &arrows, &mut state, &mut Vec::new(), &mut circles);
        }
    }
    let circles = circles
        .iter()
        .map(|c| c.iter().map(name).collect::<Vec<_>>().join(" -> "))
        .collect();
    Found {
        through_doors,
        circles,
        arrows,
    }
}

fn arrow(found: &Found, from: &str, to: &str) -> bool {
    let split = |s: &str| s.split('/').map(str::to_string).collect::<Module>();
    found
        .arrows
        .get(&split(from))
        .is_some_and(|a| a.contains(&split(to)))
}

#[test]
fn the_cores_files_import_without_circles_and_from_the_defining_file() {
    let found = read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/src"));
    assert!(
        found.through_doors.is_empty(),
        "imports through the folder's own re-exports:\n{}",
        found.through_doors.join("\n")
    );
    assert!(
        found.circles.is_empty(),
        "import circles:\n{}",
        found.circles.join("\n")
    );
    // The reading itself sees the arrows it must.
    assert!(
        found.arrows.len() > 50,
        "{} files import",
        found.arrows.len()
    );
    assert!(arrow(&found, "autoscale/spec", "autoscale/lifecycle"));
    assert!(arrow(&found, "autoscale/lifecycle", "autoscale/limits"));
    assert!(arrow(&found, "autoscale/spot", "autoscale/metrics"));
    assert!(arrow(&found, "consumers/lanes/event", "consumers/spec"));
    assert!(arrow(&found, "trace", "observe"));
}

/// The reading on made-up files: a circle, and an import through the folder's re-export, are
/// found; an inline module's imports are not read.
#[test]
fn the_reading_finds_a_circle_and_a_door() {
    let dir = std::env::temp_dir().join(format!("capsim-imports-{}", std::process::id()));
    let write = |rel: &str, text: &str| {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write("lib.rs", "pub mod m;\npub mod n;\n");
    write("m/mod.rs", "mod a;\nmod b;\npub use a::A;\n");
    write("m/a.rs", "use super::b::B;\npub struct A;\n");
    write(
        "m/b.rs",
        "use super::{\n    A,\n};\npub struct B;\nmod tests {\nuse crate::n::N;\n}\n",
    );
    write("n.rs", "use crate::m::A;\npub struct N;\n");
    let found = read(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(found.circles, ["m/a -> m/b -> m/a"]);
    assert_eq!(found.through_doors.len(), 1, "{:?}", found.through_doors);
    assert!(found.through_doors[0].ends_with("`super::A` is defined in m/a"));
    // From another folder the door is the way in; the inline module is left out.
    assert!(arrow(&found, "n", "m/a"));
    assert!(!arrow(&found, "m/b", "n"));
}
