//! `run.json` as found on a metadata branch another tool may have written.
#![no_main]

use git_fabro::format::record::RunRecord;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(record) = RunRecord::from_json(data, "fuzz") {
        // What is accepted is written back in a form that is accepted again, unchanged; a
        // record too large to read back is refused instead of written.
        let Ok(written) = record.to_json() else {
            return;
        };
        let again = RunRecord::from_json(&written, "fuzz").expect("git-fabro reads what it writes");
        assert_eq!(again.to_json().ok(), Some(written));
    }
});
