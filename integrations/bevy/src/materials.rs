//! The file's materials as Bevy [`StandardMaterial`]s: what sinew's importer read for each rig
//! mesh (base colour factor and texture with its sampler and UV set, normal map, metallic and
//! roughness factors and texture, occlusion texture, emissive factor and texture, alpha mode,
//! double-sidedness) in Bevy's terms, with each image uploaded once per file (in each colour
//! space it is read in). Bevy has no occlusion strength: the texture applies at full strength.
//! The same materials work for glTF, FBX and `.sinew` files (which store them since format
//! version 6; a mesh without one gets Bevy's default material).

use std::collections::HashMap;
use std::sync::Arc;

use bevy::asset::RenderAssetUsages;
use bevy::image::{Image, ImageAddressMode, ImageFilterMode, ImageSampler, ImageSamplerDescriptor};
use bevy::mesh::UvChannel;
use bevy::pbr::StandardMaterial;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use sinew::import::{AlphaMode as SinewAlpha, Material, MaterialImage, Sampler, TextureRef, Wrap};

/// Images already uploaded, by the decoded image they came from and their colour space.
#[derive(Default)]
pub(crate) struct ImageCache(HashMap<(usize, bool), Handle<Image>>);

/// The standard material of a mesh whose file gave it `material` (`None`: Bevy's default).
pub(crate) fn standard_material(
    material: Option<&Material>,
    cache: &mut ImageCache,
    images: &mut Assets<Image>,
) -> StandardMaterial {
    let Some(m) = material else {
        return StandardMaterial::default();
    };
    let [r, g, b, a] = m.base_color;
    let mut texture = |t: &Option<TextureRef>, srgb: bool| {
        t.as_ref().map(|t| {
            let key = (Arc::as_ptr(&t.image).addr(), srgb);
            let handle = cache
                .0
                .entry(key)
                .or_insert_with(|| images.add(image(&t.image, t.sampler, srgb)))
                .clone();
            (handle, uv_channel(t.uv_set))
        })
    };
    let base = texture(&m.base_color_texture, true);
    let normal = texture(&m.normal_texture, false);
    let metal_rough = texture(&m.metallic_roughness_texture, false);
    let occlusion = texture(&m.occlusion_texture, false);
    let emissive = texture(&m.emissive_texture, true);
    let channel =
        |t: &Option<(Handle<Image>, UvChannel)>| t.as_ref().map_or(UvChannel::Uv0, |t| t.1.clone());
    let [er, eg, eb] = m.emissive;
    StandardMaterial {
        base_color: Color::linear_rgba(r, g, b, a),
        base_color_channel: base.as_ref().map_or(UvChannel::Uv0, |b| b.1.clone()),
        base_color_texture: base.map(|b| b.0),
        normal_map_channel: normal.as_ref().map_or(UvChannel::Uv0, |n| n.1.clone()),
        normal_map_texture: normal.map(|n| n.0),
        alpha_mode: match m.alpha {
            SinewAlpha::Opaque => AlphaMode::Opaque,
            SinewAlpha::Mask(cutoff) => AlphaMode::Mask(cutoff),
            SinewAlpha::Blend => AlphaMode::Blend,
        },
        double_sided: m.double_sided,
        cull_mode: if m.double_sided {
            None
        } else {
            Some(bevy::render::render_resource::Face::Back)
        },
        metallic: m.metallic,
        perceptual_roughness: m.roughness,
        metallic_roughness_channel: channel(&metal_rough),
        metallic_roughness_texture: metal_rough.map(|t| t.0),
        occlusion_channel: channel(&occlusion),
        occlusion_texture: occlusion.map(|t| t.0),
        emissive: LinearRgba::rgb(er, eg, eb),
        emissive_channel: channel(&emissive),
        emissive_texture: emissive.map(|t| t.0),
        ..default()
    }
}

fn uv_channel(set: u32) -> UvChannel {
    if set == 1 {
        UvChannel::Uv1
    } else {
        UvChannel::Uv0
    }
}

/// A decoded image as a Bevy image (sRGB for base and emissive colours, linear for normal,
/// metallic-roughness and occlusion maps) with its sampler.
fn image(source: &MaterialImage, sampler: Sampler, srgb: bool) -> Image {
    let format = if srgb {
        TextureFormat::Rgba8UnormSrgb
    } else {
        TextureFormat::Rgba8Unorm
    };
    let mut image = Image::new(
        Extent3d {
            width: source.width,
            height: source.height,
            depth_or_array_layers: 1,
        },
        TextureDimension::D2,
        source.rgba8.clone(),
        format,
        RenderAssetUsages::RENDER_WORLD,
    );
    let filter = |linear| {
        if linear {
            ImageFilterMode::Linear
        } else {
            ImageFilterMode::Nearest
        }
    };
    let wrap = |w| match w {
        Wrap::Repeat => ImageAddressMode::Repeat,
        Wrap::MirroredRepeat => ImageAddressMode::MirrorRepeat,
        Wrap::ClampToEdge => ImageAddressMode::ClampToEdge,
    };
    image.sampler = ImageSampler::Descriptor(ImageSamplerDescriptor {
        label: Some(source.name.clone()),
        address_mode_u: wrap(sampler.wrap_u),
        address_mode_v: wrap(sampler.wrap_v),
        mag_filter: filter(sampler.mag_linear),
        min_filter: filter(sampler.min_linear),
        ..default()
    });
    image
}
