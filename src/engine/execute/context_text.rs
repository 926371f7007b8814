//! How much of a stage's output the run's context holds. The context is recorded in
//! `run.json` twice (the checkpoint's `context_values` and the stage's `node_outcomes`) and
//! copied at every step of the walk, so a node that prints megabytes would make its run's
//! record too large to read back. The whole output is a stage file (`stdout.log`,
//! `response.md`, on the metadata branch and in the run directory); the context holds it up to
//! [`LIMIT`], and past that its last [`LIMIT`] bytes (where a test run's verdict is), after a
//! line that says how much was left out and which file has it all.

/// The most bytes of one output the context holds. Each command node's latest outcome keeps
/// its own two streams in `node_outcomes`, so this bounds the record at about 32 KiB per node:
/// hundreds of chatty nodes still fit in the 16 MiB a record may have.
pub const LIMIT: usize = 16 << 10;

/// `bytes` (an output whose whole is the stage file `file`) as the context holds it.
pub fn context_text(bytes: &[u8], file: &str) -> String {
    if bytes.len() <= LIMIT {
        return String::from_utf8_lossy(bytes).into_owned();
    }
    let mut start = bytes.len() - LIMIT;
    // Start on a character, not inside one (UTF-8 continuation bytes are 0b10xxxxxx).
    while start < bytes.len() && bytes[start] & 0xC0 == 0x80 {
        start += 1;
    }
    format!(
        "[git-fabro: the first {start} of {} bytes are left out here; {file} of the stage has them all]\n{}",
        bytes.len(),
        String::from_utf8_lossy(&bytes[start..])
    )
}

#[cfg(test)]
mod tests {
    use super::{LIMIT, context_text};

    #[test]
    fn short_output_is_kept_whole_and_long_output_keeps_its_end() {
        assert_eq!(context_text(b"PASS\n", "stdout.log"), "PASS\n");
        let mut long = "é".repeat(LIMIT).into_bytes();
        long.extend_from_slice(b"\nPASS\n");
        let text = context_text(&long, "stdout.log");
        assert!(text.len() < LIMIT + 200, "{}", text.len());
        assert!(text.ends_with("\nPASS\n"));
        assert!(
            text.starts_with("[git-fabro: the first "),
            "{}",
            &text[..80]
        );
        assert!(text.contains("stdout.log"));
        assert!(!text.contains('\u{fffd}'), "cut inside a character");
    }
}
