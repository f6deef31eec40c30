//! Damaged files

use sinew::FormatErrorKind;
use sinew::bake::file::{FORMAT_VERSION, OLDEST_FORMAT_VERSION, to_bytes};

use super::fixtures::{COUNT_AT, LENGTH_AT, VERSION_AT, kind_of, shared_rigs, table_end, u32_at};

#[test]
fn empty_file_is_truncated() {
    let kind = kind_of(&[]);
    assert!(
        matches!(kind, FormatErrorKind::Truncated { .. }),
        "empty file gave {kind:?}"
    );
}

#[test]
fn every_cut_point_is_truncated() {
    let Some(rigs) = shared_rigs("Fox.glb") else {
        return;
    };
    let bytes = to_bytes(&rigs);
    let body = bytes.len() - table_end(&bytes);
    let cuts = (0..table_end(&bytes))
        .chain((0..500).map(|k| table_end(&bytes) + k * body / 500))
        .chain([bytes.len() - 1]);
    for cut in cuts {
        let kind = kind_of(&bytes[..cut]);
        assert!(
            matches!(kind, FormatErrorKind::Truncated { .. }),
            "cut at {cut} of {}: {kind:?}",
            bytes.len()
        );
    }
}

#[test]
fn bit_flips_are_detected() {
    let Some(rigs) = shared_rigs("Fox.glb") else {
        return;
    };
    let bytes = to_bytes(&rigs);
    let positions = (0..table_end(&bytes)).chain((table_end(&bytes)..bytes.len()).step_by(97));
    for at in positions {
        let mut damaged = bytes.clone();
        damaged[at] ^= 1 << (at % 8);
        let version = u32_at(&damaged, VERSION_AT);
        if (8..12).contains(&at) && (OLDEST_FORMAT_VERSION..=FORMAT_VERSION).contains(&version) {
            // Another version this build reads (the header is not checksummed).
            continue;
        }
        let kind = kind_of(&damaged);
        let expected = match at {
            0..8 => matches!(kind, FormatErrorKind::BadMagic),
            // The header is not checksummed: a flip to an older supported version reads the
            // body in that version's layout, which does not fit.
            8..12 => matches!(
                kind,
                FormatErrorKind::UnsupportedVersion { .. } | FormatErrorKind::Corrupt { .. }
            ),
            // A longer declared length looks exactly like a shorter file.
            LENGTH_AT..COUNT_AT => matches!(
                kind,
                FormatErrorKind::Truncated { .. } | FormatErrorKind::ChecksumMismatch { .. }
            ),
            _ => matches!(kind, FormatErrorKind::ChecksumMismatch { .. }),
        };
        assert!(expected, "bit flip in byte {at}: {kind:?}");
    }
}

#[test]
fn appended_bytes_fail_the_checksum() {
    let Some(rigs) = shared_rigs("RiggedSimple.glb") else {
        return;
    };
    let mut bytes = to_bytes(&rigs);
    bytes.extend_from_slice(&[0; 16]);
    let kind = kind_of(&bytes);
    assert!(
        matches!(kind, FormatErrorKind::ChecksumMismatch { .. }),
        "{kind:?}"
    );
}

#[test]
fn future_version_is_unsupported() {
    let mut bytes = to_bytes(&[]);
    bytes[VERSION_AT..VERSION_AT + 4].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    assert_eq!(
        kind_of(&bytes),
        FormatErrorKind::UnsupportedVersion {
            found: FORMAT_VERSION + 1,
            supported: FORMAT_VERSION
        }
    );
}

#[test]
fn bad_magic_is_rejected() {
    let mut bytes = to_bytes(&[]);
    bytes[..4].copy_from_slice(b"glTF");
    assert_eq!(kind_of(&bytes), FormatErrorKind::BadMagic);
}

#[test]
fn short_file_with_foreign_start_is_bad_magic() {
    assert_eq!(kind_of(b"{\"a"), FormatErrorKind::BadMagic);
}
