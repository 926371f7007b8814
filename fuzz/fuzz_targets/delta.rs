//! Pack deltas from a pack another clone wrote: the first byte is the base's length, then the
//! base, then the delta.
#![no_main]

use git_fabro::git::delta::apply;
use libfuzzer_sys::fuzz_target;

const LIMIT: usize = 1 << 16;

fuzz_target!(|data: &[u8]| {
    let Some((&len, rest)) = data.split_first() else {
        return;
    };
    let Some((base, delta)) = rest.split_at_checked(usize::from(len)) else {
        return;
    };
    if let Some(out) = apply(base, delta, LIMIT) {
        assert!(out.len() <= LIMIT);
    }
});
