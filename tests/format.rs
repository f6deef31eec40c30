//! The `.sinew` baked format: exact round trips of every asset, and a typed error, never a
//! panic, for every truncated, damaged or inconsistent file.

mod common;
#[path = "format/compressed_clips.rs"]
mod compressed_clips;
#[path = "format/damaged_files.rs"]
mod damaged_files;
#[path = "format/files_and_cli.rs"]
mod files_and_cli;
#[path = "format/fixtures.rs"]
mod fixtures;
#[path = "format/fuzz_corpus.rs"]
mod fuzz_corpus;
#[path = "format/inconsistent_data.rs"]
mod inconsistent_data;
#[path = "format/influences.rs"]
mod influences;
#[path = "format/markers.rs"]
mod markers;
#[path = "format/materials.rs"]
mod materials;
#[path = "format/morph_targets.rs"]
mod morph_targets;
#[path = "format/round_trips.rs"]
mod round_trips;
