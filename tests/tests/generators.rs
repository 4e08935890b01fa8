//! The lesson generators and libm against reference sequences computed by node
//! (`tests/data/generators.json`, from `tests/tools/gen_vectors.py`).

use capsim_core::rng::{CounterHash, GroupLcg, ParkMiller, UnitRng};
use serde_json::Value;

fn data() -> Value {
    serde_json::from_str(&capsim_tests::read("data/generators.json")).unwrap()
}

fn check<R: UnitRng>(name: &str, make: impl Fn(u32) -> R) {
    let data = data();
    let seeds = data[name].as_object().unwrap();
    assert!(seeds.len() >= 5, "{name}");
    for (seed, seq) in seeds {
        let mut r = make(seed.parse().unwrap());
        let seq = seq.as_array().unwrap();
        assert_eq!(seq.len(), 64);
        for (i, want) in seq.iter().enumerate() {
            let got = r.next_unit();
            assert_eq!(
                got.to_bits(),
                want.as_f64().unwrap().to_bits(),
                "{name} {seed} #{i}"
            );
        }
    }
}

#[test]
fn group_lcg_matches_the_lesson_doubles() {
    check("group_lcg", GroupLcg::new);
}

#[test]
fn consumers_hash_matches_the_lesson() {
    check("consumers_hash", CounterHash::new);
}

#[test]
fn park_miller_matches_the_lesson() {
    check("park_miller", ParkMiller::new);
}

#[test]
fn counter_hash_random_access_matches_the_sequence() {
    let data = data();
    for (seed, seq) in data["consumers_hash"].as_object().unwrap() {
        let seed: u32 = seed.parse().unwrap();
        for (i, want) in seq.as_array().unwrap().iter().enumerate() {
            let got = CounterHash::unit_at(seed, i as u64);
            assert_eq!(got.to_bits(), want.as_f64().unwrap().to_bits());
        }
    }
}

#[test]
fn exp_and_sin_match_v8() {
    let data = data();
    let sin = capsim_core::fdlibm::sin as fn(f64) -> f64;
    for (name, func) in [("exp", libm::exp as fn(f64) -> f64), ("sin", sin)] {
        let pairs = data[name].as_array().unwrap();
        assert!(!pairs.is_empty());
        for pair in pairs {
            let x = pair[0].as_f64().unwrap();
            let want = pair[1].as_f64().unwrap();
            assert_eq!(func(x).to_bits(), want.to_bits(), "{name}({x})");
        }
    }
}
