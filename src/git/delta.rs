//! Git's pack delta format: a delta rebuilds an object from its base by copying ranges of the
//! base and inserting literal bytes. Every size and range is checked against the data, so a
//! hostile pack yields `None`, never a panic or an allocation it names.

/// The object `delta` makes of `base`, at most `limit` bytes; `None` when the delta does not fit
/// the base or describes something else than it makes.
pub fn apply(base: &[u8], delta: &[u8], limit: usize) -> Option<Vec<u8>> {
    let mut ops = delta;
    let base_size = size(&mut ops)?;
    let result_size = usize::try_from(size(&mut ops)?).ok()?;
    if base_size != base.len() as u64 || result_size > limit {
        return None;
    }
    let mut out = Vec::with_capacity(result_size);
    while let Some((&op, rest)) = ops.split_first() {
        ops = rest;
        if op & 0x80 != 0 {
            let offset = usize::try_from(packed(&mut ops, op, 4)?).ok()?;
            let size = match packed(&mut ops, op >> 4, 3)? {
                0 => 0x10000,
                size => size as usize,
            };
            out.extend_from_slice(base.get(offset..offset.checked_add(size)?)?);
        } else if op != 0 {
            let (literal, rest) = ops.split_at_checked(usize::from(op))?;
            out.extend_from_slice(literal);
            ops = rest;
        } else {
            return None;
        }
        if out.len() > result_size {
            return None;
        }
    }
    (out.len() == result_size).then_some(out)
}

/// A size in the delta's header: seven bits a byte, least significant first, while the top bit
/// is set.
fn size(data: &mut &[u8]) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = data.split_first()?;
        *data = rest;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

/// A copy's offset or size: of its `bytes` little-endian bytes, only those whose bit is set in
/// `present` follow the op.
fn packed(data: &mut &[u8], present: u8, bytes: u32) -> Option<u64> {
    let mut value = 0u64;
    for i in 0..bytes {
        if present & (1 << i) != 0 {
            let (&byte, rest) = data.split_first()?;
            *data = rest;
            value |= u64::from(byte) << (8 * i);
        }
    }
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::apply;

    #[test]
    fn copies_and_inserts_as_the_delta_says() {
        let base = b"hello, world";
        // Base 12 bytes, result 11: copy 5 at 0, insert " all", copy 2 at 10.
        let delta = [12, 11, 0x90, 5, 4, b' ', b'a', b'l', b'l', 0x91, 10, 2];
        assert_eq!(
            apply(base, &delta, 100).as_deref(),
            Some(&b"hello allld"[..])
        );
    }

    #[test]
    fn a_copy_of_size_zero_copies_64_kib() {
        let base = vec![7u8; 0x10000];
        let delta = [0x80, 0x80, 0x04, 0x80, 0x80, 0x04, 0x80];
        assert_eq!(apply(&base, &delta, 1 << 20), Some(base));
    }

    #[test]
    fn refuses_what_does_not_fit() {
        let base = b"abc";
        // Copy past the base's end.
        assert_eq!(apply(base, &[3, 4, 0x91, 1, 4], 100), None);
        // A base of another size.
        assert_eq!(apply(base, &[4, 1, 1, b'x'], 100), None);
        // A result larger than the limit.
        assert_eq!(apply(base, &[3, 2, 2, b'x', b'y'], 1), None);
        // Fewer bytes made than the header says, and more.
        assert_eq!(apply(base, &[3, 3, 1, b'x'], 100), None);
        assert_eq!(apply(base, &[3, 1, 2, b'x', b'y'], 100), None);
        // The reserved op 0, a literal cut short, a size that never ends.
        assert_eq!(apply(base, &[3, 1, 0], 100), None);
        assert_eq!(apply(base, &[3, 2, 2, b'x'], 100), None);
        assert_eq!(apply(base, &[0xff; 12], 100), None);
    }
}
