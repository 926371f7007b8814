//! Commits read straight from the repository's packs, each pack entry inflated once per walk.
//!
//! `git gc` stores most checkpoint commits as deltas, two or three deep, on neighbouring
//! checkpoints. The object store resolves every delta chain down to its base again, so the
//! first walk of a packed run inflated each base once for every delta on it: 2.6 inflations a
//! commit. This reader keeps each object it rebuilds, as git keeps delta bases, so a walk
//! inflates each entry once. Whatever it cannot read itself (an object in no pack it opened, a
//! delta on an object named by id, a damaged entry) it leaves to the object store, which then
//! reads it or says what is wrong.

use std::collections::HashMap;
use std::path::Path;

use gix::objs::Kind;
use gix::odb::pack::Bundle;
use gix::odb::pack::data::entry::Header;

use super::ObjectId;
use super::delta;

/// The most bytes of rebuilt objects kept for the deltas still to come; past it they are all
/// dropped, and a later delta on one of them rebuilds it again.
const KEPT: usize = 32 << 20;

/// Larger objects than this are left to the object store and its allocation limit.
const LARGEST: usize = 64 << 20;

/// Deeper delta chains than this are left to the object store (git makes them 50 deep).
const DEEPEST: usize = 10_000;

pub struct PackReader {
    packs: Vec<Bundle>,
    kept: Kept,
    inflate: gix::zlib::Inflate,
}

impl PackReader {
    /// A reader of the packs in `objects/pack` of `objects`, opened as they are now.
    pub fn open(objects: &Path, hash: gix::hash::Kind) -> PackReader {
        let packs = std::fs::read_dir(objects.join("pack"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "idx"))
            .filter_map(|idx| Bundle::at(idx, hash).ok())
            .collect();
        PackReader {
            packs,
            kept: Kept::default(),
            inflate: gix::zlib::Inflate::default(),
        }
    }

    /// Commit `id`'s content into `out`; `None` when this reader cannot give it.
    pub fn commit(&mut self, id: ObjectId, out: &mut Vec<u8>) -> Option<()> {
        let at = self.packs.iter().enumerate().find_map(|(pack, bundle)| {
            let entry = bundle.index.lookup(id)?;
            Some((pack, bundle.index.pack_offset_at_index(entry)))
        })?;
        if self.kept.get(at).is_none() {
            self.rebuild(at)?;
        }
        let (kind, content) = self.kept.get(at)?;
        out.clear();
        out.extend_from_slice(content);
        (kind == Kind::Commit).then_some(())
    }

    /// Rebuilds and keeps the object at `(pack, offset)`, from the nearest kept object or base
    /// down its delta chain.
    fn rebuild(&mut self, (pack, offset): (usize, u64)) -> Option<()> {
        let data = &self.packs.get(pack)?.pack;
        let mut deltas = Vec::new();
        let mut cursor = offset;
        while self.kept.get((pack, cursor)).is_none() {
            let entry = data.entry(cursor).ok()?;
            match entry.header {
                Header::OfsDelta { base_distance } if deltas.len() < DEEPEST => {
                    cursor = entry.checked_base_pack_offset(base_distance)?;
                    deltas.push(entry);
                }
                Header::OfsDelta { .. } | Header::RefDelta { .. } => return None,
                header => {
                    let content = inflated(data, &entry, &mut self.inflate)?;
                    self.kept.put((pack, cursor), header.as_kind()?, content);
                }
            }
        }
        for entry in deltas.iter().rev() {
            let (kind, base) = self.kept.get((pack, cursor))?;
            let instructions = inflated(data, entry, &mut self.inflate)?;
            let content = delta::apply(base, &instructions, LARGEST)?;
            cursor = entry.pack_offset();
            self.kept.put((pack, cursor), kind, content);
        }
        Some(())
    }
}

/// Rebuilt objects by pack and offset, for the deltas still to come.
#[derive(Default)]
struct Kept {
    objects: HashMap<(usize, u64), (Kind, Vec<u8>)>,
    bytes: usize,
}

impl Kept {
    fn get(&self, at: (usize, u64)) -> Option<(Kind, &[u8])> {
        self.objects
            .get(&at)
            .map(|(kind, content)| (*kind, content.as_slice()))
    }

    /// Keeps `content`, dropping all kept before when they would take more than `KEPT` with it.
    fn put(&mut self, at: (usize, u64), kind: Kind, content: Vec<u8>) {
        if self.bytes + content.len() > KEPT {
            self.objects.clear();
            self.bytes = 0;
        }
        self.bytes += content.len();
        self.objects.insert(at, (kind, content));
    }
}

/// Room past an entry's end for zlib's fast loop, which runs only while 258 bytes of output
/// space are left: in a buffer of the entry's exact size, a commit inflates in the slow loop
/// from its first byte to its last, at twice the instructions.
const FAST_INFLATE_ROOM: usize = 258;

/// The inflated data of `entry`: an object's content, or a delta's instructions. The stream
/// must end at exactly the size the entry's header gives.
fn inflated(
    data: &gix::odb::pack::data::File,
    entry: &gix::odb::pack::data::Entry,
    inflate: &mut gix::zlib::Inflate,
) -> Option<Vec<u8>> {
    let size = usize::try_from(entry.decompressed_size)
        .ok()
        .filter(|size| *size <= LARGEST)?;
    let pack_end = u64::try_from(data.pack_end()).ok()?;
    let input = data.entry_slice(entry.data_offset..pack_end)?;
    let mut out = vec![0; size + FAST_INFLATE_ROOM];
    inflate.reset();
    let (status, _, written) = inflate.once(input, &mut out).ok()?;
    (status == gix::zlib::Status::StreamEnd && written == size).then_some(())?;
    out.truncate(size);
    Some(out)
}
