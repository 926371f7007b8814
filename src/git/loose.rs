//! Loose objects, written as git and gix write them (a zlib stream in a temporary file in the
//! object directory, renamed into place, read-only).
//!
//! A new zlib compressor zeroes about 300 KB, and in a short-lived process that is fresh
//! memory, a page fault every 4 KB: more than all the rest of writing a small object. So an
//! object whose uncompressed stream fits in one filesystem block, where compressing it could
//! not save any disk, is stored uncompressed; larger ones are compressed at
//! `core.looseCompression`, with one compressor kept per thread.

use std::cell::RefCell;
use std::io::Write as _;
use std::path::Path;

use gix::zlib::stream::deflate::{Compress, FlushCompress};
use gix::zlib::{Compression, Status};

use super::{ObjectId, Repo};
use crate::git::error::{Error, Result};

thread_local! {
    static COMPRESSOR: RefCell<Option<(i32, Compress)>> = const { RefCell::new(None) };
}

impl Repo {
    /// Writes `data` as an object of `kind` unless the repository has it already.
    pub(super) fn write_loose(&self, kind: gix::objs::Kind, data: &[u8]) -> Result<ObjectId> {
        let id = gix::objs::compute_hash(self.repo.object_hash(), kind, data)
            .map_err(|err| Error::Failed(format!("cannot hash an object: {err}")))?;
        if self.repo.objects.exists_without_refresh(&id) {
            return Ok(id);
        }
        let header = gix::objs::encode::loose_header(kind, data.len() as u64);
        let compressed = match stored(&header, data) {
            Some(stream) => stream,
            None => deflate(self.loose_compression(), &header, data)?,
        };
        let objects = self.repo.objects.store_ref().path();
        super::maintenance::retry_write(|| persist(objects, id, &compressed))?;
        Ok(id)
    }

    /// Encodes `object` into `buf` (emptied first, so one buffer serves many objects) and
    /// writes it.
    pub(super) fn write_encoded(
        &self,
        object: &impl gix::objs::WriteTo,
        buf: &mut Vec<u8>,
    ) -> Result<ObjectId> {
        buf.clear();
        object
            .write_to(buf)
            .map_err(|err| Error::Failed(format!("cannot write a {}: {err}", object.kind())))?;
        self.write_loose(object.kind(), buf)
    }

    /// The level of `core.looseCompression`, else `core.compression` (-1 is zlib's default),
    /// else git's 1.
    fn loose_compression(&self) -> Compression {
        let config = self.repo.config_snapshot();
        let level = config
            .integer("core.looseCompression")
            .or_else(|| config.integer("core.compression"));
        match level {
            Some(-1) => Compression::DEFAULT,
            Some(level) => i32::try_from(level)
                .ok()
                .and_then(Compression::new)
                .unwrap_or(Compression::BEST_SPEED),
            None => Compression::BEST_SPEED,
        }
    }
}

/// The size of a filesystem block, the least a loose object takes on disk.
const ONE_BLOCK: usize = 4096;

/// `header` and `data` as a zlib stream of one uncompressed deflate block, if it fits in
/// [`ONE_BLOCK`].
fn stored(header: &[u8], data: &[u8]) -> Option<Vec<u8>> {
    // The zlib header, the block's header and the Adler-32 checksum.
    const FRAMING: usize = 2 + 5 + 4;
    let len = header.len() + data.len();
    if len + FRAMING > ONE_BLOCK {
        return None;
    }
    let block_len = u16::try_from(len).ok()?;
    let mut out = Vec::with_capacity(len + FRAMING);
    // Deflate with a 32 KiB window and a valid check; then the last block, stored.
    out.extend_from_slice(&[0x78, 0x01, 0x01]);
    out.extend_from_slice(&block_len.to_le_bytes());
    out.extend_from_slice(&(!block_len).to_le_bytes());
    out.extend_from_slice(header);
    out.extend_from_slice(data);
    out.extend_from_slice(&adler32(&[header, data]).to_be_bytes());
    Some(out)
}

/// zlib's checksum of the concatenated `parts`.
fn adler32(parts: &[&[u8]]) -> u32 {
    const MOD: u32 = 65521;
    let (mut a, mut b) = (1u32, 0u32);
    // 5552 bytes is the most that can be summed before the sums could overflow a u32.
    for chunk in parts.iter().flat_map(|part| part.chunks(5552)) {
        for &byte in chunk {
            a += u32::from(byte);
            b += a;
        }
        a %= MOD;
        b %= MOD;
    }
    (b << 16) | a
}

/// `header` and `data` as one compressed zlib stream, with this thread's compressor.
fn deflate(level: Compression, header: &[u8], data: &[u8]) -> Result<Vec<u8>> {
    COMPRESSOR.with_borrow_mut(|slot| {
        let compressor = match slot {
            Some((kept, compressor)) if *kept == level.level() => {
                compressor.reset();
                compressor
            }
            _ => &mut slot.insert((level.level(), Compress::new(level))).1,
        };
        let len = header.len() + data.len();
        // zlib's bound for a stream that falls back to stored blocks, and the zlib wrapper.
        let mut out = vec![0; len + (len >> 12) + (len >> 14) + 64];
        let mut written = 0;
        for (mut input, flush) in [(header, FlushCompress::None), (data, FlushCompress::Finish)] {
            loop {
                let (read_before, written_before) = (compressor.total_in(), compressor.total_out());
                let status = compressor
                    .compress(input, &mut out[written..], flush)
                    .map_err(|err| Error::Failed(format!("cannot compress an object: {err}")))?;
                input = &input[(compressor.total_in() - read_before) as usize..];
                written += (compressor.total_out() - written_before) as usize;
                match status {
                    Status::StreamEnd => break,
                    _ if flush == FlushCompress::None && input.is_empty() => break,
                    _ if written == out.len() => out.resize(out.len() * 2, 0),
                    Status::BufError => {
                        return Err(Error::Failed("cannot compress an object".to_owned()));
                    }
                    Status::Ok => {}
                }
            }
        }
        out.truncate(written);
        Ok(out)
    })
}

/// Moves the compressed object into `objects/xx/`, through a read-only temporary file.
fn persist(objects: &Path, id: ObjectId, compressed: &[u8]) -> Result<()> {
    let context = || format!("cannot write object {id} in {}", objects.display());
    let mut file = tempfile::Builder::new()
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o444))
        .tempfile_in(objects)
        .map_err(Error::io(context()))?;
    file.write_all(compressed).map_err(Error::io(context()))?;
    let hex = id.to_hex().to_string();
    let fanout = objects.join(&hex[..2]);
    let target = fanout.join(&hex[2..]);
    // Most fan-out directories exist already: create one only when the rename says it is
    // missing, as git does.
    let file = match file.persist(&target) {
        Err(err) if err.error.kind() == std::io::ErrorKind::NotFound => err.file,
        done => {
            return done
                .map(drop)
                .map_err(|err| Error::io(context())(err.error));
        }
    };
    match std::fs::create_dir(&fanout) {
        Err(err) if err.kind() != std::io::ErrorKind::AlreadyExists => {
            return Err(Error::io(context())(err));
        }
        _ => {}
    }
    file.persist(&target)
        .map_err(|err| Error::io(context())(err.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inflate(stream: &[u8]) -> Vec<u8> {
        let mut out = vec![0; ONE_BLOCK];
        let mut inflate = gix::zlib::Inflate::default();
        let (status, read, written) = inflate.once(stream, &mut out).expect("a valid zlib stream");
        assert_eq!((status, read), (Status::StreamEnd, stream.len()));
        out.truncate(written);
        out
    }

    #[test]
    fn a_small_object_is_one_stored_block_that_zlib_reads() {
        for len in [0, 1, 300, ONE_BLOCK - 11 - 11] {
            let data: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
            let header = gix::objs::encode::loose_header(gix::objs::Kind::Blob, len as u64);
            let stream = stored(&header, &data).expect("fits in a block");
            assert_eq!(stream.len(), header.len() + len + 11);
            assert_eq!(inflate(&stream), [&header[..], &data].concat());
            // The same checksum as zlib's own stream of the same bytes.
            let compressed = deflate(Compression::BEST_SPEED, &header, &data).unwrap();
            assert_eq!(
                stream[stream.len() - 4..],
                compressed[compressed.len() - 4..]
            );
        }
    }

    #[test]
    fn an_object_over_a_block_is_compressed() {
        let header = gix::objs::encode::loose_header(gix::objs::Kind::Blob, 4086);
        assert!(stored(&header, &[b'a'; 4086]).is_none());
    }
}
