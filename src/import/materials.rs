//! glTF materials as sinew draws them: the base colour (factor and texture, with its sampler
//! and UV set), metallic and roughness (factors and texture), occlusion, emissive (factor and
//! texture), the alpha mode, and the normal map. Every image is decoded once (PNG or JPEG,
//! embedded, data URI or a file beside the glTF) into 8-bit RGBA, shared by the materials that
//! use it.
//!
//! A texture's `KHR_texture_transform` (offset, rotation, scale and the UV set it may name) is
//! kept with it ([`UvTransform`]) and applied where the texture is sampled.
//!
//! Bad material data never fails the import: a texture whose image cannot be read or decoded,
//! whose transform is not finite, or that reads a UV set other than 0 and 1, is dropped (the material keeps its factors) and
//! the reason is kept in [`Material::warnings`]. Factors outside their range are clamped (a
//! non-finite one takes glTF's default).

use std::path::Path;
use std::sync::Arc;

use super::document::Buffers;
pub use crate::baked::{
    AlphaMode, Material, MaterialImage, Sampler, TextureRef, UvTransform, Wrap,
};
use serde_json::Value;

use super::extensions::TEXTURE_TRANSFORM;

/// Every material of `doc`, in index order; each image is decoded once.
pub(crate) fn read_materials(
    doc: &gltf::Document,
    buffers: &Buffers,
    base: Option<&Path>,
) -> Vec<Arc<Material>> {
    let mut images: Vec<Option<Result<Arc<MaterialImage>, String>>> =
        vec![None; doc.images().len()];
    doc.materials()
        .map(|m| {
            let pbr = m.pbr_metallic_roughness();
            let mut material = Material {
                name: m.name().map_or_else(
                    || format!("material{}", m.index().unwrap_or(0)),
                    str::to_string,
                ),
                base_color: sanitize(pbr.base_color_factor()),
                metallic: unit(pbr.metallic_factor(), 1.0),
                roughness: unit(pbr.roughness_factor(), 1.0),
                emissive: m.emissive_factor().map(|c| unit(c, 0.0)),
                normal_scale: 1.0,
                alpha: match m.alpha_mode() {
                    gltf::material::AlphaMode::Opaque => AlphaMode::Opaque,
                    gltf::material::AlphaMode::Mask => {
                        let cutoff = m.alpha_cutoff().unwrap_or(0.5);
                        AlphaMode::Mask(if cutoff.is_finite() { cutoff } else { 0.5 })
                    }
                    gltf::material::AlphaMode::Blend => AlphaMode::Blend,
                },
                double_sided: m.double_sided(),
                ..Material::default()
            };
            let mut read = |what: &str, texture: &gltf::Texture<'_>, set: u32, moved: Moved| {
                moved
                    .and_then(|(transform, named)| {
                        let set = named.unwrap_or(set);
                        texture_ref(texture, set, transform, doc, buffers, base, &mut images)
                    })
                    .map_err(|e| format!("{what} texture: {e}"))
            };
            let mut warnings = Vec::new();
            let mut keep = |t: Result<TextureRef, String>| t.map_err(|e| warnings.push(e)).ok();
            if let Some(info) = pbr.base_color_texture() {
                material.base_color_texture = keep(read(
                    "base colour",
                    &info.texture(),
                    info.tex_coord(),
                    info_transform(&info),
                ));
            }
            if let Some(info) = pbr.metallic_roughness_texture() {
                material.metallic_roughness_texture = keep(read(
                    "metallic-roughness",
                    &info.texture(),
                    info.tex_coord(),
                    info_transform(&info),
                ));
            }
            if let Some(normal) = m.normal_texture() {
                let moved = json_transform(normal.extension_value(TEXTURE_TRANSFORM));
                material.normal_texture =
                    keep(read("normal", &normal.texture(), normal.tex_coord(), moved));
                if material.normal_texture.is_some() {
                    let scale = normal.scale();
                    material.normal_scale = if scale.is_finite() { scale } else { 1.0 };
                }
            }
            if let Some(occlusion) = m.occlusion_texture() {
                let moved = json_transform(occlusion.extension_value(TEXTURE_TRANSFORM));
                material.occlusion_texture = keep(read(
                    "occlusion",
                    &occlusion.texture(),
                    occlusion.tex_coord(),
                    moved,
                ));
                if material.occlusion_texture.is_some() {
                    material.occlusion_strength = unit(occlusion.strength(), 1.0);
                }
            }
            if let Some(info) = m.emissive_texture() {
                material.emissive_texture = keep(read(
                    "emissive",
                    &info.texture(),
                    info.tex_coord(),
                    info_transform(&info),
                ));
            }
            material.warnings = warnings;
            Arc::new(material)
        })
        .collect()
}

/// A texture's UV transform and the UV set it names (`None`: the texture info's own), or why
/// it is refused.
type Moved = Result<(UvTransform, Option<u32>), String>;

/// The `KHR_texture_transform` of a base colour, metallic-roughness or emissive texture.
fn info_transform(info: &gltf::texture::Info<'_>) -> Moved {
    match info.texture_transform() {
        Some(t) => checked(
            UvTransform {
                offset: t.offset(),
                rotation: t.rotation(),
                scale: t.scale(),
            },
            t.tex_coord(),
        ),
        None => Ok((UvTransform::IDENTITY, None)),
    }
}

/// The `KHR_texture_transform` object of a normal or occlusion texture (the gltf crate keeps
/// those as JSON).
fn json_transform(value: Option<&Value>) -> Moved {
    let Some(value) = value else {
        return Ok((UvTransform::IDENTITY, None));
    };
    let bad = || format!("{TEXTURE_TRANSFORM} {value} is not offset, rotation and scale numbers");
    let pair = |key: &str, default: [f32; 2]| -> Result<[f32; 2], String> {
        match value.get(key) {
            None => Ok(default),
            Some(Value::Array(a)) if a.len() == 2 => {
                let at = |i: usize| a[i].as_f64().map(|v| v as f32).ok_or_else(bad);
                Ok([at(0)?, at(1)?])
            }
            Some(_) => Err(bad()),
        }
    };
    let rotation = match value.get("rotation") {
        None => 0.0,
        Some(r) => r.as_f64().ok_or_else(bad)? as f32,
    };
    let tex_coord = match value.get("texCoord") {
        None => None,
        Some(t) => Some(
            t.as_u64()
                .and_then(|t| u32::try_from(t).ok())
                .ok_or_else(bad)?,
        ),
    };
    let transform = UvTransform {
        offset: pair("offset", [0.0, 0.0])?,
        rotation,
        scale: pair("scale", [1.0, 1.0])?,
    };
    checked(transform, tex_coord)
}

/// `transform` when every number is finite.
fn checked(transform: UvTransform, tex_coord: Option<u32>) -> Moved {
    let UvTransform {
        offset: [ox, oy],
        rotation,
        scale: [sx, sy],
    } = transform;
    if [ox, oy, rotation, sx, sy].iter().all(|v| v.is_finite()) {
        Ok((transform, tex_coord))
    } else {
        Err(format!("{TEXTURE_TRANSFORM} {transform:?} is not finite"))
    }
}

/// Finite components clamped to `[0, 1]` (non-finite ones 1).
fn sanitize(c: [f32; 4]) -> [f32; 4] {
    c.map(|v| unit(v, 1.0))
}

/// `v` clamped to `[0, 1]`, or `default` when it is not finite.
fn unit(v: f32, default: f32) -> f32 {
    if v.is_finite() {
        v.clamp(0.0, 1.0)
    } else {
        default
    }
}

fn texture_ref(
    texture: &gltf::Texture<'_>,
    uv_set: u32,
    transform: UvTransform,
    doc: &gltf::Document,
    buffers: &Buffers,
    base: Option<&Path>,
    images: &mut [Option<Result<Arc<MaterialImage>, String>>],
) -> Result<TextureRef, String> {
    if uv_set > 1 {
        return Err(format!(
            "UV set {uv_set} is not read (only TEXCOORD_0 and _1)"
        ));
    }
    let image = texture_image(texture)
        .ok_or_else(|| format!("texture {} has no image sinew reads", texture.index()))?;
    let slot = images
        .get_mut(image.index())
        .ok_or_else(|| format!("image {} does not exist", image.index()))?;
    let decoded = slot
        .get_or_insert_with(|| decode(&image, doc, buffers, base).map(Arc::new))
        .clone()?;
    let s = texture.sampler();
    use gltf::texture::{MagFilter, MinFilter, WrappingMode};
    let wrap = |w: WrappingMode| match w {
        WrappingMode::Repeat => Wrap::Repeat,
        WrappingMode::MirroredRepeat => Wrap::MirroredRepeat,
        WrappingMode::ClampToEdge => Wrap::ClampToEdge,
    };
    Ok(TextureRef {
        image: decoded,
        sampler: Sampler {
            mag_linear: s.mag_filter() != Some(MagFilter::Nearest),
            min_linear: !matches!(
                s.min_filter(),
                Some(
                    MinFilter::Nearest
                        | MinFilter::NearestMipmapNearest
                        | MinFilter::NearestMipmapLinear
                )
            ),
            wrap_u: wrap(s.wrap_s()),
            wrap_v: wrap(s.wrap_t()),
        },
        uv_set,
        transform,
    })
}

/// Largest image side decoded (larger ones are dropped with a warning).
const MAX_IMAGE_SIDE: u32 = 16384;

/// The texture's image: with `extension-textures`, a texture may have none (its image comes
/// from an extension, KHR_texture_basisu); without it, the glTF crate has refused such files.
#[cfg(feature = "extension-textures")]
fn texture_image<'a>(texture: &gltf::Texture<'a>) -> Option<gltf::Image<'a>> {
    texture.source()
}

/// The texture's image (see the `extension-textures` twin above).
#[cfg(not(feature = "extension-textures"))]
fn texture_image<'a>(texture: &gltf::Texture<'a>) -> Option<gltf::Image<'a>> {
    Some(texture.source())
}

/// The image's bytes (a buffer view, checked against the buffer, or a URI: data or a file
/// beside the glTF) decoded to RGBA8.
fn decode(
    image: &gltf::Image<'_>,
    _doc: &gltf::Document,
    buffers: &Buffers,
    base: Option<&Path>,
) -> Result<MaterialImage, String> {
    let name = image
        .name()
        .map_or_else(|| format!("image{}", image.index()), str::to_string);
    let owned;
    let bytes: &[u8] = match image.source() {
        gltf::image::Source::View { view, .. } => {
            let buffer = buffers
                .buffers
                .get(view.buffer().index())
                .ok_or_else(|| format!("{name}: buffer {} is missing", view.buffer().index()))?;
            let start = view.offset();
            start
                .checked_add(view.length())
                .and_then(|end| buffer.0.get(start..end))
                .ok_or_else(|| format!("{name}: its buffer view lies outside its buffer"))?
        }
        gltf::image::Source::Uri { uri, .. } => {
            owned = gltf::buffer::Data::from_source(gltf::buffer::Source::Uri(uri), base)
                .map_err(|e| format!("{name}: cannot read {uri:?}: {e}"))?;
            &owned.0
        }
    };
    decode_image(name, bytes)
}

/// Encoded image bytes (PNG, JPEG or TGA, recognised by content) decoded to RGBA8; `name`
/// labels the image and its errors. Images larger than [`MAX_IMAGE_SIDE`] on a side are
/// refused.
pub(crate) fn decode_image(name: String, bytes: &[u8]) -> Result<MaterialImage, String> {
    let mut reader = image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| format!("{name}: {e}"))?;
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_IMAGE_SIDE);
    limits.max_image_height = Some(MAX_IMAGE_SIDE);
    reader.limits(limits);
    let decoded = reader
        .decode()
        .map_err(|e| format!("{name}: cannot decode: {e}"))?
        .to_rgba8();
    let (width, height) = decoded.dimensions();
    Ok(MaterialImage {
        name,
        width,
        height,
        rgba8: decoded.into_raw(),
    })
}
