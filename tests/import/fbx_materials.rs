//! FBX materials (`assets/fbx/materials.fbx`, written by `tools/generate_assets`): each mesh part
//! gets its material's factors (colour, transparency, emissive; Lambert: not metallic, rough)
//! and textures (an external PNG beside the file, an embedded one on the second UV set, an
//! embedded normal map) with their wrap modes, vertex colours, tangents and both UV sets; a
//! texture that is missing or cannot be decoded leaves the factors and a warning, never an
//! error or a panic; the baked `.sinew` file keeps it all.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use sinew::RawAsset;
use sinew::import::RawMesh;
use sinew::import::{AlphaMode, Material, Wrap};

use super::common;

fn fbx_path() -> PathBuf {
    common::repo().join("assets/fbx/materials.fbx")
}

fn import(path: &Path) -> RawAsset {
    sinew::import_file(path).unwrap_or_else(|e| panic!("{e}"))
}

/// The mesh part drawn with the material called `name`.
fn part<'a>(asset: &'a RawAsset, name: &str) -> (&'a RawMesh, &'a Arc<Material>) {
    asset
        .meshes
        .iter()
        .find_map(|m| Some((m, m.material.as_ref().filter(|x| x.name == name)?)))
        .unwrap_or_else(|| panic!("no mesh part with material {name:?}"))
}

fn assert_close(got: &[f32], want: &[f32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: {got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g - w).abs() <= 1e-5,
            "{what}: {got:?}, expected {want:?} (differs by {})",
            (g - w).abs()
        );
    }
}

fn srgb_to_linear(v: f32) -> f32 {
    if v <= 0.04045 {
        v / 12.92
    } else {
        ((v + 0.055) / 1.055).powf(2.4)
    }
}

#[test]
fn fbx_mesh_parts_carry_their_materials_factors_and_textures() {
    let asset = import(&fbx_path());
    assert_eq!(asset.meshes.len(), 3, "two panel parts and the badge");
    assert!(asset.meshes.iter().all(|m| m.material.is_some()));

    // The left half: diffuse colour × factor 1, the external checker on UV set "UVMap" (0).
    let (checker_mesh, checker) = part(&asset, "Checker");
    assert_eq!(checker_mesh.name, "Panel");
    assert!(checker.warnings.is_empty(), "{:?}", checker.warnings);
    assert_close(&checker.base_color, &[0.9, 0.8, 1.0, 1.0], "Checker colour");
    assert_eq!(checker.alpha, AlphaMode::Opaque);
    let texture = checker.base_color_texture.as_ref().expect("the checker");
    assert_eq!(texture.uv_set, 0);
    assert_eq!(
        (texture.sampler.wrap_u, texture.sampler.wrap_v),
        (Wrap::Repeat, Wrap::Repeat)
    );
    let png =
        sinew::render::RgbaImage::load_png(common::repo().join("assets/fbx/materials_checker.png"))
            .unwrap();
    let image = &texture.image;
    assert_eq!((image.width, image.height), (16, 16));
    assert_eq!(image.rgba8, png.pixels, "the PNG's texels");
    assert_eq!(&image.rgba8[..4], &[220, 220, 220, 255], "texel (0, 0)");
    assert_eq!(&image.rgba8[16..20], &[230, 140, 40, 255], "texel (4, 0)");
    assert!(checker.normal_texture.is_none());

    // UVs with V flipped to glTF's; the panel spans x in [-0.4, 0.4] m, y in [0, 0.8] m.
    // Vertex colours are the file's sRGB (1, 0.75 + u/4, 0.5 + v/2) made linear.
    let colors = checker_mesh.colors.as_ref().expect("vertex colours");
    assert_eq!(colors.len(), checker_mesh.positions.len());
    assert!(checker_mesh.uvs1.is_none(), "the panel has one UV set");
    for ((p, uv), color) in checker_mesh
        .positions
        .iter()
        .zip(&checker_mesh.uvs)
        .zip(colors)
    {
        let (u, v) = ((p[0] + 0.4) / 0.8, p[1] / 0.8);
        assert!(p[0] <= 1e-5, "the checker is the left half: {p:?}");
        assert_close(uv, &[u, 1.0 - v], "panel UV");
        let want = [1.0, 0.75 + 0.25 * u, 0.5 + 0.5 * v].map(srgb_to_linear);
        assert_close(color, &[want[0], want[1], want[2], 1.0], "vertex colour");
    }

    // The right half: colour × factor 0.5, 25 % transparent, no texture.
    let (glass_mesh, glass) = part(&asset, "Glass");
    assert!(glass.warnings.is_empty(), "{:?}", glass.warnings);
    assert_close(&glass.base_color, &[0.1, 0.2, 0.4, 0.75], "Glass colour");
    assert_eq!(glass.alpha, AlphaMode::Blend);
    assert_close(
        &glass.emissive,
        &[0.1, 0.05, 0.0],
        "Glass emissive colour × factor",
    );
    // Lambert materials: not metallic, fully rough, not emissive unless they say so.
    for m in [checker, glass] {
        assert_eq!((m.metallic, m.roughness), (0.0, 1.0), "{}", m.name);
        assert!(m.metallic_roughness_texture.is_none() && m.emissive_texture.is_none());
    }
    assert_eq!(checker.emissive, [0.0; 3]);
    assert!(glass.base_color_texture.is_none() && glass.normal_texture.is_none());
    assert!(glass_mesh.positions.iter().all(|p| p[0] >= -1e-5));
    assert_eq!(
        checker_mesh.indices.len() + glass_mesh.indices.len(),
        4 * 4 * 6,
        "the panel's 16 quads, split between its parts"
    );
    assert_eq!(glass_mesh.skin, checker_mesh.skin);

    // The badge: an embedded PNG on UV set "Second" (1), clamped along u.
    let (badge_mesh, badge) = part(&asset, "Badge");
    assert!(badge.warnings.is_empty(), "{:?}", badge.warnings);
    assert_eq!(badge_mesh.skin, None, "a rigid mesh under Top");
    let texture = badge
        .base_color_texture
        .as_ref()
        .expect("the embedded badge");
    assert_eq!(texture.uv_set, 1);
    assert_eq!(
        (texture.sampler.wrap_u, texture.sampler.wrap_v),
        (Wrap::ClampToEdge, Wrap::Repeat)
    );
    let image = &texture.image;
    assert_eq!((image.width, image.height), (4, 4));
    let texel = |x: usize, y: usize| &image.rgba8[(y * 4 + x) * 4..][..4];
    assert_eq!(texel(0, 0), &[200, 30, 30, 255], "red top left");
    assert_eq!(texel(3, 0), &[30, 200, 30, 255], "green top right");
    assert_eq!(texel(0, 3), &[30, 30, 200, 255], "blue bottom left");
    assert_eq!(texel(3, 3), &[220, 200, 40, 255], "yellow bottom right");
    // Its normal map (embedded, on UV set "UVMap") and the tangents the file gives.
    let normal = badge
        .normal_texture
        .as_ref()
        .expect("the embedded normal map");
    assert_eq!(normal.uv_set, 0);
    assert_eq!(
        &normal.image.rgba8[..8],
        &[218, 128, 218, 255, 38, 128, 218, 255],
        "stripes tilted towards +u and -u"
    );
    let tangents = badge_mesh.tangents.as_ref().expect("the file's tangents");
    assert_eq!(tangents.len(), badge_mesh.positions.len());
    for t in tangents {
        assert_close(t, &[1.0, 0.0, 0.0, 1.0], "badge tangent (+X, binormal +Y)");
    }
    assert!(checker_mesh.tangents.is_none(), "the panel has no tangents");
    let uvs1 = badge_mesh.uvs1.as_ref().expect("the second UV set");
    assert_eq!(uvs1.len(), badge_mesh.uvs.len());
    for (uv0, uv1) in badge_mesh.uvs.iter().zip(uvs1) {
        assert_close(uv1, &[1.0 - uv0[0], uv0[1]], "second UV set, mirrored in u");
    }
}

/// The badge of `materials.fbx` with its normal map connected as a bump map, and its image
/// replaced by `content` (base64) when given.
fn badge_with_bump(content: Option<&str>) -> Arc<Material> {
    let mut text = std::fs::read_to_string(fbx_path())
        .unwrap()
        .replace("\"NormalMap\"", "\"Bump\"");
    if let Some(content) = content {
        let video = text.find("\"Video::badge_normal\"").unwrap();
        let start = video + text[video..].find("Content: , \"").unwrap() + "Content: , \"".len();
        let end = start + text[start..].find('"').unwrap();
        text.replace_range(start..end, content);
    }
    let asset = sinew::import_bytes(text.as_bytes(), "bump.fbx", None).unwrap();
    part(&asset, "Badge").1.clone()
}

#[test]
fn a_coloured_bump_texture_is_a_normal_map_and_a_grey_one_a_warning() {
    let coloured = badge_with_bump(None);
    assert!(coloured.warnings.is_empty(), "{:?}", coloured.warnings);
    assert!(
        coloured.normal_texture.is_some(),
        "the stripes, read as a normal map"
    );
    // A 2 × 1 grey PNG: a height map.
    let grey = badge_with_bump(Some(
        "iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAYAAAD0In+KAAAAEUlEQVR4nGNoaGj4b2Nj8x8AEp8EMyASZfAAAAAASUVORK5CYII=",
    ));
    assert!(grey.normal_texture.is_none());
    assert_eq!(grey.warnings.len(), 1, "{:?}", grey.warnings);
    assert!(
        grey.warnings[0].contains("badge_normal.png") && grey.warnings[0].contains("height map"),
        "{:?}",
        grey.warnings
    );
    assert!(
        grey.base_color_texture.is_some(),
        "the badge's colour stays"
    );
}

/// `materials.fbx` copied alone into a fresh folder (its external texture left behind), plus
/// `extra` files.
fn copy_alone(tag: &str, extra: &[(&str, &[u8])]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sinew-fbx-mat-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let copy = dir.join("materials.fbx");
    std::fs::copy(fbx_path(), &copy).unwrap();
    for (name, bytes) in extra {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    copy
}

/// The checker material keeps its factors and drops its texture with one warning naming the
/// texture's path and containing `reason`; the embedded badge is untouched.
fn assert_checker_dropped(asset: &RawAsset, reason: &str) {
    let (_, checker) = part(asset, "Checker");
    assert!(checker.base_color_texture.is_none());
    assert_close(&checker.base_color, &[0.9, 0.8, 1.0, 1.0], "Checker colour");
    assert_eq!(checker.warnings.len(), 1, "{:?}", checker.warnings);
    let warning = &checker.warnings[0];
    assert!(
        warning.contains("materials_checker.png") && warning.contains(reason),
        "{warning}"
    );
    let (_, badge) = part(asset, "Badge");
    assert!(badge.base_color_texture.is_some(), "{:?}", badge.warnings);
}

#[test]
fn a_missing_external_texture_leaves_the_factor_and_a_warning() {
    let copy = copy_alone("missing", &[]);
    let asset = import(&copy);
    assert_checker_dropped(&asset, "no such file");
    // `sinew inspect` shows the warning under the mesh.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sinew"))
        .arg("inspect")
        .arg(&copy)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("material \"Checker\"")
            && text.contains("warning: base colour texture: \"materials_checker.png\""),
        "{text}"
    );
    // From memory, without a folder, only the embedded texture loads.
    let bytes = std::fs::read(fbx_path()).unwrap();
    let asset = sinew::import_bytes(&bytes, "materials.fbx", None).unwrap();
    assert_checker_dropped(&asset, "no such file");
    std::fs::remove_dir_all(copy.parent().unwrap()).unwrap();
}

#[test]
fn an_undecodable_external_texture_leaves_the_factor_and_a_warning() {
    let copy = copy_alone("garbage", &[("materials_checker.png", b"not a PNG at all")]);
    assert_checker_dropped(&import(&copy), "materials_checker.png");
    let truncated =
        &std::fs::read(common::repo().join("assets/fbx/materials_checker.png")).unwrap()[..200];
    let copy = copy_alone("truncated", &[("materials_checker.png", truncated)]);
    assert_checker_dropped(&import(&copy), "cannot decode");
    std::fs::remove_dir_all(copy.parent().unwrap()).unwrap();
}

#[test]
fn a_texture_found_only_by_its_file_name_beside_the_fbx_loads() {
    // The file names its texture `textures\materials_checker.png` relative to itself and by a
    // Windows path; the image sits beside the FBX file.
    let text = std::fs::read_to_string(fbx_path()).unwrap().replace(
        "RelativeFilename: \"materials_checker.png\"",
        "RelativeFilename: \"textures\\materials_checker.png\"",
    );
    let png = std::fs::read(common::repo().join("assets/fbx/materials_checker.png")).unwrap();
    let copy = copy_alone("beside", &[("materials_checker.png", &png)]);
    std::fs::write(&copy, text).unwrap();
    let asset = import(&copy);
    let (_, checker) = part(&asset, "Checker");
    assert!(checker.warnings.is_empty(), "{:?}", checker.warnings);
    assert!(checker.base_color_texture.is_some());
    std::fs::remove_dir_all(copy.parent().unwrap()).unwrap();
}

#[test]
fn a_baked_fbx_keeps_its_materials() {
    let asset = import(&fbx_path());
    let rigs = sinew::bake_rigs(&asset).unwrap();
    let bytes = sinew::bake::file::to_bytes(&rigs);
    let loaded = sinew::bake::file::from_bytes(&bytes, "materials.sinew").unwrap();
    assert_eq!(loaded.len(), rigs.len());
    let mut materials = 0;
    for (baked, read) in rigs.iter().zip(&loaded) {
        assert_eq!(baked.meshes.len(), read.meshes.len());
        for (b, r) in baked.meshes.iter().zip(&read.meshes) {
            assert_eq!(b.material, r.material, "mesh {:?}", b.name);
            assert_eq!(b.colors, r.colors, "mesh {:?} vertex colours", b.name);
            assert_eq!(b.uvs1, r.uvs1, "mesh {:?} second UV set", b.name);
            assert_eq!(b.tangents, r.tangents, "mesh {:?} tangents", b.name);
            materials += usize::from(r.material.is_some());
        }
    }
    assert_eq!(materials, 3, "every mesh part keeps its material");
}

#[test]
fn damaged_embedded_content_leaves_the_factor_and_a_warning() {
    // The badge's embedded PNG replaced by other bytes (valid base64 of a text), then by
    // characters that are not base64 at all.
    let text = std::fs::read_to_string(fbx_path()).unwrap();
    let start = text.find("Content: , \"").unwrap() + "Content: , \"".len();
    let end = start + text[start..].find('"').unwrap();
    for (what, content) in [("text", "bm90IGFuIGltYWdl"), ("not base64", "@@@@!!!!")] {
        let damaged = format!("{}{content}{}", &text[..start], &text[end..]);
        let asset = sinew::import_bytes(damaged.as_bytes(), "damaged.fbx", None)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let (_, badge) = part(&asset, "Badge");
        assert!(badge.base_color_texture.is_none(), "{what}");
        assert_close(&badge.base_color, &[1.0; 4], "Badge colour");
        assert_eq!(badge.warnings.len(), 1, "{what}: {:?}", badge.warnings);
        assert!(
            badge.warnings[0].contains("badge.png"),
            "{what}: {:?}",
            badge.warnings
        );
    }
}

/// `materials.fbx` with the checker texture given the FBX properties `lines` (its
/// `Translation`, `Rotation`, `Scaling`).
fn checker_moved(lines: &str) -> String {
    let uv_set = "\t\t\tP: \"UVSet\", \"KString\", \"\", \"\", \"UVMap\"\n";
    let text = std::fs::read_to_string(fbx_path()).unwrap();
    let moved = text.replacen(uv_set, &format!("{uv_set}{lines}"), 1);
    assert_ne!(moved, text);
    moved
}

/// The checker material of an FBX `text` read from the asset's folder.
fn checker_of(text: &str) -> Arc<Material> {
    let base = fbx_path().parent().unwrap().to_path_buf();
    let asset = sinew::import::import_bytes(text.as_bytes(), "moved.fbx", Some(&base))
        .unwrap_or_else(|e| panic!("{e}"));
    part(&asset, "Checker").1.clone()
}

/// An FBX texture's UV transform becomes the texture's transform in glTF's UV space (V down),
/// so the texel a UV reads is the one ufbx's UV-to-texture matrix gives; a rotation with a
/// non-uniform scale, a shear in glTF's terms, is left out with a warning.
#[test]
fn fbx_texture_uv_transforms_move_the_texture() {
    let vector = |name: &str, v: [f64; 3]| {
        format!(
            "\t\t\tP: \"{name}\", \"Vector\", \"\", \"A\",{},{},{}\n",
            v[0], v[1], v[2]
        )
    };
    // Offset (0.25, 0.5) and scale (2, 4), FBX's V up: u' = (u - 0.25) / 2 and, in V down,
    // v' = 1 - (1 - v - 0.5) / 4.
    let lines = vector("Translation", [0.25, 0.5, 0.0]) + &vector("Scaling", [2.0, 4.0, 1.0]);
    let checker = checker_of(&checker_moved(&lines));
    assert!(checker.warnings.is_empty(), "{:?}", checker.warnings);
    let t = checker.base_color_texture.as_ref().unwrap().transform;
    assert_close(&t.offset, &[-0.125, 0.875], "offset");
    assert_close(&t.scale, &[0.5, 0.25], "scale");
    assert_close(&[t.rotation], &[0.0], "rotation");
    // Turned 30° with a uniform scale: the texel of every UV is ufbx's.
    let lines = vector("Rotation", [0.0, 0.0, 30.0])
        + &vector("Scaling", [1.5, 1.5, 1.0])
        + &vector("Translation", [0.1, -0.2, 0.0]);
    let moved = checker_moved(&lines);
    let checker = checker_of(&moved);
    assert!(checker.warnings.is_empty(), "{:?}", checker.warnings);
    let t = checker.base_color_texture.as_ref().unwrap().transform;
    assert!(t.rotation.abs() > 0.1, "{t:?}");
    let scene = sinew::import::fbx::load_scene(moved.as_bytes()).unwrap();
    let texture = scene
        .textures
        .iter()
        .find(|t| &*t.element.name == "checker")
        .unwrap();
    let m = &texture.uv_to_texture;
    for (u, v) in [(0.0, 0.0), (1.0, 0.0), (0.3, 0.8), (1.0, 1.0)] {
        // ufbx's texture coordinate of the FBX UV (u, 1 - v), flipped back to V down.
        let fbx_v = 1.0 - v;
        let want = [
            m.m00 * u + m.m01 * fbx_v + m.m03,
            1.0 - (m.m10 * u + m.m11 * fbx_v + m.m13),
        ]
        .map(|x| x as f32);
        assert_close(&t.apply([u as f32, v as f32]), &want, "turned texel");
    }
    // Turned with a non-uniform scale: not a glTF transform.
    let lines = vector("Rotation", [0.0, 0.0, 30.0]) + &vector("Scaling", [2.0, 1.0, 1.0]);
    let checker = checker_of(&checker_moved(&lines));
    let t = checker.base_color_texture.as_ref().unwrap().transform;
    assert_eq!(t, sinew::import::UvTransform::IDENTITY);
    assert!(
        checker.warnings.iter().any(|w| w.contains("shears")),
        "{:?}",
        checker.warnings
    );
}
