//! Arbitrary bytes as a `.gltf`, `.glb` or `.fbx` file (the importer tells them apart by content):
//! import, bake, then use the rigs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sinew_fuzz::import_gltf(data));
