//! BENCHMARKS.md and README.md show the results of one run of the benchmark harness, the JSON
//! file their generated blocks name (`bench/results/latest.json`), and the plot is drawn from
//! it: none of them can drift from the numbers they claim.

use crate::common::{assert_success, read_file};
use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn python(args: &[&str]) -> std::process::Output {
    Command::new("python3")
        .args(args)
        .current_dir(root())
        .output()
        .expect("python3 runs (the benchmark scripts need Python 3.11)")
}

#[test]
fn the_results_tables_are_the_json_they_name() {
    let out = python(&["bench/table.py", "--check"]);
    assert_success(&out);
    for doc in ["BENCHMARKS.md", "README.md"] {
        let text = read_file(root().join(doc));
        assert!(
            text.contains("<!-- bench/table.py ") && text.contains("bench/results/latest.json"),
            "{doc} has a table generated from bench/results/latest.json"
        );
    }
}

#[test]
fn the_plot_is_drawn_from_the_same_json() {
    let dir = tempfile::tempdir().unwrap();
    let drawn = dir.path().join("plot.svg");
    let out = python(&[
        "bench/plot.py",
        "bench/results/latest.json",
        drawn.to_str().unwrap(),
    ]);
    assert_success(&out);
    assert!(
        std::fs::read(&drawn).unwrap()
            == std::fs::read(root().join("bench/checkpoint-cost.svg")).unwrap(),
        "bench/checkpoint-cost.svg is not drawn from bench/results/latest.json: run \
         `python3 bench/plot.py bench/results/latest.json bench/checkpoint-cost.svg`"
    );
}

#[test]
fn the_baseline_names_a_ratio_for_every_row_of_the_results() {
    let baseline: serde_json::Value =
        serde_json::from_str(&read_file(root().join("bench/baseline.json"))).unwrap();
    let results: serde_json::Value =
        serde_json::from_str(&read_file(root().join("bench/results/latest.json"))).unwrap();
    assert_eq!(baseline["budget"], 0.15);
    for row in results["results"].as_array().unwrap() {
        if row["git_ms"].as_array().is_some_and(|ms| !ms.is_empty()) {
            let key = format!(
                "{} | {}",
                row["bench"].as_str().unwrap(),
                row["size"].as_str().unwrap()
            );
            assert!(
                baseline["ratios"][&key].is_number(),
                "no baseline for {key}"
            );
        }
    }
}
