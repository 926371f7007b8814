//! Workflow files as anyone writes them: Fabro's DOT dialect, then validation and a dry run of
//! whatever parses, none of which may panic.
#![no_main]

use git_fabro::engine::dry_run::{Options, dry_run};
use git_fabro::engine::validate::validate;
use git_fabro::engine::workflow::parse;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Ok(graph) = parse(text, "fuzz.fabro") {
        let _ = graph.to_fabro_json();
        let _ = validate(&graph);
        let _ = dry_run(&graph, &Options::default());
    }
});
