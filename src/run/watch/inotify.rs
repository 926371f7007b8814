//! The kernel side of a worktree watch: one inotify watch per directory, and the events read
//! back as paths relative to the root.

use std::collections::{BTreeSet, HashMap};
use std::ffi::OsStr;
use std::mem::MaybeUninit;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use rustix::fd::OwnedFd;
use rustix::fs::inotify::{self, CreateFlags, ReadFlags, WatchFlags};
use rustix::io::Errno;

use crate::git::Excludes;

/// Everything that changes a directory's entries or a file's content, mode or times.
const EVENTS: WatchFlags = WatchFlags::MODIFY
    .union(WatchFlags::ATTRIB)
    .union(WatchFlags::CLOSE_WRITE)
    .union(WatchFlags::CREATE)
    .union(WatchFlags::DELETE)
    .union(WatchFlags::MOVED_FROM)
    .union(WatchFlags::MOVED_TO)
    .union(WatchFlags::DELETE_SELF)
    .union(WatchFlags::MOVE_SELF)
    .union(WatchFlags::ONLYDIR)
    .union(WatchFlags::DONT_FOLLOW)
    .union(WatchFlags::EXCL_UNLINK);

pub(super) struct Watcher {
    fd: OwnedFd,
    root: PathBuf,
    /// Each watched directory by its watch descriptor: its path relative to the root.
    dirs: HashMap<i32, Vec<u8>>,
    /// What snapshots leave out: a directory they never take is not watched.
    excludes: Excludes,
    /// At most this many watches, so that one run leaves the user's other tools some.
    most_dirs: usize,
}

impl Watcher {
    /// Watches every directory under `root` that a snapshot with `excludes` may take; `None`
    /// when that is not possible.
    pub(super) fn start(root: &Path, excludes: Excludes) -> Option<Watcher> {
        let fd = inotify::init(CreateFlags::CLOEXEC | CreateFlags::NONBLOCK).ok()?;
        let mut watcher = Watcher {
            fd,
            root: root.to_owned(),
            dirs: HashMap::new(),
            excludes,
            most_dirs: most_dirs(),
        };
        watcher.watch_tree(Vec::new()).then_some(watcher)
    }

    /// Whether the directory at `dir` (relative to the root) holds nothing a snapshot takes.
    fn is_skipped(&self, dir: &[u8]) -> bool {
        let name = dir.rsplit(|b| *b == b'/').next().unwrap_or(dir);
        name == b".git" || self.excludes.is_excluded_dir(dir)
    }

    /// Adds the events so far to `pending`; false when they no longer tell everything (the
    /// queue overflowed, a directory moved, the root went away, a new directory could not be
    /// watched).
    pub(super) fn take_events(&mut self, pending: &mut BTreeSet<Vec<u8>>) -> bool {
        let mut buf = [MaybeUninit::<u8>::uninit(); 16 << 10];
        let mut reader = inotify::Reader::new(&self.fd, &mut buf);
        let mut new_dirs = Vec::new();
        loop {
            let event = match reader.next() {
                Ok(event) => event,
                Err(Errno::AGAIN) => break,
                Err(Errno::INTR) => continue,
                Err(_) => return false,
            };
            let flags = event.events();
            if flags.contains(ReadFlags::QUEUE_OVERFLOW) {
                return false;
            }
            if flags.contains(ReadFlags::IGNORED) {
                self.dirs.remove(&event.wd());
                continue;
            }
            let Some(dir) = self.dirs.get(&event.wd()) else {
                continue;
            };
            if flags.intersects(ReadFlags::MOVE_SELF | ReadFlags::UNMOUNT)
                || (flags.contains(ReadFlags::DELETE_SELF) && dir.is_empty())
            {
                return false;
            }
            // An event about a watched directory itself; its parent reports what matters.
            let Some(name) = event.file_name() else {
                continue;
            };
            let name = name.to_bytes();
            if name == b".git" {
                continue;
            }
            let path = join(dir, name);
            if flags.contains(ReadFlags::ISDIR) {
                if flags.contains(ReadFlags::MOVED_FROM) {
                    // The watches below it now name paths it no longer has.
                    return false;
                }
                if flags.intersects(ReadFlags::CREATE | ReadFlags::MOVED_TO)
                    && !self.is_skipped(&path)
                {
                    new_dirs.push(path.clone());
                }
            }
            pending.insert(path);
        }
        // A new directory is pending whole, so what was put in it before its watch is seen.
        new_dirs.into_iter().all(|dir| self.watch_tree(dir))
    }

    /// Watches the directory at `top` (relative to the root) and every directory below it,
    /// each before it is listed, so that nothing made in it goes unseen. False if one could
    /// not be watched.
    fn watch_tree(&mut self, top: Vec<u8>) -> bool {
        let mut todo = vec![top];
        while let Some(dir) = todo.pop() {
            let path = self.root.join(OsStr::from_bytes(&dir));
            match inotify::add_watch(&self.fd, &path, EVENTS) {
                Ok(wd) => {
                    if self.dirs.len() >= self.most_dirs {
                        return false;
                    }
                    self.dirs.insert(wd, dir.clone());
                }
                // Gone or replaced already: the event that did it names it.
                Err(Errno::NOENT | Errno::NOTDIR) if !dir.is_empty() => continue,
                Err(_) => return false,
            }
            let entries = match std::fs::read_dir(&path) {
                Ok(entries) => entries,
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => continue,
                Err(_) => return false,
            };
            for entry in entries {
                let Ok(entry) = entry else {
                    return false;
                };
                let path = join(&dir, entry.file_name().as_bytes());
                if entry.file_type().is_ok_and(|kind| kind.is_dir()) && !self.is_skipped(&path) {
                    todo.push(path);
                }
            }
        }
        true
    }
}

fn join(dir: &[u8], name: &[u8]) -> Vec<u8> {
    if dir.is_empty() {
        return name.to_vec();
    }
    let mut path = Vec::with_capacity(dir.len() + 1 + name.len());
    path.extend_from_slice(dir);
    path.push(b'/');
    path.extend_from_slice(name);
    path
}

/// Half of what the kernel lets one user watch.
fn most_dirs() -> usize {
    std::fs::read_to_string("/proc/sys/fs/inotify/max_user_watches")
        .ok()
        .and_then(|text| text.trim().parse::<usize>().ok())
        .map_or(4096, |most| most / 2)
}
