//! How much of a stage's output the run's context holds. The context is recorded in
//! `run.json` twice (the checkpoint's `context_values` and the stage's `node_outcomes`) and
//! copied at every step of the walk, so a node that prints megabytes would make its run's
//! record too large to read back. The whole output is a stage file (`stdout.log`,
//! `response.md`, on the metadata branch and in the run directory); the context holds it up to
//! [`LIMIT`], and past that its last [`LIMIT`] bytes (where a test run's verdict is), after a
//! line that says how much was left out and which file has it all. Those bytes are read from
//! the end of the stage file, so no output is ever held whole in memory.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// The most bytes of one output the context holds. Each command node's latest outcome keeps
/// its own two streams in `node_outcomes`, so this bounds the record at about 32 KiB per node:
/// hundreds of chatty nodes still fit in the 16 MiB a record may have.
pub const LIMIT: usize = 16 << 10;

/// `bytes` (an output whose whole is the stage file `file`) as the context holds it.
pub fn context_text(bytes: &[u8], file: &str) -> String {
    tail_context_text(bytes, 0, file)
}

/// The output in the file at `path` (the stage file `file`) as the context holds it, read
/// from its end: a gigabyte of output costs [`LIMIT`] bytes of memory here. A file that is not
/// there is an output that is empty.
pub fn file_context_text(path: &Path, file: &str) -> String {
    match read_tail(path, LIMIT) {
        Ok(tail) => tail_context_text(&tail.bytes, tail.skipped, file),
        Err(_) => String::new(),
    }
}

/// The last bytes of a file and how many came before them.
pub struct Tail {
    pub bytes: Vec<u8>,
    pub skipped: u64,
}

/// The last `limit` bytes of the file at `path`, read after a seek past the rest.
pub fn read_tail(path: &Path, limit: usize) -> std::io::Result<Tail> {
    let file = File::open(path)?;
    let size = file.metadata()?.len();
    let skipped = size.saturating_sub(limit as u64);
    let mut file = file;
    file.seek(SeekFrom::Start(skipped))?;
    let mut bytes = Vec::new();
    file.take(size - skipped).read_to_end(&mut bytes)?;
    Ok(Tail { bytes, skipped })
}

/// The first `limit` bytes of the file at `path`.
pub fn read_head(path: &Path, limit: usize) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    File::open(path)?
        .take(limit as u64)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// `tail` (the end of an output whose first `skipped` bytes are left out) as text that
/// starts on a character, not inside one.
pub fn tail_text(tail: &[u8], skipped: u64) -> (String, u64) {
    let mut start = 0;
    // UTF-8 continuation bytes are 0b10xxxxxx.
    while skipped > 0 && start < tail.len() && tail[start] & 0xC0 == 0x80 {
        start += 1;
    }
    let text = String::from_utf8_lossy(&tail[start..]).into_owned();
    (text, skipped + start as u64)
}

/// The context's text of an output whose first `skipped` bytes are not in `tail`: whole when
/// nothing is left out, else its last [`LIMIT`] bytes after a line that says how much was left
/// out and which file has it all.
pub fn tail_context_text(tail: &[u8], skipped: u64, file: &str) -> String {
    let cut = tail.len().saturating_sub(LIMIT);
    let (text, left_out) = tail_text(&tail[cut..], skipped + cut as u64);
    if left_out == 0 {
        return text;
    }
    let total = skipped + tail.len() as u64;
    format!(
        "[git-fabro: the first {left_out} of {total} bytes are left out here; {file} of the stage has them all]\n{text}"
    )
}

#[cfg(test)]
mod tests {
    use super::{LIMIT, context_text, file_context_text, read_head};

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

    #[test]
    fn a_file_reads_as_its_bytes_do_from_its_end() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("stdout.log");
        for long in [b"PASS\n".to_vec(), "é".repeat(3 * LIMIT).into_bytes()] {
            std::fs::write(&path, &long).unwrap();
            let text = file_context_text(&path, "stdout.log");
            assert_eq!(text, context_text(&long, "stdout.log"));
            assert_eq!(read_head(&path, 3).unwrap(), long[..3]);
        }
        let missing = dir.path().join("none.log");
        assert_eq!(file_context_text(&missing, "none.log"), "");
    }
}
