//! The envelope of a `.sinew` file: header, checksum, section table, aligned section bodies.

use std::collections::BTreeMap;
use std::fmt;

use super::section::{ALIGN, count, pad};
use super::{FORMAT_VERSION, MAGIC, OLDEST_FORMAT_VERSION, checksum};
use crate::error::FormatErrorKind;

/// Bytes before the checksummed part: magic, version, checksum.
const HEADER_LEN: usize = 20;
/// Offset of the checksum.
const CHECKSUM_AT: usize = 12;
/// Offset of the file length.
const LENGTH_AT: usize = 20;
/// Offset of the section count.
const COUNT_AT: usize = 28;
/// Offset of the section table.
const TABLE_AT: usize = 32;
/// Size of one section table entry.
const ENTRY_LEN: usize = 32;

/// What a section holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum SectionKind {
    /// Rig name, skin joints, joint bounds, mesh count.
    Rig = 1,
    /// The skeleton.
    Skeleton = 2,
    /// The clip library.
    Clips = 3,
    /// One skinned mesh.
    Mesh = 4,
    /// The rig's morph nodes and weight tracks (only for a rig with morph targets; since
    /// version 2).
    Morph = 5,
    /// One skinned mesh's morph targets (only for a mesh with some; since version 2).
    MeshMorph = 6,
    /// One skinned mesh's influences 5-8 (only for a mesh with more than four; since version 3).
    MeshInfluences = 7,
    /// The rig's compressed clips (only for a rig that has them; since version 4).
    Compressed = 8,
    /// The rig's materials and their images (only for a rig with a material; since version 6).
    Materials = 9,
    /// One skinned mesh's material, vertex colours and second UV set (only for a mesh with one
    /// of them; since version 6).
    MeshSurface = 10,
    /// The rig's clip markers (only for a rig with some; since version 9).
    Markers = 11,
}

impl SectionKind {
    fn from_u32(kind: u32) -> Option<Self> {
        match kind {
            1 => Some(Self::Rig),
            2 => Some(Self::Skeleton),
            3 => Some(Self::Clips),
            4 => Some(Self::Mesh),
            5 => Some(Self::Morph),
            6 => Some(Self::MeshMorph),
            7 => Some(Self::MeshInfluences),
            8 => Some(Self::Compressed),
            9 => Some(Self::Materials),
            10 => Some(Self::MeshSurface),
            11 => Some(Self::Markers),
            _ => None,
        }
    }
}

/// Which section: its kind, the rig it belongs to and, for meshes, the mesh number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct SectionId {
    /// Rig index.
    pub rig: u32,
    /// What the section holds.
    pub kind: SectionKind,
    /// Mesh index for [`SectionKind::Mesh`], [`SectionKind::MeshMorph`],
    /// [`SectionKind::MeshInfluences`] and [`SectionKind::MeshSurface`], 0 otherwise.
    pub index: u32,
}

impl SectionId {
    /// The section of `kind` of rig `rig` (not a mesh).
    pub fn of(kind: SectionKind, rig: u32) -> Self {
        Self {
            rig,
            kind,
            index: 0,
        }
    }

    /// Mesh `index` of rig `rig`.
    pub fn mesh(rig: u32, index: u32) -> Self {
        Self {
            rig,
            kind: SectionKind::Mesh,
            index,
        }
    }

    /// Section `kind` of mesh `index` of rig `rig` (a mesh's morph targets, influences or
    /// surface).
    pub fn of_mesh(kind: SectionKind, rig: u32, index: u32) -> Self {
        Self { rig, kind, index }
    }

    /// The error for a violated invariant of this section.
    pub fn corrupt(self, reason: String) -> FormatErrorKind {
        FormatErrorKind::Corrupt {
            section: self.to_string(),
            reason,
        }
    }
}

impl fmt::Display for SectionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            SectionKind::Rig => write!(f, "rig {}", self.rig),
            SectionKind::Skeleton => write!(f, "rig {} skeleton", self.rig),
            SectionKind::Clips => write!(f, "rig {} clips", self.rig),
            SectionKind::Mesh => write!(f, "rig {} mesh {}", self.rig, self.index),
            SectionKind::Morph => write!(f, "rig {} morph", self.rig),
            SectionKind::MeshMorph => {
                write!(f, "rig {} mesh {} morph targets", self.rig, self.index)
            }
            SectionKind::MeshInfluences => {
                write!(f, "rig {} mesh {} influences", self.rig, self.index)
            }
            SectionKind::Compressed => write!(f, "rig {} compressed clips", self.rig),
            SectionKind::Materials => write!(f, "rig {} materials", self.rig),
            SectionKind::MeshSurface => write!(f, "rig {} mesh {} surface", self.rig, self.index),
            SectionKind::Markers => write!(f, "rig {} clip markers", self.rig),
        }
    }
}

/// One encoded section.
pub(super) struct Section {
    /// Which section.
    pub id: SectionId,
    /// Its body.
    pub body: Vec<u8>,
}

/// The whole file holding `sections`.
pub(super) fn assemble(sections: &[Section]) -> Vec<u8> {
    let table_end = TABLE_AT + ENTRY_LEN * sections.len();
    let body_len: usize = sections.iter().map(|s| s.body.len() + ALIGN).sum();
    let mut out = Vec::with_capacity(table_end + body_len);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&[0; 16]); // checksum and length, filled in below
    out.extend_from_slice(&count(sections.len()).to_le_bytes());
    let mut offset = table_end;
    for section in sections {
        offset = offset.next_multiple_of(ALIGN);
        for word in [section.id.kind as u32, section.id.rig, section.id.index, 0] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        out.extend_from_slice(&(offset as u64).to_le_bytes());
        out.extend_from_slice(&(section.body.len() as u64).to_le_bytes());
        offset += section.body.len();
    }
    for section in sections {
        pad(&mut out);
        out.extend_from_slice(&section.body);
    }
    let length = (out.len() as u64).to_le_bytes();
    out[LENGTH_AT..LENGTH_AT + 8].copy_from_slice(&length);
    let sum = checksum(&out[HEADER_LEN..]).to_le_bytes();
    out[CHECKSUM_AT..CHECKSUM_AT + 8].copy_from_slice(&sum);
    out
}

/// The sections of a file whose envelope checked out, handed out once each.
pub(super) struct SectionTable<'a> {
    sections: BTreeMap<SectionId, &'a [u8]>,
    /// The file's format version.
    pub version: u32,
}

impl<'a> SectionTable<'a> {
    /// Number of rigs (rig sections) in the file.
    pub fn rig_count(&self) -> u32 {
        count(
            self.sections
                .keys()
                .filter(|id| id.kind == SectionKind::Rig)
                .count(),
        )
    }

    /// Removes and returns the body of section `id`.
    pub fn take(&mut self, id: SectionId) -> Result<&'a [u8], FormatErrorKind> {
        self.sections
            .remove(&id)
            .ok_or_else(|| table_error(format!("no {id} section")))
    }

    /// Removes and returns the body of section `id`, if the file has it.
    pub fn take_optional(&mut self, id: SectionId) -> Option<&'a [u8]> {
        self.sections.remove(&id)
    }

    /// Removes and returns the body of section `id`, if the file has it and its version has
    /// sections of its kind (since `first_version`).
    pub fn take_since(&mut self, id: SectionId, first_version: u32) -> Option<&'a [u8]> {
        (self.version >= first_version)
            .then(|| self.take_optional(id))
            .flatten()
    }

    /// Checks that every section was taken.
    pub fn finish(&self) -> Result<(), FormatErrorKind> {
        match self.sections.keys().next() {
            None => Ok(()),
            Some(id) => Err(table_error(format!("section {id} belongs to no rig"))),
        }
    }
}

fn table_error(reason: String) -> FormatErrorKind {
    FormatErrorKind::Corrupt {
        section: "section table".into(),
        reason,
    }
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
}

fn truncated(what: impl Into<String>) -> FormatErrorKind {
    FormatErrorKind::Truncated { what: what.into() }
}

/// Checks magic, version, length and checksum of `bytes`, then reads the section table.
pub(super) fn open(bytes: &[u8]) -> Result<SectionTable<'_>, FormatErrorKind> {
    match bytes.get(..MAGIC.len()) {
        Some(magic) if magic == MAGIC => {}
        None if MAGIC.starts_with(bytes) => return Err(truncated("the magic bytes")),
        _ => return Err(FormatErrorKind::BadMagic),
    }
    let version = u32_at(bytes, 8).ok_or_else(|| truncated("the format version"))?;
    if !(OLDEST_FORMAT_VERSION..=FORMAT_VERSION).contains(&version) {
        return Err(FormatErrorKind::UnsupportedVersion {
            found: version,
            supported: FORMAT_VERSION,
        });
    }
    let stored = u64_at(bytes, CHECKSUM_AT).ok_or_else(|| truncated("the checksum"))?;
    let length = u64_at(bytes, LENGTH_AT).ok_or_else(|| truncated("the file length"))?;
    let actual = bytes.len() as u64;
    if actual < length {
        return Err(truncated(format!(
            "the body (the header declares {length} bytes, the file holds {actual})"
        )));
    }
    let computed = checksum(&bytes[HEADER_LEN..]);
    if computed != stored {
        return Err(FormatErrorKind::ChecksumMismatch { stored, computed });
    }
    if actual != length {
        return Err(FormatErrorKind::Corrupt {
            section: "header".into(),
            reason: format!("declares {length} bytes but the file holds {actual}"),
        });
    }
    read_table(bytes, version)
}

/// Reads and checks the section table of a file whose checksum matched.
fn read_table(bytes: &[u8], version: u32) -> Result<SectionTable<'_>, FormatErrorKind> {
    let n = u32_at(bytes, COUNT_AT).ok_or_else(|| table_error("no section count".into()))?;
    let table_end = (n as usize)
        .checked_mul(ENTRY_LEN)
        .and_then(|len| len.checked_add(TABLE_AT))
        .filter(|&end| end <= bytes.len())
        .ok_or_else(|| table_error(format!("{n} entries do not fit in the file")))?;
    let mut sections = BTreeMap::new();
    let mut previous_end = table_end;
    for (i, entry) in bytes[TABLE_AT..table_end]
        .chunks_exact(ENTRY_LEN)
        .enumerate()
    {
        let bad = |reason: String| table_error(format!("entry {i}: {reason}"));
        let word = |k: usize| u32_at(entry, k * 4).unwrap_or(u32::MAX);
        let kind = SectionKind::from_u32(word(0))
            .ok_or_else(|| bad(format!("unknown section kind {}", word(0))))?;
        let id = SectionId {
            rig: word(1),
            kind,
            index: word(2),
        };
        if id.index != 0
            && !matches!(
                kind,
                SectionKind::Mesh
                    | SectionKind::MeshMorph
                    | SectionKind::MeshInfluences
                    | SectionKind::MeshSurface
            )
        {
            return Err(bad(format!("{id} has index {}", id.index)));
        }
        if word(3) != 0 {
            return Err(bad(format!("reserved word is {}", word(3))));
        }
        let offset = u64_at(entry, 16).unwrap_or(u64::MAX);
        let len = u64_at(entry, 24).unwrap_or(u64::MAX);
        let end = offset.saturating_add(len);
        if !offset.is_multiple_of(ALIGN as u64)
            || offset < previous_end as u64
            || end > bytes.len() as u64
        {
            return Err(bad(format!(
                "{id} at bytes {offset}..{end} is misaligned, out of order or past the end of the file"
            )));
        }
        // Both fit in usize: they are at most the file length.
        let (offset, end) = (offset as usize, end as usize);
        previous_end = end;
        if sections.insert(id, &bytes[offset..end]).is_some() {
            return Err(bad(format!("{id} appears twice")));
        }
    }
    Ok(SectionTable { sections, version })
}
