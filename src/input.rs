//! Files a user names on the command line (`--attach`, `--workflow`, `--config`). Each is read
//! whole into memory and stored in git, so only a regular file is taken, and only up to a size
//! limit: a FIFO would block the command forever, and `/dev/zero` or a huge file would read
//! until memory runs out. What a user names as an argument (`--workflow`, `WORKFLOW`) may
//! also be `-` or a pipe, as git takes them ([`read_named`]). A file of the kernel's
//! (`/proc/self/environ`, `/sys/...`) is not a file of anyone's, whatever link leads there:
//! read, it would put git-fabro's own environment, tokens included, into a record.

use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

use crate::error::{Error, Result};

pub mod agent_dirs;
pub mod transcript;

/// Where the kernel shows itself as files: never read, by path or through a link.
const KERNEL_DIRS: &[&str] = &["/proc", "/sys"];
/// Beside those, where an attachment is never read from: the devices' folder.
const NOT_ATTACHED_DIRS: &[&str] = &["/proc", "/sys", "/dev"];

/// The largest file `--attach` stores in a stage folder.
pub const MAX_ATTACHMENT: u64 = 64 << 20;
/// The largest `--workflow` graph or `--config` file read.
pub const MAX_DEFINITION: u64 = 16 << 20;

/// Reads the regular file at `path` (symlinks followed), refusing anything else, a file of
/// the kernel's, and anything over `limit` bytes. `what` names the input in messages, e.g.
/// `--workflow`.
pub fn read_file(path: &Path, what: &str, limit: u64) -> Result<Vec<u8>> {
    read_limited(open_regular(path, what, KERNEL_DIRS)?, path, what, limit)
}

/// Reads a file to be stored as a stage's attachment (`--attach`), as [`read_file`] does,
/// refusing also what is in, or leads into, `/dev`.
pub fn read_attachment(path: &Path, what: &str, limit: u64) -> Result<Vec<u8>> {
    read_limited(
        open_regular(path, what, NOT_ATTACHED_DIRS)?,
        path,
        what,
        limit,
    )
}

/// Opens the regular file at `path`, which neither is nor leads into one of `refused`.
fn open_regular(path: &Path, what: &str, refused: &[&str]) -> Result<std::fs::File> {
    let cannot = cannot_read(path, what);
    // Checked before opening: opening a FIFO blocks until someone writes to it.
    let metadata = std::fs::metadata(path).map_err(cannot)?;
    refuse_special(path, what, &metadata)?;
    let real = std::fs::canonicalize(path).map_err(cannot_read(path, what))?;
    refuse_places(path, &real, what, refused)?;
    let file = std::fs::File::open(&real).map_err(cannot_read(path, what))?;
    // The path may have been replaced between the check and the open.
    refuse_special(
        path,
        what,
        &file.metadata().map_err(cannot_read(path, what))?,
    )?;
    refuse_kernel_filesystem(&file, path, what)?;
    Ok(file)
}

fn read_limited(file: std::fs::File, path: &Path, what: &str, limit: u64) -> Result<Vec<u8>> {
    let mut data = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut data)
        .map_err(cannot_read(path, what))?;
    if data.len() as u64 > limit {
        return Err(Error::Usage(format!(
            "{what}: {} is larger than {}, the most git-fabro takes",
            path.display(),
            human_size(limit)
        )));
    }
    Ok(data)
}

fn cannot_read(path: &Path, what: &str) -> impl FnOnce(std::io::Error) -> Error {
    let message = format!("{what}: cannot read {}", path.display());
    move |err| Error::Usage(format!("{message}: {err}"))
}

/// Refuses `path` when it, or `real` (it with every link resolved), is in one of `refused`.
fn refuse_places(path: &Path, real: &Path, what: &str, refused: &[&str]) -> Result<()> {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    let Some(dir) = refused
        .iter()
        .find(|dir| absolute.starts_with(dir) || real.starts_with(dir))
    else {
        return Ok(());
    };
    Err(Error::Usage(format!(
        "{what}: {} is in or leads into {dir}, which holds no file git-fabro reads",
        path.display()
    )))
}

/// Refuses a file on procfs or sysfs wherever they are mounted (a container's `/host/proc`).
#[cfg(target_os = "linux")]
fn refuse_kernel_filesystem(file: &std::fs::File, path: &Path, what: &str) -> Result<()> {
    /// sysfs's magic number (`SYSFS_MAGIC` in `linux/magic.h`).
    const SYSFS_MAGIC: rustix::fs::FsWord = 0x6265_6572;
    let Ok(fs) = rustix::fs::fstatfs(file) else {
        return Ok(());
    };
    if fs.f_type == rustix::fs::PROC_SUPER_MAGIC || fs.f_type == SYSFS_MAGIC {
        return Err(Error::Usage(format!(
            "{what}: {} is a file of the kernel's (procfs or sysfs), which git-fabro never reads",
            path.display()
        )));
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn refuse_kernel_filesystem(_file: &std::fs::File, _path: &Path, _what: &str) -> Result<()> {
    Ok(())
}

/// Reads what a user named on the command line: `-` is standard input, and a pipe (a shell's
/// `<(...)`) is read as it streams, both up to `limit` bytes; anything else as [`read_file`].
/// A stream can be read only once, while a command reads its workflow in more than one layer
/// (checked, then recorded and hashed): the bytes of each stream are kept for the rest of the
/// command, so every reader sees the same text.
pub fn read_named(path: &Path, what: &str, limit: u64) -> Result<Vec<u8>> {
    if !is_stream(path) {
        return read_file(path, what, limit);
    }
    static READ: Mutex<Vec<(PathBuf, Vec<u8>)>> = Mutex::new(Vec::new());
    let mut read = READ
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((_, data)) = read.iter().find(|(p, _)| p == path) {
        return Ok(data.clone());
    }
    let cannot = |err: std::io::Error| {
        Error::Usage(format!("{what}: cannot read {}: {err}", path.display()))
    };
    let mut data = Vec::new();
    if path == Path::new("-") {
        std::io::stdin()
            .lock()
            .take(limit + 1)
            .read_to_end(&mut data)
            .map_err(cannot)?;
    } else {
        open_pipe(path)
            .map_err(cannot)?
            .take(limit + 1)
            .read_to_end(&mut data)
            .map_err(cannot)?;
    }
    if data.is_empty() {
        return Err(Error::Usage(format!(
            "{what}: {} gave nothing to read (a pipe nobody writes to?)",
            path.display()
        )));
    }
    if data.len() as u64 > limit {
        return Err(Error::Usage(format!(
            "{what}: {} is larger than {}, the most git-fabro takes",
            path.display(),
            human_size(limit)
        )));
    }
    read.push((path.to_owned(), data.clone()));
    Ok(data)
}

/// Opens a pipe for reading without waiting for a writer (opening a named FIFO nobody writes
/// to would block forever; read, it ends at once), then reads it as any pipe.
#[cfg(unix)]
fn open_pipe(path: &Path) -> std::io::Result<std::fs::File> {
    use rustix::fs::{OFlags, fcntl_getfl, fcntl_setfl};
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(OFlags::NONBLOCK.bits() as i32)
        .open(path)?;
    let flags = fcntl_getfl(&file)?;
    fcntl_setfl(&file, flags - OFlags::NONBLOCK)?;
    Ok(file)
}

#[cfg(not(unix))]
fn open_pipe(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::File::open(path)
}

/// Whether `path`, named on the command line, is `-` or a pipe.
pub fn is_stream(path: &Path) -> bool {
    #[cfg(unix)]
    use std::os::unix::fs::FileTypeExt;
    if path == Path::new("-") {
        return true;
    }
    #[cfg(unix)]
    return std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo());
    #[cfg(not(unix))]
    false
}

/// The directory a named file's neighbours are read from: beside a file, the current one for
/// a stream (a pipe's `/dev/fd` holds nothing of the user's).
pub fn named_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !is_stream(path) => dir,
        _ => Path::new(""),
    }
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

/// `a/./b/../c` as `a/c`: `.` and `..` taken out by the path's words alone, without asking
/// the file system (`..` at the root stays there).
pub fn lexically_normal(path: &Path) -> PathBuf {
    let mut normal = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                normal.pop();
            }
            other => normal.push(other),
        }
    }
    normal
}
