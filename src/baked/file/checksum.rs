//! The `.sinew` checksum: FNV-1a over little-endian 64-bit words, finished with an avalanche.

const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME: u64 = 0x0000_0100_0000_01b3;

/// The 64-bit checksum `.sinew` files store over the bytes after their header.
///
/// Each 8-byte little-endian word `w` updates the state as `h = ((h ^ w) * PRIME).rotl(29)`
/// (FNV-1a with 64-bit words, the rotation carrying high bits back down); the last `len % 8`
/// bytes update it one at a time without the rotation; the length is mixed in and the result
/// finished with the MurmurHash3 64-bit finalizer. Every step is a bijection of the state for
/// a fixed input, so any change confined to one word, in particular any single bit flip, always
/// changes the checksum. Not cryptographic: it detects damage, not tampering.
pub fn checksum(bytes: &[u8]) -> u64 {
    let (words, tail) = bytes.as_chunks::<8>();
    let mut h = OFFSET_BASIS;
    for word in words {
        h = ((h ^ u64::from_le_bytes(*word)).wrapping_mul(PRIME)).rotate_left(29);
    }
    for &byte in tail {
        h = (h ^ u64::from(byte)).wrapping_mul(PRIME);
    }
    h ^= bytes.len() as u64;
    // MurmurHash3 fmix64.
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}
