//! Materials, their images, vertex colours and `TEXCOORD_1` round trip, with the
//! metallic-roughness factors and textures, occlusion and emissive of version 7; version 6
//! materials load with glTF's defaults for those, older files without materials; a damaged
//! materials or surface section is a typed error naming the file, the section and the reason.

use std::sync::Arc;

use sinew::Rig;
use sinew::bake::file::{from_bytes, to_bytes};
use sinew::import::{AlphaMode, Material, MaterialImage, Sampler, TextureRef, Wrap};

use super::common;
use super::fixtures::{
    KIND_MATERIALS, KIND_MESH_SURFACE, VERSION_AT, all_assets, assert_corrupt, assert_rig_eq, bake,
    find_in, kind_of, reseal, section, section_table, u32_at,
};

/// A `width × height` image whose texels count up.
fn image(name: &str, width: u32, height: u32) -> Arc<MaterialImage> {
    Arc::new(MaterialImage {
        name: name.into(),
        width,
        height,
        rgba8: (0..width * height * 4)
            .map(|i| (i * 7 % 251) as u8)
            .collect(),
    })
}

/// The humanoid (with at least three meshes) with two materials: a textured one shared by every
/// other mesh (with vertex colours, a second UV set, metallic-roughness and occlusion from one
/// image, and an emissive texture sharing the base colour's), and a masked one with a normal
/// map and a warning.
pub(crate) fn material_rigs() -> Vec<Rig> {
    let mut rigs = bake(&common::repo().join("assets/humanoid.glb"));
    let texture = TextureRef {
        image: image("skin", 4, 2),
        sampler: Sampler {
            mag_linear: false,
            min_linear: true,
            wrap_u: Wrap::MirroredRepeat,
            wrap_v: Wrap::ClampToEdge,
        },
        uv_set: 1,
    };
    let orm = TextureRef {
        image: image("orm", 2, 2),
        sampler: Sampler {
            wrap_u: Wrap::ClampToEdge,
            ..Sampler::default()
        },
        uv_set: 0,
    };
    let textured = Arc::new(Material {
        name: "textured".into(),
        base_color: [0.5, 0.25, 1.0, 1.0],
        base_color_texture: Some(texture.clone()),
        metallic: 0.25,
        roughness: 0.75,
        metallic_roughness_texture: Some(orm.clone()),
        occlusion_texture: Some(orm),
        occlusion_strength: 0.625,
        emissive: [0.125, 0.5, 1.0],
        emissive_texture: Some(texture.clone()),
        double_sided: true,
        ..Material::default()
    });
    let masked = Arc::new(Material {
        name: "masked".into(),
        base_color_texture: Some(texture),
        normal_texture: Some(TextureRef {
            image: image("normals", 2, 2),
            sampler: Sampler::default(),
            uv_set: 0,
        }),
        normal_scale: 0.5,
        alpha: AlphaMode::Mask(0.25),
        warnings: vec!["image 3 dropped".into()],
        ..Material::default()
    });
    let meshes = &mut rigs[0].meshes;
    // Three meshes (copies of the first where the rig has fewer).
    while meshes.len() < 3 {
        meshes.push(meshes[0].clone());
    }
    for (m, mesh) in meshes.iter_mut().enumerate() {
        let n = mesh.positions.len();
        if m % 2 == 0 {
            mesh.material = Some(textured.clone());
            mesh.colors = Some(
                (0..n)
                    .map(|v| [v as f32 / n as f32, 0.5, 1.0, 1.0])
                    .collect(),
            );
            mesh.uvs1 = Some((0..n).map(|v| [0.25, v as f32]).collect());
        } else {
            mesh.material = Some(masked.clone());
        }
    }
    rigs
}

#[test]
fn materials_colours_and_second_uvs_round_trip_with_their_images() {
    let rigs = material_rigs();
    let bytes = to_bytes(&rigs);
    let table = section_table(&bytes);
    assert_eq!(
        table.iter().filter(|e| e.kind == KIND_MATERIALS).count(),
        1,
        "one materials section per rig"
    );
    assert_eq!(
        table.iter().filter(|e| e.kind == KIND_MESH_SURFACE).count(),
        rigs[0].meshes.len(),
        "one surface section per mesh"
    );
    // Each distinct image is stored once: the shared texture's texels appear once.
    let materials = section(&bytes, KIND_MATERIALS);
    let skin = &rigs[0].meshes[0]
        .material
        .as_ref()
        .unwrap()
        .base_color_texture;
    let texels = &skin.as_ref().unwrap().image.rgba8;
    let body = &bytes[materials.offset..materials.offset + materials.len];
    assert_eq!(
        body.windows(texels.len()).filter(|w| w == texels).count(),
        1
    );
    let loaded = from_bytes(&bytes, "materials.sinew").unwrap();
    assert_rig_eq(&loaded[0], &rigs[0], "humanoid with materials");
    // Meshes that shared a material share it again.
    let (a, b) = (&loaded[0].meshes[0], &loaded[0].meshes[2]);
    assert!(Arc::ptr_eq(
        a.material.as_ref().unwrap(),
        b.material.as_ref().unwrap()
    ));
}

#[test]
fn every_asset_round_trips_with_its_materials() {
    for path in all_assets() {
        let rigs = sinew::bake_rigs(&sinew::import_file(&path).unwrap()).unwrap();
        let loaded = from_bytes(&to_bytes(&rigs), "memory").unwrap();
        for (r, (got, expected)) in loaded.iter().zip(&rigs).enumerate() {
            assert_rig_eq(got, expected, &format!("{} rig {r}", path.display()));
        }
    }
}

#[test]
fn version_5_files_load_without_materials_and_refuse_material_sections() {
    // A rig without materials encodes as version 5 did.
    let plain = bake(&common::repo().join("assets/humanoid.glb"));
    let mut bytes = to_bytes(&plain);
    bytes[VERSION_AT..VERSION_AT + 4].copy_from_slice(&5u32.to_le_bytes());
    let loaded = from_bytes(&bytes, "v5.sinew").unwrap();
    assert_rig_eq(&loaded[0], &plain[0], "version 5 file");
    assert!(loaded[0].meshes.iter().all(|m| m.material.is_none()));
    // Version 5 had no materials section: one in a file labelled 5 belongs to no rig.
    let mut bytes = to_bytes(&material_rigs());
    bytes[VERSION_AT..VERSION_AT + 4].copy_from_slice(&5u32.to_le_bytes());
    let reason = assert_corrupt(kind_of(&bytes), "section table");
    assert!(reason.contains("materials"), "reason: {reason}");
}

/// `bytes` with the u32 at `at` set to `value` and the checksum recomputed.
fn with_word(bytes: &[u8], at: usize, value: u32) -> Vec<u8> {
    let mut edited = bytes.to_vec();
    edited[at..at + 4].copy_from_slice(&value.to_le_bytes());
    reseal(&mut edited);
    edited
}

#[test]
fn damaged_materials_sections_are_corrupt_with_a_reason() {
    let bytes = to_bytes(&material_rigs());
    let entry = section(&bytes, KIND_MATERIALS);
    let counts = entry.offset;
    let cases: [(usize, u32, &str); 4] = [
        (counts, 4, "image"),         // more images than sizes and names
        (counts + 4, 9, "material"),  // more materials than records
        (counts + 8, 7, "pixel"),     // pixel bytes that fit no image
        (counts + 12, 9, "warnings"), // more warnings than stored
    ];
    for (at, value, what) in cases {
        let reason = assert_corrupt(kind_of(&with_word(&bytes, at, value)), "rig 0 materials");
        assert!(!reason.is_empty(), "{what}: empty reason");
    }
    // The flags of material 1 (masked, one warning): word 0 is the alpha mode.
    let flags = find_in(
        &bytes,
        entry,
        &[1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0],
        "the masked material's flags",
    );
    let reason = assert_corrupt(kind_of(&with_word(&bytes, flags, 7)), "rig 0 materials");
    assert!(reason.contains("alpha mode 7"), "reason: {reason}");
    let reason = assert_corrupt(kind_of(&with_word(&bytes, flags + 4, 2)), "rig 0 materials");
    assert!(reason.contains("double-sided"), "reason: {reason}");
    // The masked material's normal texture names image 2 (after the textured material's base
    // colour and packed metallic-roughness images); image 5 does not exist.
    let texture = (entry.offset..entry.offset + entry.len - 16)
        .step_by(4)
        .rfind(|&at| {
            u32_at(&bytes, at) == 2 && u32_at(&bytes, at + 4) == 3 && u32_at(&bytes, at + 8) == 0
        })
        .expect("the normal texture's words");
    let reason = assert_corrupt(kind_of(&with_word(&bytes, texture, 5)), "rig 0 materials");
    assert!(reason.contains("image 5 of 3"), "reason: {reason}");
    let reason = assert_corrupt(
        kind_of(&with_word(&bytes, texture + 4, 0xff)),
        "rig 0 materials",
    );
    assert!(reason.contains("sampler"), "reason: {reason}");
    let reason = assert_corrupt(
        kind_of(&with_word(&bytes, texture + 8, 2)),
        "rig 0 materials",
    );
    assert!(reason.contains("UV set 2"), "reason: {reason}");
    // Every word of the section, set to an unlikely value: an error or a load, never a panic.
    for at in (entry.offset..entry.offset + entry.len.min(512)).step_by(4) {
        for value in [0, 1, 0xffff, u32::MAX] {
            let _ = from_bytes(&with_word(&bytes, at, value), "test.sinew");
        }
    }
}

#[test]
fn damaged_surface_sections_are_corrupt_with_a_reason() {
    let rigs = material_rigs();
    let bytes = to_bytes(&rigs);
    let entry = section(&bytes, KIND_MESH_SURFACE);
    let section_name = "rig 0 mesh 0 surface";
    let reason = assert_corrupt(kind_of(&with_word(&bytes, entry.offset, 2)), section_name);
    assert!(
        reason.contains("material 2, the rig has 2"),
        "reason: {reason}"
    );
    let reason = assert_corrupt(
        kind_of(&with_word(&bytes, entry.offset + 4, 4)),
        section_name,
    );
    assert!(reason.contains("flags"), "reason: {reason}");
    // Colours without their flag.
    let reason = assert_corrupt(
        kind_of(&with_word(&bytes, entry.offset + 4, 2)),
        section_name,
    );
    assert!(reason.contains("colours"), "reason: {reason}");
    // Fewer uvs1 than vertices: the body no longer ends where the section does.
    let uv1_count = u32_at(&bytes, entry.offset + 12);
    let damaged = with_word(&bytes, entry.offset + 12, uv1_count - 1);
    assert_corrupt(kind_of(&damaged), section_name);
}

/// Offset of the metallic-roughness factors of the textured material (0.25, 0.75, 0.625, 0).
fn pbr_factors_at(bytes: &[u8]) -> usize {
    let words: Vec<u8> = [0.25f32, 0.75, 0.625, 0.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    find_in(
        bytes,
        section(bytes, KIND_MATERIALS),
        &words,
        "the textured material's metallic-roughness factors",
    )
}

#[test]
fn damaged_metallic_roughness_words_are_corrupt_with_a_reason() {
    let bytes = to_bytes(&material_rigs());
    let at = pbr_factors_at(&bytes);
    let cases: [(usize, u32, &str); 5] = [
        (at, 2.0f32.to_bits(), "metallic factor 2"),
        (at + 4, (-0.5f32).to_bits(), "roughness factor -0.5"),
        (at + 8, f32::NAN.to_bits(), "occlusion strength factor NaN"),
        (at + 12, 1.0f32.to_bits(), "reserved"),
        // The masked material's emissive blue, past its factors (two materials of 16 bytes).
        (
            at + 32 + 16 + 8,
            1.5f32.to_bits(),
            "emissive blue factor 1.5",
        ),
    ];
    for (at, value, expected) in cases {
        let reason = assert_corrupt(kind_of(&with_word(&bytes, at, value)), "rig 0 materials");
        assert!(reason.contains(expected), "{expected}: reason {reason}");
    }
    // The textured material's metallic-roughness texture (after the two materials' factors and
    // emissive colours) names image 1; image 7 does not exist.
    let texture = at + 64;
    assert_eq!(
        u32_at(&bytes, texture),
        1,
        "the metallic-roughness texture's image"
    );
    let reason = assert_corrupt(kind_of(&with_word(&bytes, texture, 7)), "rig 0 materials");
    assert!(
        reason.contains("metallic-roughness texture: image 7 of 3"),
        "reason: {reason}"
    );
}

#[test]
fn version_6_files_load_with_gltf_metallic_roughness_defaults() {
    // Baked from `assets/synthetic/normal_map.glb` by version 6 (its material says metallic 0).
    let corpus = common::fuzz_corpus("load_sinew");
    let (name, bytes) = corpus
        .iter()
        .find(|(name, _)| name == "textured-normal-map.sinew")
        .expect("the version 6 seed of the fuzz corpus");
    assert_eq!(u32_at(bytes, VERSION_AT), 6, "{name} is a version 6 file");
    let loaded = from_bytes(bytes, name).unwrap();
    let material = loaded[0].meshes[0].material.as_ref().unwrap();
    assert!(material.base_color_texture.is_some() && material.normal_texture.is_some());
    assert_eq!((material.metallic, material.roughness), (1.0, 1.0));
    assert_eq!(material.emissive, [0.0; 3]);
    assert_eq!(material.occlusion_strength, 1.0);
    assert!(material.metallic_roughness_texture.is_none());
    assert!(material.occlusion_texture.is_none() && material.emissive_texture.is_none());
    // Written again, it is a version 7 file that keeps them.
    let again = from_bytes(&to_bytes(&loaded), "v7.sinew").unwrap();
    assert_rig_eq(&again[0], &loaded[0], "version 6 file written as version 7");
    // A version 7 materials section labelled 6 has words version 6 does not read.
    let mut bytes = to_bytes(&material_rigs());
    bytes[VERSION_AT..VERSION_AT + 4].copy_from_slice(&6u32.to_le_bytes());
    reseal(&mut bytes);
    assert_corrupt(kind_of(&bytes), "rig 0 materials");
}
