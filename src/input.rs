//! Files a user names on the command line (`--attach`, `--workflow`, `--config`). Each is read
//! whole into memory and stored in git, so only a regular file is taken, and only up to a size
//! limit: a FIFO would block the command forever, and `/dev/zero` or a huge file would read
//! until memory runs out.

use std::io::Read;
use std::path::Path;

use crate::error::{Error, Result};

/// The largest file `--attach` stores in a stage folder.
pub const MAX_ATTACHMENT: u64 = 64 << 20;
/// The largest `--workflow` graph or `--config` file read.
pub const MAX_DEFINITION: u64 = 16 << 20;

/// Reads the regular file at `path` (symlinks followed), refusing anything else and anything
/// over `limit` bytes. `what` names the input in messages, e.g. `--attach log`.
pub fn read_file(path: &Path, what: &str, limit: u64) -> Result<Vec<u8>> {
    let cannot = |err: std::io::Error| {
        Error::Usage(format!("{what}: cannot read {}: {err}", path.display()))
    };
    // Checked before opening: opening a FIFO blocks until someone writes to it.
    let metadata = std::fs::metadata(path).map_err(cannot)?;
    refuse_special(path, what, &metadata)?;
    let file = std::fs::File::open(path).map_err(cannot)?;
    // The path may have been replaced between the check and the open.
    refuse_special(path, what, &file.metadata().map_err(cannot)?)?;
    let mut data = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut data)
        .map_err(cannot)?;
    if data.len() as u64 > limit {
        return Err(Error::Usage(format!(
            "{what}: {} is larger than {}, the most git-fabro takes",
            path.display(),
            human_size(limit)
        )));
    }
    Ok(data)
}

fn refuse_special(path: &Path, what: &str, metadata: &std::fs::Metadata) -> Result<()> {
    if metadata.is_file() {
        return Ok(());
    }
    let kind = if metadata.is_dir() {
        "a directory"
    } else {
        "not a regular file (a FIFO, socket or device)"
    };
    Err(Error::Usage(format!(
        "{what}: {} is {kind}",
        path.display()
    )))
}

/// `64 MiB`, `512 KiB` or `100 bytes`.
pub fn human_size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 && b % (1 << 30) == 0 => format!("{} GiB", b >> 30),
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}
