//! Trailer blocks and subjects of commit messages written by anyone.
#![no_main]

use git_fabro::format::message::{Trailers, parse_subject};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let trailers = Trailers::parse(data);
    let _ = parse_subject(data);
    // What parses must read back the same from a block git-fabro writes.
    if let (Some(run), Some(completed), Some(checkpoint)) =
        (&trailers.run, trailers.completed, &trailers.checkpoint)
    {
        if [run, checkpoint]
            .iter()
            .all(|v| !v.contains('\n') && !v.is_empty() && v.trim() == v.as_str())
        {
            let again = format!(
                "s\n\nFabro-Run: {run}\nFabro-Completed: {completed}\nFabro-Checkpoint: {checkpoint}\n"
            );
            let parsed = Trailers::parse(again.as_bytes());
            assert_eq!(parsed.completed, Some(completed));
        }
    }
});
