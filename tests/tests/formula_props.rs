//! The formula parser and evaluator on broken input: every example formula cut at every
//! byte, and copies with random byte changes (fixed seed). Nothing may panic, and every
//! error must point at a line and column inside the input.

use capsim_core::formula::{
    evaluate, FormulaError, History, Inputs, Metric, Program, Timestamp, Workspace,
};

fn examples() -> Vec<String> {
    let dir = format!("{}/../examples/formulas", env!("CARGO_MANIFEST_DIR"));
    let mut v: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("formula"))
        .map(|p| {
            (
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    v.sort();
    assert!(v.len() >= 14);
    v.into_iter().map(|(_, s)| s).collect()
}

/// Asserts that `e` points inside `src`: a line that exists (or the line after a final
/// newline) and a column at most one past that line's last character.
fn assert_within(src: &str, e: &FormulaError) {
    // Lines end at \n, \r\n or a lone \r (as the lexer counts them).
    let unified = src.replace("\r\n", "\n").replace('\r', "\n");
    let lines: Vec<&str> = unified.split('\n').collect();
    assert!(e.line >= 1 && e.col >= 1, "{e} in {src:?}");
    let line = lines
        .get(e.line as usize - 1)
        .unwrap_or_else(|| panic!("{e}: line outside {src:?}"));
    assert!(
        e.col as usize <= line.chars().count() + 1,
        "{e}: column outside line {line:?}"
    );
    assert!(!e.to_string().is_empty());
}

struct Harness {
    program: Box<Program>,
    ws: Box<Workspace>,
    history: Box<History>,
    now: Timestamp,
    parsed: usize,
    evaluated: usize,
}

impl Harness {
    fn new() -> Self {
        let now = Timestamp::parse("2016-10-13T19:18:47.805Z").unwrap();
        let mut history: Box<History> = Box::default();
        // Two hours of samples for every metric, every fifth one missing.
        let last = now.ticks().div_euclid(300_000_000);
        for k in last - 239..=last {
            if k % 5 != 0 {
                let at = Timestamp::from_ticks(k * 300_000_000).unwrap();
                for m in Metric::ALL {
                    history.record(at, m, (k % 17) as f64 / 4.0).unwrap();
                }
            }
        }
        Harness {
            program: Box::new(Program::new()),
            ws: Box::new(Workspace::new(7)),
            history,
            now,
            parsed: 0,
            evaluated: 0,
        }
    }

    fn run(&mut self, src: &str) {
        match self.program.parse(src) {
            Err(e) => assert_within(src, &e),
            Ok(()) => {
                self.parsed += 1;
                let mut inputs = Inputs::new(self.now, &self.history);
                inputs.current[Metric::CurrentDedicatedNodes as usize] = Some(10.0);
                inputs.target_dedicated = 3.0;
                match evaluate(&self.program, &inputs, &mut self.ws) {
                    Err(e) => assert_within(src, &e),
                    Ok(out) => {
                        self.evaluated += 1;
                        let s = out.to_string();
                        assert!(
                            s.to_ascii_lowercase().contains("$nodedeallocationoption="),
                            "{s}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn every_prefix_of_every_example() {
    let mut h = Harness::new();
    for src in examples() {
        for cut in 0..=src.len() {
            if src.is_char_boundary(cut) {
                h.run(&src[..cut]);
            }
        }
    }
    // Cuts at statement ends parse and evaluate; the rest fail with positions.
    assert!(
        h.parsed > 50 && h.evaluated > 20,
        "{} {}",
        h.parsed,
        h.evaluated
    );
}

/// A 64-bit LCG (Knuth's MMIX constants): a fixed, dependency-free stream.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn random_byte_changes() {
    const ALPHABET: &[u8] = b"()[],.;:?=!<>&|+-*/\"$ \n09._aAzZ";
    let mut rng = Lcg(20261001);
    let mut h = Harness::new();
    let sources = examples();
    for round in 0..6000 {
        let mut bytes = sources[round % sources.len()].clone().into_bytes();
        for _ in 0..1 + rng.below(4) {
            if bytes.is_empty() {
                break;
            }
            let i = rng.below(bytes.len());
            match rng.below(4) {
                0 => bytes[i] = ALPHABET[rng.below(ALPHABET.len())],
                1 => bytes[i] = rng.next() as u8,
                2 => {
                    bytes.remove(i);
                }
                _ => {
                    let j = rng.below(bytes.len());
                    let b = bytes[j];
                    bytes.insert(i, b);
                }
            }
        }
        let src = String::from_utf8_lossy(&bytes).into_owned();
        h.run(&src);
    }
    assert!(
        h.parsed > 500 && h.evaluated > 100,
        "{} {}",
        h.parsed,
        h.evaluated
    );
}

#[test]
fn deep_and_wide_inputs_are_errors_not_crashes() {
    let mut h = Harness::new();
    for n in [1, 10, 23, 24, 25, 63, 64, 65, 100, 5000] {
        h.run(&format!("x = {}1{};", "(".repeat(n), ")".repeat(n)));
        h.run(&format!("x = {}1;", "-".repeat(n)));
        h.run(&format!("x = {}1;", "!".repeat(n)));
        h.run(&format!("x = 1{};", " ? 1 : 1".repeat(n)));
        h.run(&format!("x = {}1{};", "avg(".repeat(n), ")".repeat(n)));
        h.run(&format!("x = {}1{};", "[".repeat(n), "]".repeat(n)));
        h.run(&format!("x = max(1{});", ",1".repeat(n)));
        h.run(&format!("x = 1{};", "*1".repeat(n)));
        h.run(&";".repeat(n));
        h.run(&"x=1;".repeat(n));
        h.run(&format!("x = [{}];", vec!["1"; n].join(",")));
        h.run(&(0..n).map(|i| format!("v{i}=1;")).collect::<String>());
        h.run(&format!("x = {};", "9".repeat(n)));
        h.run(&format!("x = 1;{}y = ;", "\r".repeat(n)));
    }
    // The pool at the host's capacity: 99 stored 240-sample vectors and nested operands.
    let mut big = String::from("a0 = $CPUPercent.GetSample(240);");
    for i in 1..99 {
        big.push_str(&format!("a{i} = a0 * 2;"));
    }
    big.push_str(&format!("z = {}a0{};", "a0 + (".repeat(22), ")".repeat(22)));
    h.run(&big);
    // Vector growth hits the pool limit as an error.
    h.run("v = $CPUPercent.GetSample(TimeInterval_Hour * 2); w = v + v; x = w + w; y = x * 2; z = y * 2; a = z * 2;");
    h.run("v = $CPUPercent.GetSample(TimeInterval_Year * 10000000000);");
    h.run("v = time() + TimeInterval_Year * 100000; w = -TimeInterval_Year * 1000000000000;");
}

/// The deepest inputs the limits admit (24 levels of nesting, a 64-operator chain) parse and
/// evaluate on a small thread stack: 48 KB in a release build, where they were measured
/// (24 nested calls take the most: about 2 KB a level with the static type checks); debug
/// builds' frames are several times larger.
#[test]
fn deepest_inputs_fit_a_small_stack() {
    let sources = vec![
        format!("x = {}1{};", "(".repeat(24), ")".repeat(24)),
        format!("x = {}1{};", "avg(".repeat(24), ")".repeat(24)),
        format!("x = {}1{};", "[avg(".repeat(12), ")]".repeat(12)),
        format!("x = 1{};", " + 1".repeat(64)),
        format!("x = 1{};", " ? 1 : 1".repeat(24)),
        format!("x = 1{};", " + (1 * (1 - (1 < -!1)))".repeat(15)),
        format!("x = {}1{};", "max(1, 2 + 3 * -".repeat(12), ")".repeat(12)),
    ];
    let mut h = Harness::new(); // the big buffers live on the heap, made on this thread
    let kb = if cfg!(debug_assertions) { 512 } else { 48 };
    let done = std::thread::Builder::new()
        .stack_size(kb * 1024)
        .spawn(move || {
            for src in &sources {
                h.run(src);
            }
            (h.parsed, h.evaluated)
        })
        .unwrap()
        .join()
        .unwrap();
    // All parse and evaluate.
    assert_eq!(done, (7, 7));
}
