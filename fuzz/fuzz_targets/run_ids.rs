//! Run ids and prefixes from the command line and from ref names.
#![no_main]

use git_fabro::format::node::NodeId;
use git_fabro::format::run_id::RunId;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Ok(id) = RunId::parse(text) {
        assert_eq!(id.as_str(), text);
        assert_eq!(RunId::prefix(text).ok().as_deref(), Some(text));
        let _ = id.short();
    }
    let _ = RunId::prefix(text);
    if let Ok(node) = NodeId::parse(text) {
        // A valid node id is safe in a path segment and a commit subject.
        assert!(!node.as_str().contains(['/', '\n', '@', ' ']) && !node.as_str().contains(".."));
    }
});
