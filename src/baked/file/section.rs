//! Section bodies: u32 counts, 16-byte aligned flat arrays and string tables, written and read
//! as raw little-endian slices. The reader checks every length against the bytes that remain
//! before it allocates anything.

use std::fmt;

use bytemuck::Pod;

use crate::baked::{ChannelCode, CompressedClip, TrackDesc};
use crate::error::FormatErrorKind;
use crate::math::Aabb;

/// Alignment of every section and of every array inside one.
pub(super) const ALIGN: usize = 16;

/// Plain data stored as its raw bytes: a run of `SCALAR`-byte little-endian numbers.
pub(super) trait Flat: Pod {
    /// Size of the numbers the type is made of (for byte order conversion).
    const SCALAR: usize;
}

macro_rules! flat {
    ($scalar:literal: $($t:ty),*) => { $(impl Flat for $t { const SCALAR: usize = $scalar; })* };
}
flat!(1: u8);
flat!(2: u16, [u16; 4]);
flat!(4: u32, f32, [u32; 4], [f32; 2], [f32; 3], [f32; 4], [f32; 10], [f32; 12], TrackDesc, Aabb);
flat!(4: CompressedClip, ChannelCode);

/// Bytes of `items` in little-endian order, appended to `out`.
fn extend_le<T: Flat>(out: &mut Vec<u8>, items: &[T]) {
    let bytes: &[u8] = bytemuck::cast_slice(items);
    if cfg!(target_endian = "little") {
        out.extend_from_slice(bytes);
    } else {
        for scalar in bytes.chunks_exact(T::SCALAR) {
            out.extend(scalar.iter().rev());
        }
    }
}

/// Zero bytes appended to `bytes` until its length is a multiple of [`ALIGN`].
pub(super) fn pad(bytes: &mut Vec<u8>) {
    bytes.resize(bytes.len().next_multiple_of(ALIGN), 0);
}

/// A count as stored: every length in a rig fits in u32 (glTF counts are u32 themselves).
pub(super) fn count(len: usize) -> u32 {
    len as u32
}

/// Builds one section body.
#[derive(Default)]
pub(super) struct SectionWriter {
    bytes: Vec<u8>,
}

impl SectionWriter {
    /// Appends a u32.
    pub fn u32(&mut self, value: u32) {
        self.bytes.extend_from_slice(&value.to_le_bytes());
    }

    /// Appends `items` at the next aligned offset.
    pub fn array<T: Flat>(&mut self, items: &[T]) {
        pad(&mut self.bytes);
        extend_le(&mut self.bytes, items);
    }

    /// Appends a string table: the byte length of each string, then all their bytes.
    pub fn strings<'a>(&mut self, strings: impl Iterator<Item = &'a str> + Clone) {
        let lengths: Vec<u32> = strings.clone().map(|s| count(s.len())).collect();
        self.array(&lengths);
        let joined: String = strings.collect();
        self.array(joined.as_bytes());
    }

    /// The finished body.
    pub fn finish(self) -> Vec<u8> {
        self.bytes
    }
}

/// Reads one section body front to back; every failure is [`FormatErrorKind::Corrupt`] naming
/// the section.
pub(super) struct SectionReader<'a, N: fmt::Display> {
    bytes: &'a [u8],
    at: usize,
    name: N,
}

impl<'a, N: fmt::Display> SectionReader<'a, N> {
    /// A reader over `bytes`, the body of section `name`.
    pub fn new(bytes: &'a [u8], name: N) -> Self {
        Self { bytes, at: 0, name }
    }

    /// The error for this section.
    pub fn corrupt(&self, reason: impl Into<String>) -> FormatErrorKind {
        FormatErrorKind::Corrupt {
            section: self.name.to_string(),
            reason: reason.into(),
        }
    }

    /// The next `len` bytes, or an error naming `what` when fewer remain.
    fn take(&mut self, len: Option<usize>, what: &str) -> Result<&'a [u8], FormatErrorKind> {
        let remaining = self.bytes.len() - self.at.min(self.bytes.len());
        match len {
            Some(len) if len <= remaining => {
                let taken = &self.bytes[self.at..self.at + len];
                self.at += len;
                Ok(taken)
            }
            _ => Err(self.corrupt(format!(
                "{what} needs {} bytes but only {remaining} remain",
                len.map_or_else(|| "more than usize::MAX".to_string(), |l| l.to_string())
            ))),
        }
    }

    /// Reads a u32.
    pub fn u32(&mut self, what: &str) -> Result<u32, FormatErrorKind> {
        let bytes = self.take(Some(4), what)?;
        Ok(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }

    /// Reads `count` items at the next aligned offset.
    pub fn array<T: Flat>(&mut self, count: u32, what: &str) -> Result<Vec<T>, FormatErrorKind> {
        let padding = self.at.next_multiple_of(ALIGN) - self.at;
        self.take(Some(padding), what)?;
        let bytes = self.take((count as usize).checked_mul(std::mem::size_of::<T>()), what)?;
        let mut items = vec![T::zeroed(); count as usize];
        let raw: &mut [u8] = bytemuck::cast_slice_mut(&mut items);
        raw.copy_from_slice(bytes);
        if cfg!(target_endian = "big") {
            raw.chunks_exact_mut(T::SCALAR).for_each(<[u8]>::reverse);
        }
        Ok(items)
    }

    /// Reads a string table of `count` strings.
    pub fn strings(&mut self, count: u32, what: &str) -> Result<Vec<String>, FormatErrorKind> {
        let lengths: Vec<u32> = self.array(count, &format!("{what} lengths"))?;
        let total: u64 = lengths.iter().map(|&l| u64::from(l)).sum();
        let total = u32::try_from(total)
            .map_err(|_| self.corrupt(format!("{what} total {total} bytes")))?;
        let bytes: Vec<u8> = self.array(total, what)?;
        let mut rest = bytes.as_slice();
        let mut strings = Vec::with_capacity(lengths.len());
        for (i, &len) in lengths.iter().enumerate() {
            let (text, after) = rest
                .split_at_checked(len as usize)
                .ok_or_else(|| self.corrupt(format!("{what} {i} runs past the table")))?;
            rest = after;
            let text = std::str::from_utf8(text)
                .map_err(|e| self.corrupt(format!("{what} {i} is not UTF-8: {e}")))?;
            strings.push(text.to_string());
        }
        Ok(strings)
    }

    /// Reads a string table holding one string.
    pub fn string(&mut self, what: &str) -> Result<String, FormatErrorKind> {
        Ok(self.strings(1, what)?.pop().unwrap_or_default())
    }

    /// Checks that the whole body was read.
    pub fn finish(self) -> Result<(), FormatErrorKind> {
        match self.bytes.len() - self.at {
            0 => Ok(()),
            extra => Err(self.corrupt(format!("{extra} bytes after the last field"))),
        }
    }
}
