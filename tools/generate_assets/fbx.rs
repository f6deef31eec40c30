//! `fbx/materials.fbx`: an ASCII FBX 7.4 scene with materials, written as text (no FBX SDK, so
//! the file is the same bytes on every run), and `fbx/materials_checker.png`, the external
//! texture it names.
//!
//! A two-joint skinned panel (80 cm, upright, facing +Z) whose left half uses `Checker` (a
//! diffuse colour and the external checker texture on UV set `UVMap`) and whose right half uses
//! `Glass` (diffuse colour × factor, 25 % transparent, a faint emissive colour, no texture);
//! vertex colours on every corner; and a rigid `Badge` quad under the upper joint whose material reads an embedded PNG
//! (the video's `Content`) through its second UV set, `Second`, clamped along u, and an
//! embedded normal map of tilted stripes through its first (with tangents and binormals). The
//! clip `sway` bends the upper joint.

use std::fmt::Write;

use crate::png::encode_rgba;
// The checker of `synthetic/normal_map.glb`: light grey and orange cells of four texels.
use crate::synthetic::normal_map::base_texel as checker_texel;

/// Texels along each side of the checker.
pub(crate) const CHECKER_TEXELS: u32 = 16;
/// Texels along each side of the badge.
const BADGE_TEXELS: u32 = 4;
/// Quads along each side of the panel.
const QUADS: u32 = 4;
/// The panel's side, in centimetres (the file's unit).
const SIDE: f64 = 80.0;
/// FBX time units per second.
const TICKS: i64 = 46_186_158_000;

/// Four quadrants: red, green (top row), blue, yellow (bottom row).
fn badge_texel(x: u32, y: u32) -> [u8; 4] {
    match (x < BADGE_TEXELS / 2, y < BADGE_TEXELS / 2) {
        (true, true) => [200, 30, 30, 255],
        (false, true) => [30, 200, 30, 255],
        (true, false) => [30, 30, 200, 255],
        (false, false) => [220, 200, 40, 255],
    }
}

/// Vertical stripes one texel wide, tilted 45° towards +u and -u by turns (tangent space,
/// encoded as `n × 0.5 + 0.5`).
fn normal_texel(x: u32, _: u32) -> [u8; 4] {
    if x.is_multiple_of(2) {
        [218, 128, 218, 255]
    } else {
        [38, 128, 218, 255]
    }
}

/// A `side²` PNG whose texel `(x, y)` is `texel(x, y)`.
fn png(side: u32, texel: impl Fn(u32, u32) -> [u8; 4]) -> Vec<u8> {
    let rgba: Vec<u8> = (0..side * side)
        .flat_map(|i| texel(i % side, i / side))
        .collect();
    encode_rgba(side, side, &rgba)
}

/// Standard base64 with padding (ASCII FBX stores embedded content so).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * k) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Numbers joined by commas, as ASCII FBX arrays list them.
fn list<T: std::fmt::Display>(values: impl IntoIterator<Item = T>) -> String {
    values
        .into_iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// An array property: `Name: *count { a: values }`.
pub(crate) fn array(out: &mut String, indent: &str, name: &str, values: &[String]) {
    let _ = writeln!(out, "{indent}{name}: *{} {{", values.len());
    let _ = writeln!(out, "{indent}\ta: {}", values.join(","));
    let _ = writeln!(out, "{indent}}}");
}

pub(crate) fn strings<T: std::fmt::Display>(values: impl IntoIterator<Item = T>) -> Vec<String> {
    values.into_iter().map(|v| v.to_string()).collect()
}

/// A mesh's control points and per-control-point layers.
struct Geometry {
    positions: Vec<[f64; 3]>,
    /// Polygons as control point lists, counter-clockwise seen from the front.
    polygons: Vec<Vec<u32>>,
    /// Per-polygon material index.
    materials: Vec<u32>,
    /// Named UV sets, one UV per control point (V up, as FBX has it).
    uv_sets: Vec<(&'static str, Vec<[f64; 2]>)>,
    /// Vertex colours, one per control point.
    colors: Option<Vec<[f64; 4]>>,
    /// Whether the first UV set has tangents (+X) and binormals (+Y).
    tangents: bool,
}

fn write_geometry(out: &mut String, id: u64, name: &str, g: &Geometry) {
    let _ = writeln!(out, "\tGeometry: {id}, \"Geometry::{name}\", \"Mesh\" {{");
    let t = "\t\t";
    array(out, t, "Vertices", &strings(g.positions.iter().flatten()));
    let indices: Vec<String> = g
        .polygons
        .iter()
        .flat_map(|p| {
            p.iter().enumerate().map(|(k, &i)| {
                // The last corner of a polygon is stored as `-(index + 1)`.
                if k + 1 == p.len() {
                    (-(i64::from(i)) - 1).to_string()
                } else {
                    i.to_string()
                }
            })
        })
        .collect();
    array(out, t, "PolygonVertexIndex", &indices);
    let _ = writeln!(out, "{t}GeometryVersion: 124");
    let layer = |out: &mut String, kind: &str, index: usize, name: &str, mapping: &str| {
        let _ = writeln!(out, "{t}LayerElement{kind}: {index} {{");
        let _ = writeln!(out, "{t}\tVersion: 101");
        let _ = writeln!(out, "{t}\tName: \"{name}\"");
        let _ = writeln!(out, "{t}\tMappingInformationType: \"{mapping}\"");
        let reference = if kind == "Material" {
            "IndexToDirect"
        } else {
            "Direct"
        };
        let _ = writeln!(out, "{t}\tReferenceInformationType: \"{reference}\"");
    };
    layer(out, "Normal", 0, "", "ByVertice");
    let normals = g.positions.iter().flat_map(|_| [0.0, 0.0, 1.0]);
    array(out, "\t\t\t", "Normals", &strings(normals));
    let _ = writeln!(out, "{t}}}");
    for (k, (name, uvs)) in g.uv_sets.iter().enumerate() {
        layer(out, "UV", k, name, "ByVertice");
        array(out, "\t\t\t", "UV", &strings(uvs.iter().flatten()));
        let _ = writeln!(out, "{t}}}");
    }
    if let Some(colors) = &g.colors {
        layer(out, "Color", 0, "Col", "ByVertice");
        array(out, "\t\t\t", "Colors", &strings(colors.iter().flatten()));
        let _ = writeln!(out, "{t}}}");
    }
    let frame = [("Tangent", [1.0, 0.0, 0.0]), ("Binormal", [0.0, 1.0, 0.0])];
    if g.tangents {
        for (kind, axis) in frame {
            layer(out, kind, 0, g.uv_sets[0].0, "ByVertice");
            let values = g.positions.iter().flat_map(|_| axis);
            array(out, "\t\t\t", &format!("{kind}s"), &strings(values));
            let _ = writeln!(out, "{t}}}");
        }
    }
    layer(out, "Material", 0, "", "ByPolygon");
    array(out, "\t\t\t", "Materials", &strings(&g.materials));
    let _ = writeln!(out, "{t}}}");
    let element = |out: &mut String, kind: &str, index: usize| {
        let _ = writeln!(
            out,
            "{t}\tLayerElement:  {{\n{t}\t\tType: \"LayerElement{kind}\"\n{t}\t\tTypedIndex: \
             {index}\n{t}\t}}"
        );
    };
    let _ = writeln!(out, "{t}Layer: 0 {{\n{t}\tVersion: 100");
    element(out, "Normal", 0);
    element(out, "UV", 0);
    if g.colors.is_some() {
        element(out, "Color", 0);
    }
    if g.tangents {
        for (kind, _) in frame {
            element(out, kind, 0);
        }
    }
    element(out, "Material", 0);
    let _ = writeln!(out, "{t}}}");
    for k in 1..g.uv_sets.len() {
        let _ = writeln!(out, "{t}Layer: {k} {{\n{t}\tVersion: 100");
        element(out, "UV", k);
        let _ = writeln!(out, "{t}}}");
    }
    let _ = writeln!(out, "\t}}");
}

/// A `Model` with a local translation.
fn write_model(out: &mut String, id: u64, name: &str, kind: &str, translation: [f64; 3]) {
    let _ = writeln!(
        out,
        "\tModel: {id}, \"Model::{name}\", \"{kind}\" {{\n\t\tVersion: 232\n\t\tProperties70:  {{\n\t\t\tP: \
         \"Lcl Translation\", \"Lcl Translation\", \"\", \"A\",{}\n\t\t}}\n\t}}",
        list(translation)
    );
}

/// A Lambert material's colours: diffuse colour and factor, transparency factor (transparent
/// colour white), emissive colour (factor one).
struct Lambert {
    diffuse: [f64; 3],
    factor: f64,
    transparency: f64,
    emissive: [f64; 3],
}

fn write_material(out: &mut String, id: u64, name: &str, m: &Lambert) {
    let _ = writeln!(
        out,
        "\tMaterial: {id}, \"Material::{name}\", \"\" {{\n\t\tVersion: 102\n\t\tShadingModel: \
         \"lambert\"\n\t\tMultiLayer: 0\n\t\tProperties70:  {{\n\t\t\tP: \"DiffuseColor\", \
         \"Color\", \"\", \"A\",{}\n\t\t\tP: \"DiffuseFactor\", \"Number\", \"\", \"A\",{}\n\t\t\tP: \
         \"TransparentColor\", \"Color\", \"\", \"A\",1,1,1\n\t\t\tP: \"TransparencyFactor\", \
         \"Number\", \"\", \"A\",{}\n\t\t\tP: \"EmissiveColor\", \"Color\", \"\", \"A\",{}\n\t\t\tP: \
         \"EmissiveFactor\", \"Number\", \"\", \"A\",1\n\t\t}}\n\t}}",
        list(m.diffuse),
        m.factor,
        m.transparency,
        list(m.emissive)
    );
}

/// A file texture and its video: `uv_set` names the mesh's UV set; `clamp_u` clamps along u;
/// `content` embeds the image (else it is the file the paths name).
struct TextureFile<'a> {
    name: &'a str,
    uv_set: &'a str,
    clamp_u: bool,
    absolute: &'a str,
    relative: &'a str,
    content: Option<&'a [u8]>,
}

fn write_texture(out: &mut String, texture_id: u64, video_id: u64, t: &TextureFile<'_>) {
    let name = t.name;
    let _ = writeln!(
        out,
        "\tVideo: {video_id}, \"Video::{name}\", \"Clip\" {{\n\t\tType: \"Clip\"\n\t\tProperties70:  \
         {{\n\t\t\tP: \"Path\", \"KString\", \"XRefUrl\", \"\", \"{}\"\n\t\t}}\n\t\tUseMipMap: \
         0\n\t\tFilename: \"{}\"\n\t\tRelativeFilename: \"{}\"",
        t.absolute, t.absolute, t.relative
    );
    if let Some(content) = t.content {
        let _ = writeln!(out, "\t\tContent: , \"{}\"", base64(content));
    }
    let _ = writeln!(out, "\t}}");
    let _ = writeln!(
        out,
        "\tTexture: {texture_id}, \"Texture::{name}\", \"\" {{\n\t\tType: \
         \"TextureVideoClip\"\n\t\tVersion: 202\n\t\tTextureName: \"Texture::{name}\"\n\t\tProperties70:  \
         {{\n\t\t\tP: \"UVSet\", \"KString\", \"\", \"\", \"{}\"\n\t\t\tP: \"WrapModeU\", \"enum\", \
         \"\", \"\",{}\n\t\t\tP: \"WrapModeV\", \"enum\", \"\", \"\",0\n\t\t}}\n\t\tMedia: \
         \"Video::{name}\"\n\t\tFileName: \"{}\"\n\t\tRelativeFilename: \"{}\"\n\t}}",
        t.uv_set,
        u8::from(t.clamp_u),
        t.absolute,
        t.relative
    );
}

/// A skin cluster binding `indices` with `weights` to a bone whose bind world is a translation.
fn write_cluster(out: &mut String, id: u64, name: &str, weights: &[(u32, f64)], bone_at: [f64; 3]) {
    let _ = writeln!(
        out,
        "\tDeformer: {id}, \"SubDeformer::{name}\", \"Cluster\" {{\n\t\tVersion: 100"
    );
    array(
        out,
        "\t\t",
        "Indexes",
        &strings(weights.iter().map(|w| w.0)),
    );
    array(
        out,
        "\t\t",
        "Weights",
        &strings(weights.iter().map(|w| w.1)),
    );
    let identity = strings([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
    array(out, "\t\t", "Transform", &identity);
    let mut link: Vec<String> = strings([1.0, 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0.]);
    link.extend(strings(bone_at));
    link.push("1".into());
    array(out, "\t\t", "TransformLink", &link);
    let _ = writeln!(out, "\t}}");
}

/// The scene's object ids.
mod id {
    pub const ROOT: u64 = 1000;
    pub const TOP: u64 = 1001;
    pub const PANEL: u64 = 1002;
    pub const BADGE: u64 = 1003;
    pub const PANEL_GEOMETRY: u64 = 2000;
    pub const BADGE_GEOMETRY: u64 = 2001;
    pub const CHECKER: u64 = 3000;
    pub const GLASS: u64 = 3001;
    pub const BADGE_MATERIAL: u64 = 3002;
    pub const CHECKER_TEXTURE: u64 = 4000;
    pub const CHECKER_VIDEO: u64 = 4001;
    pub const BADGE_TEXTURE: u64 = 4002;
    pub const BADGE_VIDEO: u64 = 4003;
    pub const NORMAL_TEXTURE: u64 = 4004;
    pub const NORMAL_VIDEO: u64 = 4005;
    pub const SKIN: u64 = 5000;
    pub const ROOT_CLUSTER: u64 = 5001;
    pub const TOP_CLUSTER: u64 = 5002;
    pub const STACK: u64 = 6000;
    pub const LAYER: u64 = 6001;
    pub const CURVE_NODE: u64 = 6002;
    pub const CURVE: u64 = 6003;
}

/// The panel: `QUADS²` quads in the z = 0 plane, x across `[-SIDE/2, SIDE/2]`, y up from 0;
/// the left half's polygons use material 0, the right half's material 1.
fn panel() -> Geometry {
    let n = QUADS + 1;
    let step = SIDE / f64::from(QUADS);
    let mut g = Geometry {
        positions: Vec::new(),
        polygons: Vec::new(),
        materials: Vec::new(),
        uv_sets: vec![("UVMap", Vec::new())],
        colors: Some(Vec::new()),
        tangents: false,
    };
    for j in 0..n {
        for i in 0..n {
            let (u, v) = (
                f64::from(i) / f64::from(QUADS),
                f64::from(j) / f64::from(QUADS),
            );
            g.positions
                .push([f64::from(i) * step - 0.5 * SIDE, f64::from(j) * step, 0.0]);
            g.uv_sets[0].1.push([u, v]);
            if let Some(c) = &mut g.colors {
                c.push([1.0, 0.75 + 0.25 * u, 0.5 + 0.5 * v, 1.0]);
            }
        }
    }
    for j in 0..QUADS {
        for i in 0..QUADS {
            let a = j * n + i;
            g.polygons.push(vec![a, a + 1, a + 1 + n, a + n]);
            g.materials.push(u32::from(i >= QUADS / 2));
        }
    }
    g
}

/// The badge: a 20 cm quad around its node, with a second UV set mirrored along u.
fn badge() -> Geometry {
    let corners = [[-10.0, -10.0], [10.0, -10.0], [10.0, 10.0], [-10.0, 10.0]];
    let uvs = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
    Geometry {
        positions: corners.iter().map(|c| [c[0], c[1], 0.0]).collect(),
        polygons: vec![vec![0, 1, 2, 3]],
        materials: vec![0],
        uv_sets: vec![
            ("UVMap", uvs.to_vec()),
            (
                "Second",
                uvs.iter().map(|uv| [1.0 - uv[0], uv[1]]).collect(),
            ),
        ],
        colors: None,
        tangents: true,
    }
}

/// The text of `fbx/materials.fbx` and the bytes of `fbx/materials_checker.png`.
pub(crate) fn materials() -> (String, Vec<u8>) {
    let checker = png(CHECKER_TEXELS, checker_texel);
    let badge_png = png(BADGE_TEXELS, badge_texel);
    let normal_png = png(BADGE_TEXELS, normal_texel);
    let mut out = String::new();
    out.push_str(
        "; FBX 7.4.0 project file\n; Written by sinew's generate_assets: a skinned panel with two \
         materials (an external\n; texture, a transparent colour) and a badge with an embedded \
         texture on its second UV set.\n\nFBXHeaderExtension:  {\n\tFBXHeaderVersion: \
         1003\n\tFBXVersion: 7400\n}\nGlobalSettings:  {\n\tVersion: 1000\n\tProperties70:  {\n",
    );
    for (name, value) in [
        ("UpAxis", 1),
        ("UpAxisSign", 1),
        ("FrontAxis", 2),
        ("FrontAxisSign", 1),
        ("CoordAxis", 0),
        ("CoordAxisSign", 1),
    ] {
        let _ = writeln!(out, "\t\tP: \"{name}\", \"int\", \"Integer\", \"\",{value}");
    }
    out.push_str(
        "\t\tP: \"UnitScaleFactor\", \"double\", \"Number\", \"\",1\n\t\tP: \"TimeMode\", \
         \"enum\", \"\", \"\",6\n\t}\n}\nObjects:  {\n",
    );
    let half = 0.5 * SIDE;
    write_model(&mut out, id::ROOT, "Root", "LimbNode", [0.0; 3]);
    write_model(&mut out, id::TOP, "Top", "LimbNode", [0.0, half, 0.0]);
    write_model(&mut out, id::PANEL, "Panel", "Mesh", [0.0; 3]);
    write_model(&mut out, id::BADGE, "Badge", "Mesh", [0.0, 0.0, 5.0]);
    let panel = panel();
    write_geometry(&mut out, id::PANEL_GEOMETRY, "Panel", &panel);
    write_geometry(&mut out, id::BADGE_GEOMETRY, "Badge", &badge());
    let materials = [
        (id::CHECKER, "Checker", [0.9, 0.8, 1.0], 1.0, 0.0, [0.0; 3]),
        (
            id::GLASS,
            "Glass",
            [0.2, 0.4, 0.8],
            0.5,
            0.25,
            [0.1, 0.05, 0.0],
        ),
        (id::BADGE_MATERIAL, "Badge", [1.0; 3], 1.0, 0.0, [0.0; 3]),
    ];
    for (id, name, diffuse, factor, transparency, emissive) in materials {
        let lambert = Lambert {
            diffuse,
            factor,
            transparency,
            emissive,
        };
        write_material(&mut out, id, name, &lambert);
    }
    write_texture(
        &mut out,
        id::CHECKER_TEXTURE,
        id::CHECKER_VIDEO,
        &TextureFile {
            name: "checker",
            uv_set: "UVMap",
            clamp_u: false,
            absolute: "C:\\Users\\artist\\fbx\\materials_checker.png",
            relative: "materials_checker.png",
            content: None,
        },
    );
    write_texture(
        &mut out,
        id::BADGE_TEXTURE,
        id::BADGE_VIDEO,
        &TextureFile {
            name: "badge",
            uv_set: "Second",
            clamp_u: true,
            absolute: "C:\\Users\\artist\\fbx\\badge.png",
            relative: "badge.png",
            content: Some(&badge_png),
        },
    );
    write_texture(
        &mut out,
        id::NORMAL_TEXTURE,
        id::NORMAL_VIDEO,
        &TextureFile {
            name: "badge_normal",
            uv_set: "UVMap",
            clamp_u: false,
            absolute: "C:\\Users\\artist\\fbx\\badge_normal.png",
            relative: "badge_normal.png",
            content: Some(&normal_png),
        },
    );
    // Skin: the panel's upper half bends with `Top`.
    let _ = writeln!(
        out,
        "\tDeformer: {}, \"Deformer::Panel\", \"Skin\" {{\n\t\tVersion: 101\n\t\tLink_DeformAcuracy: 50\n\t}}",
        id::SKIN
    );
    let top_weight = |p: &[f64; 3]| ((p[1] - half) / half).clamp(0.0, 1.0);
    let weights = |top: bool| -> Vec<(u32, f64)> {
        panel
            .positions
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let w = top_weight(p);
                (i as u32, if top { w } else { 1.0 - w })
            })
            .filter(|&(_, w)| w > 0.0)
            .collect()
    };
    write_cluster(
        &mut out,
        id::ROOT_CLUSTER,
        "Root",
        &weights(false),
        [0.0; 3],
    );
    write_cluster(
        &mut out,
        id::TOP_CLUSTER,
        "Top",
        &weights(true),
        [0.0, half, 0.0],
    );
    // `sway`: the upper joint turns about X, 0° → 15° → 0° over a second.
    let _ = writeln!(
        out,
        "\tAnimationStack: {}, \"AnimStack::sway\", \"\" {{\n\t\tProperties70:  {{\n\t\t\tP: \
         \"LocalStart\", \"KTime\", \"Time\", \"\",0\n\t\t\tP: \"LocalStop\", \"KTime\", \"Time\", \
         \"\",{TICKS}\n\t\t}}\n\t}}\n\tAnimationLayer: {}, \"AnimLayer::Layer\", \"\" {{\n\t}}\n\tAnimationCurveNode: \
         {}, \"AnimCurveNode::R\", \"\" {{\n\t\tProperties70:  {{\n\t\t\tP: \"d|X\", \"Number\", \"\", \
         \"A\",0\n\t\t\tP: \"d|Y\", \"Number\", \"\", \"A\",0\n\t\t\tP: \"d|Z\", \"Number\", \"\", \
         \"A\",0\n\t\t}}\n\t}}\n\tAnimationCurve: {}, \"AnimCurve::\", \"\" {{\n\t\tDefault: 0\n\t\tKeyVer: 4009",
        id::STACK,
        id::LAYER,
        id::CURVE_NODE,
        id::CURVE
    );
    array(&mut out, "\t\t", "KeyTime", &strings([0, TICKS / 2, TICKS]));
    array(&mut out, "\t\t", "KeyValueFloat", &strings([0, 15, 0]));
    array(&mut out, "\t\t", "KeyAttrFlags", &strings([4]));
    array(&mut out, "\t\t", "KeyAttrDataFloat", &strings([0, 0, 0, 0]));
    array(&mut out, "\t\t", "KeyAttrRefCount", &strings([3]));
    out.push_str("\t}\n}\nConnections:  {\n");
    // Child, parent and, for a connection to a property, its name. Material indices follow
    // the order materials connect to their model.
    let connections: [(u64, u64, Option<&str>); 24] = [
        (id::ROOT, 0, None),
        (id::TOP, id::ROOT, None),
        (id::PANEL, 0, None),
        (id::BADGE, id::TOP, None),
        (id::PANEL_GEOMETRY, id::PANEL, None),
        (id::BADGE_GEOMETRY, id::BADGE, None),
        (id::CHECKER, id::PANEL, None),
        (id::GLASS, id::PANEL, None),
        (id::BADGE_MATERIAL, id::BADGE, None),
        (id::CHECKER_VIDEO, id::CHECKER_TEXTURE, None),
        (id::BADGE_VIDEO, id::BADGE_TEXTURE, None),
        (id::NORMAL_VIDEO, id::NORMAL_TEXTURE, None),
        (id::CHECKER_TEXTURE, id::CHECKER, Some("DiffuseColor")),
        (id::BADGE_TEXTURE, id::BADGE_MATERIAL, Some("DiffuseColor")),
        (id::NORMAL_TEXTURE, id::BADGE_MATERIAL, Some("NormalMap")),
        (id::SKIN, id::PANEL_GEOMETRY, None),
        (id::ROOT_CLUSTER, id::SKIN, None),
        (id::TOP_CLUSTER, id::SKIN, None),
        (id::ROOT, id::ROOT_CLUSTER, None),
        (id::TOP, id::TOP_CLUSTER, None),
        (id::LAYER, id::STACK, None),
        (id::CURVE_NODE, id::LAYER, None),
        (id::CURVE_NODE, id::TOP, Some("Lcl Rotation")),
        (id::CURVE, id::CURVE_NODE, Some("d|X")),
    ];
    for (child, parent, property) in connections {
        let _ = match property {
            None => writeln!(out, "\tC: \"OO\",{child},{parent}"),
            Some(p) => writeln!(out, "\tC: \"OP\",{child},{parent}, \"{p}\""),
        };
    }
    out.push_str("}\n");
    (out, checker)
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64_pads_like_rfc_4648() {
        assert_eq!(super::base64(b""), "");
        assert_eq!(super::base64(b"f"), "Zg==");
        assert_eq!(super::base64(b"fo"), "Zm8=");
        assert_eq!(super::base64(b"foo"), "Zm9v");
        assert_eq!(super::base64(b"foobar"), "Zm9vYmFy");
    }
}
