//! BENCHMARKS.md and README.md show the results of one run of the benchmark harness, the JSON
//! file their generated blocks name (`bench/results/latest.json`), and the plot is drawn from
//! it: none of them can drift from the numbers they claim. The same holds for the pool's
//! section and `bench/results/pool.json`.

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

#[test]
fn the_pool_table_is_the_json_it_names() {
    let text = read_file(root().join("BENCHMARKS.md"));
    let (_, block) = text
        .split_once("<!-- bench/table.py pool bench/results/pool.json -->\n")
        .expect("BENCHMARKS.md has a pool table generated from bench/results/pool.json");
    let (block, _) = block.split_once("<!-- end of bench/table.py -->").unwrap();
    let out = python(&["bench/table.py", "--pool", "bench/results/pool.json"]);
    assert_success(&out);
    assert_eq!(
        block,
        String::from_utf8_lossy(&out.stdout),
        "BENCHMARKS.md's pool table is not bench/results/pool.json: run `python3 bench/table.py --write`"
    );
}

/// What BENCHMARKS.md publishes of the pool comes from a full run (not `--quick`), each of its
/// points repeated, each count of checkpoints that of the runs it timed.
#[test]
fn the_pool_results_are_of_a_full_run_with_every_point_repeated() {
    let results: serde_json::Value =
        serde_json::from_str(&read_file(root().join("bench/results/pool.json"))).unwrap();
    assert_eq!(results["args"]["quick"], false);
    let reps = results["args"]["reps"].as_u64().unwrap();
    assert!(reps >= 3, "{reps} repetitions");
    for row in results["checkpoints"].as_array().unwrap() {
        assert_eq!(
            row["wall_s"].as_array().unwrap().len() as u64,
            reps,
            "{row}"
        );
        assert_eq!(
            row["checkpoints"].as_u64(),
            Some(row["runs"].as_u64().unwrap() * row["nodes"].as_u64().unwrap())
        );
    }
    for row in results["takeover"].as_array().unwrap() {
        assert_eq!(
            row["claim_s"].as_array().unwrap().len() as u64,
            reps,
            "{row}"
        );
    }
}
