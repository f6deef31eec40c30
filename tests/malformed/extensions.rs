//! Extensions, compressed views and pose clips: what glTF and its common exporters allow must
//! import; a file sinew cannot read correctly must say why.

use serde_json::{Value, json};
use sinew::ImportErrorKind;

use super::common;
use super::fixtures::{
    Gltf, INDICES, INVERSE_BINDS, JOINTS, POSITION, ROTATIONS, SHORT, SPARSE_INDEX_VIEW, TIMES,
    TRANSLATIONS, UNSIGNED_SHORT, WEIGHTS, build, declare, import_and_bake, import_error,
    import_ok, valid, valid_streams, with_streams,
};

/// Adds a fallback buffer (no data) as buffer 1, as long as buffer 0.
fn add_fallback_buffer(file: &mut Gltf, flagged: bool) {
    let mut fallback = json!({"byteLength": file.bin.len()});
    if flagged {
        fallback["extensions"] = json!({"EXT_meshopt_compression": {"fallback": true}});
    }
    file.json["buffers"].as_array_mut().unwrap().push(fallback);
}

/// Compresses buffer view `view` of `file`: `stream` (what meshopt's encoder wrote for it) goes
/// to the end of buffer 0, and the view itself moves to the fallback buffer 1 at the same offset.
fn compress(file: &mut Gltf, view: usize, stream: &[u8], stride: usize, mode: &str, filter: &str) {
    while !file.bin.len().is_multiple_of(4) {
        file.bin.push(0);
    }
    let length = file.json["bufferViews"][view]["byteLength"]
        .as_u64()
        .unwrap() as usize;
    let mut extension = json!({
        "buffer": 0,
        "byteOffset": file.bin.len(),
        "byteLength": stream.len(),
        "byteStride": stride,
        "count": length / stride,
        "mode": mode,
    });
    if filter != "NONE" {
        extension["filter"] = json!(filter);
    }
    file.bin.extend_from_slice(stream);
    let v = &mut file.json["bufferViews"][view];
    v["buffer"] = json!(1);
    v["extensions"] = json!({"EXT_meshopt_compression": extension});
    file.json["buffers"][0]["byteLength"] = json!(file.bin.len());
}

/// The minimal file with every view the importer reads compressed: every attribute and
/// animation stream with the attribute codec (translations through the exponential filter at
/// 24 bits, exact for their values), the triangle indices with the index-sequence codec.
fn compressed(flagged_fallback: bool) -> Gltf {
    let s = valid_streams();
    let mut file = build(&s);
    add_fallback_buffer(&mut file, flagged_fallback);
    declare(&mut file, &[("EXT_meshopt_compression", true)]);
    let exponential =
        meshopt::encode_filter_exp(&s.translations, 24, meshopt::EncodeExpMode::Separate);
    let indices: Vec<u32> = s.indices.iter().map(|&i| u32::from(i)).collect();
    let streams: [(usize, Vec<u8>, usize, &str, &str); 8] = [
        (
            POSITION,
            meshopt::encode_vertex_buffer(&s.positions).unwrap(),
            12,
            "ATTRIBUTES",
            "NONE",
        ),
        (
            JOINTS,
            meshopt::encode_vertex_buffer(&s.joints).unwrap(),
            8,
            "ATTRIBUTES",
            "NONE",
        ),
        (
            WEIGHTS,
            meshopt::encode_vertex_buffer(&s.weights).unwrap(),
            16,
            "ATTRIBUTES",
            "NONE",
        ),
        (
            INDICES,
            meshopt::encode_index_sequence(&indices, 3).unwrap(),
            2,
            "INDICES",
            "NONE",
        ),
        (
            INVERSE_BINDS,
            meshopt::encode_vertex_buffer(&s.inverse_binds).unwrap(),
            64,
            "ATTRIBUTES",
            "NONE",
        ),
        (
            TIMES,
            meshopt::encode_vertex_buffer(&s.times).unwrap(),
            4,
            "ATTRIBUTES",
            "NONE",
        ),
        (
            ROTATIONS,
            meshopt::encode_vertex_buffer(&s.rotations).unwrap(),
            16,
            "ATTRIBUTES",
            "NONE",
        ),
        (
            TRANSLATIONS,
            meshopt::encode_vertex_buffer(&exponential).unwrap(),
            12,
            "ATTRIBUTES",
            "EXPONENTIAL",
        ),
    ];
    for (view, stream, stride, mode, filter) in streams {
        compress(&mut file, view, &stream, stride, mode, filter);
    }
    file
}

/// The parts of an asset that do not depend on how its bytes were stored.
fn content(asset: &sinew::RawAsset) -> impl PartialEq + std::fmt::Debug + '_ {
    (&asset.nodes, &asset.skins, &asset.clips, &asset.meshes)
}

#[test]
fn required_extension_sinew_does_not_know() {
    let mut file = valid();
    declare(&mut file, &[("KHR_draco_mesh_compression", true)]);
    let err = import_error("draco.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::UnsupportedExtension { name } if name == "KHR_draco_mesh_compression",
        "KHR_draco_mesh_compression"
    );
}

#[test]
fn required_extension_missing_from_extensions_used() {
    let mut file = valid();
    file.json["extensionsRequired"] = json!(["KHR_texture_transform"]);
    let err = import_error("required-not-used.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Gltf(reason) if reason.contains("extensionsUsed"),
        "KHR_texture_transform"
    );
}

#[test]
fn unknown_extension_that_is_only_used_is_listed_as_unrecognized() {
    let mut file = valid();
    declare(&mut file, &[("EXT_mesh_gpu_instancing", false)]);
    let asset = import_ok("used-only.gltf", &file.to_gltf());
    assert_eq!(
        asset.extensions,
        [sinew::import::ExtensionUse {
            name: "EXT_mesh_gpu_instancing".into(),
            required: false,
            handling: sinew::import::ExtensionHandling::Unrecognized,
            notes: Vec::new(),
        }]
    );
}

#[test]
fn required_texture_and_material_extensions_import_and_are_ignored() {
    let mut file = valid();
    declare(
        &mut file,
        &[
            ("KHR_texture_transform", true),
            ("KHR_texture_basisu", true),
            ("KHR_materials_emissive_strength", false),
        ],
    );
    file.json["images"] = json!([{"uri": "never-loaded.ktx2", "mimeType": "image/ktx2"}]);
    // A basisu texture names its image only in the extension: no `source`.
    file.json["textures"] = json!([{"extensions": {"KHR_texture_basisu": {"source": 0}}}]);
    file.json["materials"] = json!([{
        "pbrMetallicRoughness": {"baseColorTexture": {
            "index": 0,
            "extensions": {"KHR_texture_transform": {"offset": [0.5, 0.0], "scale": [2.0, 2.0]}},
        }},
        "extensions": {"KHR_materials_emissive_strength": {"emissiveStrength": 4.0}},
    }]);
    file.json["meshes"][0]["primitives"][0]["material"] = json!(0);
    let mut asset = import_ok("texture-transform.gltf", &file.to_gltf());
    // The material is read; its basisu texture, whose image sinew cannot decode, is dropped
    // with a warning.
    let material = asset.meshes[0].material.take().unwrap();
    assert!(material.base_color_texture.is_none());
    assert_eq!(material.warnings.len(), 1, "{:?}", material.warnings);
    let plain = import_ok("plain.gltf", &valid().to_gltf());
    assert_eq!(
        content(&asset),
        content(&plain),
        "the extensions change no animation data"
    );
    let listed: Vec<(&str, bool, sinew::import::ExtensionHandling)> = asset
        .extensions
        .iter()
        .map(|e| (e.name.as_str(), e.required, e.handling))
        .collect();
    use sinew::import::ExtensionHandling::Ignored;
    assert_eq!(
        listed,
        [
            ("KHR_texture_transform", true, Ignored),
            ("KHR_texture_basisu", true, Ignored),
            ("KHR_materials_emissive_strength", false, Ignored),
        ]
    );
}

#[test]
fn compressed_minimal_file_reads_like_the_plain_one() {
    let plain = import_ok("plain.gltf", &valid().to_gltf());
    for flagged in [false, true] {
        let file = compressed(flagged);
        for (name, bytes) in [
            ("compressed.gltf", file.to_gltf()),
            ("compressed.glb", file.to_glb()),
        ] {
            let asset = import_ok(name, &bytes);
            assert_eq!(
                content(&asset),
                content(&plain),
                "{name} (flagged fallback: {flagged})"
            );
            import_and_bake(name, &bytes, None).unwrap();
        }
    }
}

#[test]
fn compressed_view_whose_data_does_not_decode() {
    let mut file = compressed(true);
    // Corrupt the attribute stream's header byte (0xa0 for the version this encoder writes).
    let at =
        file.json["bufferViews"][POSITION]["extensions"]["EXT_meshopt_compression"]["byteOffset"]
            .as_u64()
            .unwrap() as usize;
    file.bin[at] = 0xff;
    let err = import_error("bad-stream.glb", &file.to_glb());
    assert_kind!(
        err,
        ImportErrorKind::CompressedView { view: POSITION, reason } if reason.contains("decode"),
        format!("buffer view {POSITION}")
    );
}

#[test]
fn compressed_view_whose_stream_is_truncated() {
    let mut file = compressed(true);
    file.json["bufferViews"][INDICES]["extensions"]["EXT_meshopt_compression"]["byteLength"] =
        json!(3);
    let err = import_error("short-stream.glb", &file.to_glb());
    assert_kind!(
        err,
        ImportErrorKind::CompressedView { view: INDICES, .. },
        format!("buffer view {INDICES}")
    );
}

/// A layout-rule case: file name, buffer view, extension fields to set, expected text.
type LayoutCase = (
    &'static str,
    usize,
    Vec<(&'static str, Value)>,
    &'static str,
);

#[test]
fn compressed_view_that_breaks_a_layout_rule() {
    // Each rule guards an assumption of the decoder (a violated one would abort the process).
    let cases: [LayoutCase; 6] = [
        (
            "stride-not-4.glb",
            TIMES,
            vec![("byteStride", json!(6))],
            "multiple of 4",
        ),
        (
            "stride-over-256.glb",
            INVERSE_BINDS,
            vec![("byteStride", json!(260))],
            "multiple of 4",
        ),
        (
            "triangles-count.glb",
            INDICES,
            vec![("mode", json!("TRIANGLES")), ("count", json!(2))],
            "multiple of 3",
        ),
        (
            "index-filter.glb",
            INDICES,
            vec![("filter", json!("OCTAHEDRAL"))],
            "filter",
        ),
        (
            "quaternion-stride.glb",
            ROTATIONS,
            vec![("filter", json!("QUATERNION"))],
            "byteStride 16",
        ),
        (
            "unknown-mode.glb",
            TIMES,
            vec![("mode", json!("DELTA"))],
            "DELTA",
        ),
    ];
    for (name, view, fields, needle) in cases {
        let mut file = compressed(true);
        let extension =
            &mut file.json["bufferViews"][view]["extensions"]["EXT_meshopt_compression"];
        for (field, value) in fields {
            extension[field] = value;
        }
        let err = import_error(name, &file.to_glb());
        assert_kind!(
            err,
            ImportErrorKind::CompressedView { .. },
            format!("buffer view {view}"),
            needle
        );
    }
}

#[test]
fn compressed_view_larger_than_stride_times_count() {
    let mut file = compressed(true);
    file.json["bufferViews"][WEIGHTS]["byteLength"] = json!(64);
    let err = import_error("length.glb", &file.to_glb());
    assert_kind!(
        err,
        ImportErrorKind::CompressedView { view: WEIGHTS, .. },
        format!("buffer view {WEIGHTS}"),
        "byteStride 16 times count 3"
    );
}

#[test]
fn flagged_fallback_buffer_read_by_an_uncompressed_view() {
    let mut file = compressed(true);
    file.json["bufferViews"][SPARSE_INDEX_VIEW]["buffer"] = json!(1);
    let err = import_error("fallback-read.glb", &file.to_glb());
    assert_kind!(
        err,
        ImportErrorKind::Buffer { buffer: 1, .. },
        "buffer 1",
        "fallback"
    );
}

/// The minimal file declaring `KHR_mesh_quantization`, with a NORMAL attribute of `component`
/// type (read from the joints' bytes, 8 per vertex).
fn with_quantized_normal(component: u32, normalized: bool) -> Gltf {
    let mut file = valid();
    declare(&mut file, &[("KHR_mesh_quantization", true)]);
    file.json["bufferViews"][JOINTS]["byteStride"] = json!(8);
    let normal = json!({"bufferView": JOINTS, "count": 3, "componentType": component, "type": "VEC3", "normalized": normalized});
    file.json["accessors"].as_array_mut().unwrap().push(normal);
    let index = file.json["accessors"].as_array().unwrap().len() - 1;
    file.json["meshes"][0]["primitives"][0]["attributes"]["NORMAL"] = json!(index);
    file
}

#[test]
fn quantized_attribute_of_a_type_the_extension_does_not_allow() {
    // KHR_mesh_quantization allows NORMAL as normalized BYTE or SHORT only.
    for (component, normalized) in [(UNSIGNED_SHORT, true), (SHORT, false)] {
        let file = with_quantized_normal(component, normalized);
        let err = import_error("normal-u16.gltf", &file.to_gltf());
        assert_kind!(
            err,
            ImportErrorKind::AccessorFormat { accessor: 8, usage, .. } if usage.starts_with("NORMAL"),
            "accessor 8",
            "KHR_mesh_quantization"
        );
    }
    let mut file = with_quantized_normal(SHORT, true);
    file.json["extensionsUsed"] = json!([]);
    file.json["extensionsRequired"] = json!([]);
    let err = import_error("normal-without-extension.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::AccessorFormat { accessor: 8, .. },
        "accessor 8"
    );
}

#[test]
fn quantized_normal_reads_as_a_unit_vector() {
    let asset = import_ok(
        "normal-i16.gltf",
        &with_quantized_normal(SHORT, true).to_gltf(),
    );
    for n in &asset.meshes[0].normals {
        let length = glam::Vec3::from(*n).length();
        assert!(
            length == 0.0 || (length - 1.0).abs() <= common::EXACT_TOLERANCE,
            "|{n:?}| = {length}"
        );
    }
}

/// The minimal file whose clip holds one key per channel, at `t`.
fn single_key(t: f32) -> Gltf {
    let half = std::f32::consts::FRAC_1_SQRT_2;
    with_streams(|s| {
        s.times = vec![t];
        s.rotations = vec![[0.0, 0.0, half, half]];
        s.translations = vec![[0.0, 0.5, 0.0]];
    })
}

#[test]
fn single_key_clip_is_a_pose_at_every_time() {
    let bytes = single_key(0.0).to_gltf();
    let rigs = import_and_bake("pose.gltf", &bytes, None).unwrap_or_else(|e| panic!("{e}"));
    let rig = &rigs[0];
    assert_eq!(
        rig.clips.clips()[0].duration,
        0.0,
        "a pose lasts zero seconds"
    );
    // Root at the key's translation; child one unit up from it, turned 90 degrees about z.
    let root = glam::Affine3A::from_translation(glam::Vec3::new(0.0, 0.5, 0.0));
    let child = root
        * glam::Affine3A::from_rotation_translation(
            glam::Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
            glam::Vec3::Y,
        );
    let expected = [root, child];
    let fast = sinew::FastCpuBackend::new(rigs.clone(), Vec::new(), sinew::cpu::fast::DEFAULT_RATE)
        .unwrap();
    for t in [-1.0, 0.0, 0.25, 7.0] {
        let layers = [sinew::Layer::clip(0, t)];
        let mut models = vec![glam::Affine3A::IDENTITY; 2];
        let mut palette = vec![sinew::Mat3x4Rows::IDENTITY; 2];
        let identity = glam::Affine3A::IDENTITY;
        sinew::cpu::evaluate_pose(rig, &[], &layers, &identity, &mut models, &mut palette);
        let record = sinew::InstanceRecord::new(0, 0, &identity, &layers).unwrap();
        let mut fast_models = vec![glam::Affine3A::IDENTITY; 2];
        fast.evaluate_one(&record, &mut fast_models, &mut palette)
            .unwrap();
        for (j, want) in expected.iter().enumerate() {
            let want = glam::Mat4::from(*want).to_cols_array();
            let name = rig.skeleton.names()[j].clone();
            common::assert_matrix_close(
                &glam::Mat4::from(models[j]).to_cols_array(),
                &want,
                &format!("{name} at {t}"),
            );
            common::assert_matrix_close(
                &glam::Mat4::from(fast_models[j]).to_cols_array(),
                &want,
                &format!("fast {name} at {t}"),
            );
        }
    }
    // The baked file keeps the zero duration.
    let again =
        sinew::bake::file::from_bytes(&sinew::bake::file::to_bytes(&rigs), "pose.sinew").unwrap();
    assert_eq!(again, rigs);
}

#[test]
fn single_key_clip_after_time_zero_lasts_until_its_key() {
    let rigs = import_and_bake("late-pose.gltf", &single_key(0.4).to_gltf(), None)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(rigs[0].clips.clips()[0].duration, 0.4);
}
