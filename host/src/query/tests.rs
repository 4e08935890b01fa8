//! The query API's own tests: what the playground and the Python package send, answered as
//! the command line answers.

use super::*;

/// Runs `pairs` as the playground does, at most [`BROWSER_MAX_RUNS`] runs.
fn browser(pairs: &[(&str, &str)]) -> Printed {
    run(pairs, BROWSER_MAX_RUNS, &())
}

/// The error line of `pairs` run as the playground does (which then prints nothing else).
fn browser_error(pairs: &[(&str, &str)]) -> String {
    let p = browser(pairs);
    assert!(p.stdout.is_empty() && p.chart.is_none(), "{pairs:?}");
    p.error.unwrap_or_default()
}

#[test]
fn a_lesson_is_printed_in_the_language_asked_for() {
    let tr = browser(&[("lesson", "group")]);
    let tr_again = browser(&[("lesson", "group"), ("lang", "tr")]);
    let en = browser(&[("lesson", "group"), ("lang", "en")]);
    assert_eq!(tr.stdout, capsim_tests::golden("group"));
    assert_eq!(tr_again.stdout, tr.stdout);
    assert_eq!(en.stdout, capsim_tests::golden_en("group"));
    assert_eq!(
        browser_error(&[("lesson", "group"), ("lang", "de")]),
        "error: invalid value 'de' for '--lang <LANG>' [possible values: tr, en]"
    );
}

#[test]
fn bad_input_is_one_error_line_and_no_output() {
    assert_eq!(
        browser_error(&[("model", "autoscale"), ("threshold", "x")]),
        "error: invalid value 'x' for '--threshold <LIST>': 'x' is not an integer; accepted values are 1 to 4294967295"
    );
    assert!(
        browser_error(&[("model", "autoscale"), ("seed", "1..=100001")])
            .contains("the browser runs at most 100000")
    );
}

#[test]
fn the_chart_is_capsim_plots_svg_or_a_note() {
    let p = browser(&[
        ("model", "autoscale"),
        ("threshold", "2,5"),
        ("format", "csv"),
    ]);
    let flags = Flags::<Autoscale>::from_pairs([("threshold", "2,5")]).unwrap();
    let svg = plot::plot("autoscale", &flags).unwrap();
    let chart = p.chart.unwrap();
    assert!(chart.starts_with("<svg id=\"chart\" "));
    assert_eq!(chart.replacen(" id=\"chart\"", "", 1), svg);
    // 3 × 3 runs: more than one chart draws (8), so small multiples, capsim plot's.
    let pairs = [("threshold", "2,3,5"), ("cooldown", "0,3,8")];
    let mut all = vec![("model", "autoscale")];
    all.extend(pairs);
    let p = browser(&all);
    assert!(p.error.is_none() && !p.stdout.is_empty());
    let flags = Flags::<Autoscale>::from_pairs(pairs).unwrap();
    let svg = plot::plot("autoscale", &flags).unwrap();
    assert_eq!(p.chart.unwrap().replacen(" id=\"chart\"", "", 1), svg);
    // Beyond 36 runs, a note, and the table still printed.
    let p = browser(&[("model", "autoscale"), ("threshold", "1..=37")]);
    assert!(p.error.is_none() && !p.stdout.is_empty());
    assert_eq!(
        p.chart.as_deref(),
        Some(
            "<p id=\"chart-note\">No chart: a plot draws at most 8 runs in one chart, or up to 36 as small multiples; the lists make 37.</p>"
        )
    );
}

#[test]
fn chart_width_and_lang_draw_capsim_plots_chart_at_that_width_and_language() {
    let pairs = [("model", "autoscale"), ("threshold", "3")];
    let plain = browser(&pairs);
    let mut with = pairs.to_vec();
    with.extend([("chart-width", "358"), ("chart-lang", "tr")]);
    let p = browser(&with);
    // The output is the command's, whatever the chart's look.
    assert_eq!(p.stdout, plain.stdout);
    let flags = Flags::<Autoscale>::from_pairs([("threshold", "3")]).unwrap();
    let look = plot::Look {
        width: 358,
        lang: Lang::Tr,
    };
    let svg = plot::plot_with("autoscale", &flags, look).unwrap();
    assert_eq!(p.chart.unwrap().replacen(" id=\"chart\"", "", 1), svg);
    assert!(svg.starts_with("<svg width=\"358\""), "{}", &svg[..60]);
    assert!(svg.contains("grup boyutu"));
    for (pair, error) in [
        (
            ("chart-width", "279"),
            "error: invalid value '279' for 'chart-width': accepted values are 280 to 3840",
        ),
        (
            ("chart-width", "x"),
            "error: invalid value 'x' for 'chart-width': accepted values are 280 to 3840",
        ),
        (
            ("chart-lang", "de"),
            "error: invalid value 'de' for 'chart-lang' [possible values: en, tr]",
        ),
    ] {
        let mut bad = pairs.to_vec();
        bad.push(pair);
        assert_eq!(browser_error(&bad), error);
    }
    let mut twice = pairs.to_vec();
    twice.extend([("chart-width", "400"), ("chart-width", "500")]);
    assert_eq!(
        browser_error(&twice),
        "error: the argument '--chart-width <PX>' cannot be used multiple times"
    );
}

#[test]
fn a_summarys_chart_is_capsim_plots_histogram() {
    let pairs = [("threshold", "2,3,5"), ("seed", "1..=40")];
    let mut all = vec![("model", "autoscale"), ("summary", "")];
    all.extend(pairs);
    let p = browser(&all);
    assert!(p.error.is_none(), "{:?}", p.error);
    let flags = Flags::<Autoscale>::from_pairs(pairs).unwrap();
    let svg = plot::histogram("autoscale", &flags, "launched").unwrap();
    assert!(svg.contains("launched over 120 runs"));
    assert_eq!(p.chart.unwrap().replacen(" id=\"chart\"", "", 1), svg);
}

#[test]
fn headline_metrics_and_trace_columns_are_the_command_lines() {
    let v: serde_json::Value = serde_json::from_str(&params_json()).unwrap();
    for (i, model) in MODELS.into_iter().enumerate() {
        let listed: Vec<&str> = v["models"][i]["headline"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k.as_str().unwrap())
            .collect();
        assert_eq!(Some(&listed[..]), headline(model), "{model}");
        assert_eq!(v["models"][i]["readable_digits"], 4);
    }
    assert_eq!(headline("none"), None);
    let p = browser(&[
        ("trace", "autoscale"),
        ("columns", "round,size"),
        ("rounds", "2"),
    ]);
    assert_eq!(
        String::from_utf8(p.stdout).unwrap(),
        "round  size\n    0     9\n    1    10\n"
    );
    let e = browser_error(&[
        ("trace", "autoscale"),
        ("columns", "round"),
        ("evaluations", ""),
    ]);
    assert_eq!(
        e,
        "error: the argument '--columns <LIST>' cannot be used with '--evaluations'"
    );
    let p = browser(&[
        ("model", "autoscale"),
        ("columns", "threshold,launched"),
        ("format", "csv"),
    ]);
    assert_eq!(
        String::from_utf8(p.stdout).unwrap(),
        "threshold,launched\n2,46\n"
    );
}

#[test]
fn params_json_lists_every_flag() {
    let v: serde_json::Value = serde_json::from_str(&params_json()).unwrap();
    let flags = |m: usize| v["models"][m]["params"].as_array().unwrap().len();
    assert_eq!(
        (flags(0), flags(1), flags(2)),
        (
            Autoscale::PARAMS.len(),
            Consumers::PARAMS.len(),
            Bulkhead::PARAMS.len()
        )
    );
    assert_eq!(v["models"][2]["params"][0]["flag"], "split");
    for (i, model) in glossary::MODELS.into_iter().enumerate() {
        let keys: Vec<&str> = v["models"][i]["glossary"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["key"].as_str().unwrap())
            .collect();
        assert_eq!(v["models"][i]["model"], model);
        assert_eq!(Some(keys), glossary::row_keys(model), "{model}");
    }
}
