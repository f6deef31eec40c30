//! Materials as the files have them: base colour factors and textures (JPEG and PNG, with
//! their samplers and UV sets), metallic and roughness factors and textures, occlusion and
//! emissive reach the baked meshes; bad image data is dropped with a warning, never a panic.

use std::path::Path;

use sinew::import::{AlphaMode, Wrap};

use super::common;

fn meshes_of(path: &Path) -> Vec<sinew::SkinnedMesh> {
    let asset = sinew::import_file(path).unwrap();
    sinew::bake_rigs(&asset)
        .unwrap()
        .into_iter()
        .flat_map(|r| r.meshes)
        .collect()
}

#[test]
fn cesium_man_and_fox_carry_their_textures_to_the_baked_meshes() {
    let Some(shared) = common::shared() else {
        return;
    };
    for (file, format) in [("CesiumMan.glb", "JPEG"), ("Fox.glb", "PNG")] {
        let meshes = meshes_of(&shared.join("gltf").join(file));
        assert!(!meshes.is_empty());
        for mesh in &meshes {
            let material = mesh
                .material
                .as_ref()
                .expect("the file gives every mesh one");
            assert!(
                material.warnings.is_empty(),
                "{file}: {:?}",
                material.warnings
            );
            let texture = material
                .base_color_texture
                .as_ref()
                .unwrap_or_else(|| panic!("{file}: the {format} base colour texture"));
            let image = &texture.image;
            assert!(image.width >= 64 && image.height >= 64, "{file}: {image:?}");
            assert_eq!(image.rgba8.len(), (image.width * image.height * 4) as usize);
            // Not a blank image.
            let first = &image.rgba8[..4];
            assert!(image.rgba8.chunks_exact(4).any(|p| p != first), "{file}");
            assert_eq!(texture.uv_set, 0);
            assert_eq!(mesh.uvs.len(), mesh.positions.len());
            assert_eq!(material.alpha, AlphaMode::Opaque);
        }
    }
    // CesiumMan's sampler repeats; Fox's names no wrap mode (repeat by default).
    let cesium = meshes_of(&shared.join("gltf/CesiumMan.glb"));
    let sampler = cesium[0]
        .material
        .as_ref()
        .unwrap()
        .base_color_texture
        .as_ref()
        .unwrap()
        .sampler;
    assert_eq!(
        (sampler.wrap_u, sampler.wrap_v),
        (Wrap::Repeat, Wrap::Repeat)
    );
    assert!(sampler.mag_linear);
}

#[test]
fn robot_expressive_carries_its_base_colour_factors() {
    let Some(shared) = common::shared() else {
        return;
    };
    let meshes = meshes_of(&shared.join("gltf/RobotExpressive.glb"));
    let mut names: Vec<&str> = meshes
        .iter()
        .filter_map(|m| m.material.as_ref())
        .map(|m| m.name.as_str())
        .collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names, ["Black", "Grey", "Main"]);
    let main = meshes
        .iter()
        .filter_map(|m| m.material.as_ref())
        .find(|m| m.name == "Main")
        .unwrap();
    assert!((main.base_color[0] - 0.590_328_4).abs() < 1e-6);
    assert!(main.base_color_texture.is_none());
    assert_eq!((main.metallic, main.roughness), (0.1, 0.9));
    assert!(main.metallic_roughness_texture.is_none());
}

#[test]
fn the_panel_carries_its_metallic_roughness_occlusion_and_emissive_textures() {
    let meshes = meshes_of(&common::repo().join("assets/synthetic/normal_map.glb"));
    let material = meshes[0].material.as_ref().unwrap();
    assert!(material.warnings.is_empty(), "{:?}", material.warnings);
    assert_eq!((material.metallic, material.roughness), (0.5, 0.875));
    assert_eq!(material.occlusion_strength, 0.75);
    assert_eq!(material.emissive, [0.125, 0.0625, 0.0]);
    let metal_rough = material.metallic_roughness_texture.as_ref().unwrap();
    let occlusion = material.occlusion_texture.as_ref().unwrap();
    let emissive = material.emissive_texture.as_ref().unwrap();
    let base = material.base_color_texture.as_ref().unwrap();
    // One packed image for metalness, roughness and occlusion; the emissive texture is the
    // base colour's, read through the same UV set; each image decoded once.
    assert!(std::sync::Arc::ptr_eq(&metal_rough.image, &occlusion.image));
    assert!(std::sync::Arc::ptr_eq(&emissive.image, &base.image));
    assert_eq!((metal_rough.uv_set, emissive.uv_set), (0, 1));
    assert!(!metal_rough.sampler.mag_linear);
    // Texel (0, 0): border occlusion, the lowest roughness, not metallic; texel (13, 8):
    // open, rough, metallic.
    let texel = |x: usize, y: usize| &metal_rough.image.rgba8[(y * 16 + x) * 4..][..4];
    assert_eq!(texel(0, 0), [96, 64, 0, 255]);
    assert_eq!(texel(13, 8), [255, 229, 255, 255]);
}

#[test]
fn factors_out_of_range_are_clamped_and_gltf_defaults_fill_the_rest() {
    let gltf = triangle_with_image(&format!(
        r#"{{"uri":"data:image/png;base64,{}"}}"#,
        common::base64(&tiny_png())
    ))
    .replace(
        r#""alphaMode":"MASK""#,
        r#""emissiveFactor":[2,0.5,-1],"alphaMode":"MASK""#,
    );
    let asset = sinew::import_bytes(gltf.as_bytes(), "painted.gltf", None).unwrap();
    let material = asset.meshes[0].material.as_ref().unwrap();
    assert_eq!((material.metallic, material.roughness), (1.0, 1.0));
    assert_eq!(material.emissive, [1.0, 0.5, 0.0]);
    assert_eq!(material.occlusion_strength, 1.0);
    let gltf = gltf.replace(
        r#""baseColorFactor""#,
        r#""metallicFactor":0.25,"roughnessFactor":0.5,"metallicRoughnessTexture":{"index":0,"texCoord":1},"baseColorFactor""#,
    );
    let asset = sinew::import_bytes(gltf.as_bytes(), "painted.gltf", None).unwrap();
    let material = asset.meshes[0].material.as_ref().unwrap();
    assert_eq!((material.metallic, material.roughness), (0.25, 0.5));
    assert_eq!(
        material.metallic_roughness_texture.as_ref().unwrap().uv_set,
        1
    );
}

/// A one-triangle glTF whose material's base colour texture is `image` (a JSON object).
fn triangle_with_image(image: &str) -> String {
    // Three positions (36 bytes), three UVs (24 bytes).
    let mut bytes = Vec::new();
    for p in [[0.0f32, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]] {
        for c in p {
            bytes.extend_from_slice(&c.to_le_bytes());
        }
    }
    for uv in [[0.0f32, 0.0], [1.0, 0.0], [0.0, 1.0]] {
        for c in uv {
            bytes.extend_from_slice(&c.to_le_bytes());
        }
    }
    let data = common::base64(&bytes);
    format!(
        r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[0]}}],
        "nodes":[{{"mesh":0}}],
        "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0,"TEXCOORD_0":1}},"material":0}}]}}],
        "materials":[{{"name":"painted","pbrMetallicRoughness":{{"baseColorFactor":[0.5,0.25,1,1],"baseColorTexture":{{"index":0}}}},"alphaMode":"MASK","alphaCutoff":0.3}}],
        "textures":[{{"source":0}}],
        "images":[{image}],
        "buffers":[{{"byteLength":60,"uri":"data:application/octet-stream;base64,{data}"}}],
        "bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":36}},{{"buffer":0,"byteOffset":36,"byteLength":24}}],
        "accessors":[
            {{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}},
            {{"bufferView":1,"componentType":5126,"count":3,"type":"VEC2"}}]}}"#
    )
}

/// A 2×1 RGBA PNG, encoded with the png crate.
fn tiny_png() -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, 2, 1);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().unwrap();
    writer
        .write_image_data(&[255, 0, 0, 255, 0, 0, 255, 128])
        .unwrap();
    writer.finish().unwrap();
    out
}

#[test]
fn a_data_uri_texture_decodes_and_the_alpha_mask_is_read() {
    let image = format!(
        r#"{{"uri":"data:image/png;base64,{}"}}"#,
        common::base64(&tiny_png())
    );
    let gltf = triangle_with_image(&image);
    let asset = sinew::import_bytes(gltf.as_bytes(), "painted.gltf", None).unwrap();
    let material = asset.meshes[0].material.as_ref().unwrap();
    assert_eq!(material.base_color, [0.5, 0.25, 1.0, 1.0]);
    assert_eq!(material.alpha, AlphaMode::Mask(0.3));
    let image = &material.base_color_texture.as_ref().unwrap().image;
    assert_eq!((image.width, image.height), (2, 1));
    assert_eq!(image.rgba8, [255, 0, 0, 255, 0, 0, 255, 128]);
}

#[test]
fn an_undecodable_or_missing_image_drops_the_texture_with_a_warning() {
    for image in [
        // Not an image.
        format!(
            r#"{{"uri":"data:image/png;base64,{}"}}"#,
            common::base64(b"not a png at all")
        ),
        // A file that is not there (no base folder to resolve it from).
        r#"{"uri":"missing.png"}"#.to_string(),
    ] {
        let gltf = triangle_with_image(&image);
        let asset = sinew::import_bytes(gltf.as_bytes(), "broken.gltf", None).unwrap();
        let material = asset.meshes[0].material.as_ref().unwrap();
        assert!(material.base_color_texture.is_none(), "{image}");
        assert_eq!(
            material.warnings.len(),
            1,
            "{image}: {:?}",
            material.warnings
        );
        assert_eq!(
            material.base_color,
            [0.5, 0.25, 1.0, 1.0],
            "the factor stays"
        );
    }
}

#[test]
fn a_texture_index_out_of_range_is_a_typed_import_error() {
    let image = format!(
        r#"{{"uri":"data:image/png;base64,{}"}}"#,
        common::base64(&tiny_png())
    );
    let gltf = triangle_with_image(&image).replace(
        r#""baseColorTexture":{"index":0}"#,
        r#""baseColorTexture":{"index":7}"#,
    );
    assert!(gltf.contains(r#"{"index":7}"#));
    let err = sinew::import_bytes(gltf.as_bytes(), "bad-index.gltf", None).unwrap_err();
    assert_eq!(err.file, "bad-index.gltf");
    assert!(
        err.to_string().contains("textures") || err.to_string().contains("index"),
        "{err}"
    );
}
