//! The materials section of a `.sinew` file (layout in `file.rs`, since version 6): the
//! distinct materials of a rig's meshes and the images they read, stored as decoded RGBA8
//! pixels so a file draws without its source and without an image decoder. Written only for a
//! rig with a material; each mesh names its own in its surface section. Version 7 adds the
//! metallic-roughness model's factors and textures (occlusion and emissive included); version 6
//! materials load with glTF's defaults for them (metallic and rough, no occlusion, no emission).

use std::sync::Arc;

use super::NO_INDEX;
use super::container::{Section, SectionId, SectionKind, SectionTable};
use super::section::{SectionReader, SectionWriter, count};
use crate::baked::{AlphaMode, Material, MaterialImage, Rig, Sampler, TextureRef, Wrap};
use crate::error::FormatErrorKind;

/// The first format version with materials and surface sections.
pub(super) const FIRST_MATERIAL_VERSION: u32 = 6;

/// The first format version whose materials store metallic, roughness, occlusion and emissive.
pub(super) const FIRST_PBR_VERSION: u32 = 7;

/// A rig's distinct materials in first-use order, and the distinct images they read.
#[derive(Default)]
pub(super) struct RigMaterials {
    /// The materials, each stored once.
    pub materials: Vec<Arc<Material>>,
    /// The images, each stored once.
    pub images: Vec<Arc<MaterialImage>>,
}

impl RigMaterials {
    /// The distinct materials of `rig`'s meshes and their images.
    pub fn of(rig: &Rig) -> Self {
        let mut out = Self::default();
        for material in rig.meshes.iter().filter_map(|m| m.material.as_ref()) {
            if out.material_index(material).is_none() {
                out.materials.push(material.clone());
            }
            for texture in material.textures().into_iter().flatten() {
                if out.image_index(&texture.image).is_none() {
                    out.images.push(texture.image.clone());
                }
            }
        }
        out
    }

    /// Where `material` is stored.
    pub fn material_index(&self, material: &Arc<Material>) -> Option<usize> {
        self.materials
            .iter()
            .position(|m| Arc::ptr_eq(m, material) || m == material)
    }

    fn image_index(&self, image: &Arc<MaterialImage>) -> Option<usize> {
        self.images
            .iter()
            .position(|i| Arc::ptr_eq(i, image) || i == image)
    }

    /// A texture as stored: image index, sampler bits, UV set, 0.
    fn texture_words(&self, texture: Option<&TextureRef>) -> [u32; 4] {
        texture.map_or([NO_INDEX, 0, 0, 0], |t| {
            let image = self.image_index(&t.image).map_or(NO_INDEX, count);
            [image, sampler_bits(&t.sampler), t.uv_set, 0]
        })
    }
}

fn materials_id(rig: u32) -> SectionId {
    SectionId::of(SectionKind::Materials, rig)
}

fn wrap_code(wrap: Wrap) -> u32 {
    match wrap {
        Wrap::Repeat => 0,
        Wrap::MirroredRepeat => 1,
        Wrap::ClampToEdge => 2,
    }
}

fn wrap_from(code: u32) -> Option<Wrap> {
    match code {
        0 => Some(Wrap::Repeat),
        1 => Some(Wrap::MirroredRepeat),
        2 => Some(Wrap::ClampToEdge),
        _ => None,
    }
}

/// Bit 0: linear magnification; bit 1: linear minification; bits 2-3 and 4-5: the wrap codes
/// along u and v.
fn sampler_bits(s: &Sampler) -> u32 {
    u32::from(s.mag_linear)
        | u32::from(s.min_linear) << 1
        | wrap_code(s.wrap_u) << 2
        | wrap_code(s.wrap_v) << 4
}

fn sampler_from(bits: u32) -> Option<Sampler> {
    (bits < 64).then_some(())?;
    Some(Sampler {
        mag_linear: bits & 1 != 0,
        min_linear: bits & 2 != 0,
        wrap_u: wrap_from(bits >> 2 & 3)?,
        wrap_v: wrap_from(bits >> 4 & 3)?,
    })
}

/// Alpha mode code (0 opaque, 1 mask, 2 blend) and cutoff.
fn alpha_words(alpha: AlphaMode) -> (u32, f32) {
    match alpha {
        AlphaMode::Opaque => (0, 0.0),
        AlphaMode::Mask(cutoff) => (1, cutoff),
        AlphaMode::Blend => (2, 0.0),
    }
}

/// The materials section of rig `r`, when one of its meshes has a material.
pub(super) fn rig_section(rig: &Rig, r: u32) -> Option<Section> {
    let all = RigMaterials::of(rig);
    if all.materials.is_empty() {
        return None;
    }
    let pixels: Vec<u8> = all.images.iter().flat_map(|i| i.rgba8.clone()).collect();
    let warnings: Vec<&str> = all
        .materials
        .iter()
        .flat_map(|m| m.warnings.iter().map(String::as_str))
        .collect();
    let mut w = SectionWriter::default();
    w.u32(count(all.images.len()));
    w.u32(count(all.materials.len()));
    w.u32(count(pixels.len()));
    w.u32(count(warnings.len()));
    w.strings(all.images.iter().map(|i| i.name.as_str()));
    let sizes: Vec<[u32; 4]> = all
        .images
        .iter()
        .map(|i| [i.width, i.height, 0, 0])
        .collect();
    w.array(&sizes);
    w.array(&pixels);
    w.strings(all.materials.iter().map(|m| m.name.as_str()));
    let per_material = |f: &dyn Fn(&Material) -> [u32; 4]| -> Vec<[u32; 4]> {
        all.materials.iter().map(|m| f(m)).collect()
    };
    let colors: Vec<[f32; 4]> = all.materials.iter().map(|m| m.base_color).collect();
    w.array(&colors);
    let params: Vec<[f32; 4]> = all
        .materials
        .iter()
        .map(|m| [m.normal_scale, alpha_words(m.alpha).1, 0.0, 0.0])
        .collect();
    w.array(&params);
    w.array(&per_material(&|m| {
        let (alpha, _) = alpha_words(m.alpha);
        [alpha, u32::from(m.double_sided), count(m.warnings.len()), 0]
    }));
    w.array(&per_material(&|m| {
        all.texture_words(m.base_color_texture.as_ref())
    }));
    w.array(&per_material(&|m| {
        all.texture_words(m.normal_texture.as_ref())
    }));
    let pbr: Vec<[f32; 4]> = all
        .materials
        .iter()
        .map(|m| [m.metallic, m.roughness, m.occlusion_strength, 0.0])
        .collect();
    w.array(&pbr);
    let emissive: Vec<[f32; 4]> = all
        .materials
        .iter()
        .map(|m| [m.emissive[0], m.emissive[1], m.emissive[2], 0.0])
        .collect();
    w.array(&emissive);
    w.array(&per_material(&|m| {
        all.texture_words(m.metallic_roughness_texture.as_ref())
    }));
    w.array(&per_material(&|m| {
        all.texture_words(m.occlusion_texture.as_ref())
    }));
    w.array(&per_material(&|m| {
        all.texture_words(m.emissive_texture.as_ref())
    }));
    w.strings(warnings.into_iter());
    Some(Section {
        id: materials_id(r),
        body: w.finish(),
    })
}

/// Decodes the materials section of rig `r` (none: no mesh of the rig has a material, as in
/// every file before version 6).
pub(super) fn decode_rig(
    table: &mut SectionTable<'_>,
    r: u32,
) -> Result<Vec<Arc<Material>>, FormatErrorKind> {
    let id = materials_id(r);
    let Some(body) = table.take_since(id, FIRST_MATERIAL_VERSION) else {
        return Ok(Vec::new());
    };
    let mut rd = SectionReader::new(body, id);
    let image_count = rd.u32("image count")?;
    let material_count = rd.u32("material count")?;
    let pixel_count = rd.u32("pixel byte count")?;
    let warning_count = rd.u32("warning count")?;
    let image_names = rd.strings(image_count, "image names")?;
    let sizes: Vec<[u32; 4]> = rd.array(image_count, "image sizes")?;
    let pixels: Vec<u8> = rd.array(pixel_count, "pixels")?;
    let names = rd.strings(material_count, "material names")?;
    let colors: Vec<[f32; 4]> = rd.array(material_count, "base colours")?;
    let params: Vec<[f32; 4]> = rd.array(material_count, "material parameters")?;
    let flags: Vec<[u32; 4]> = rd.array(material_count, "material flags")?;
    let base: Vec<[u32; 4]> = rd.array(material_count, "base colour textures")?;
    let normal: Vec<[u32; 4]> = rd.array(material_count, "normal textures")?;
    let pbr = if table.version >= FIRST_PBR_VERSION {
        Some(PbrWords {
            factors: rd.array(material_count, "metallic-roughness factors")?,
            emissive: rd.array(material_count, "emissive factors")?,
            metallic_roughness: rd.array(material_count, "metallic-roughness textures")?,
            occlusion: rd.array(material_count, "occlusion textures")?,
            emissive_textures: rd.array(material_count, "emissive textures")?,
        })
    } else {
        None
    };
    let warnings = rd.strings(warning_count, "warnings")?;
    rd.finish()?;
    let corrupt = |reason| id.corrupt(reason);
    let images = images(image_names, &sizes, &pixels).map_err(corrupt)?;
    let mut warnings = warnings.into_iter();
    let mut materials = Vec::with_capacity(names.len());
    for (i, name) in names.into_iter().enumerate() {
        let at = |reason: String| corrupt(format!("material {i}: {reason}"));
        let [alpha, double_sided, warning_count, reserved] = flags[i];
        let alpha = match alpha {
            0 => AlphaMode::Opaque,
            1 => AlphaMode::Mask(params[i][1]),
            2 => AlphaMode::Blend,
            other => return Err(at(format!("alpha mode {other}, not 0, 1 or 2"))),
        };
        let double_sided = match double_sided {
            0 => false,
            1 => true,
            other => return Err(at(format!("double-sided flag {other}, not 0 or 1"))),
        };
        if reserved != 0 || params[i][2] != 0.0 || params[i][3] != 0.0 {
            return Err(at("reserved words are not zero".into()));
        }
        let material_warnings: Vec<String> =
            warnings.by_ref().take(warning_count as usize).collect();
        if material_warnings.len() != warning_count as usize {
            return Err(at(format!("{warning_count} warnings run past the table")));
        }
        let mut material = Material {
            name,
            base_color: colors[i],
            base_color_texture: texture(base[i], &images)
                .map_err(|e| at(format!("base colour texture: {e}")))?,
            normal_texture: texture(normal[i], &images)
                .map_err(|e| at(format!("normal texture: {e}")))?,
            normal_scale: params[i][0],
            alpha,
            double_sided,
            warnings: material_warnings,
            ..Material::default()
        };
        if let Some(pbr) = &pbr {
            pbr.apply(i, &mut material, &images).map_err(at)?;
        }
        materials.push(Arc::new(material));
    }
    if warnings.next().is_some() {
        return Err(corrupt(format!(
            "{warning_count} warnings, more than the materials name"
        )));
    }
    Ok(materials)
}

/// The version 7 words of every material: factors and textures of the metallic-roughness model.
struct PbrWords {
    /// Metallic, roughness, occlusion strength, 0.
    factors: Vec<[f32; 4]>,
    /// Emissive rgb, 0.
    emissive: Vec<[f32; 4]>,
    metallic_roughness: Vec<[u32; 4]>,
    occlusion: Vec<[u32; 4]>,
    emissive_textures: Vec<[u32; 4]>,
}

impl PbrWords {
    /// Sets material `i`'s metallic-roughness fields from its words: factors in `[0, 1]`,
    /// reserved words zero, textures naming stored images.
    fn apply(
        &self,
        i: usize,
        material: &mut Material,
        images: &[Arc<MaterialImage>],
    ) -> Result<(), String> {
        let [metallic, roughness, occlusion_strength, reserved] = self.factors[i];
        let [r, g, b, reserved_emissive] = self.emissive[i];
        if reserved != 0.0 || reserved_emissive != 0.0 {
            return Err("reserved metallic-roughness words are not zero".into());
        }
        let factors = [
            ("metallic", metallic),
            ("roughness", roughness),
            ("occlusion strength", occlusion_strength),
            ("emissive red", r),
            ("emissive green", g),
            ("emissive blue", b),
        ];
        if let Some((what, v)) = factors.iter().find(|(_, v)| !(0.0..=1.0).contains(v)) {
            return Err(format!("{what} factor {v} is not in [0, 1]"));
        }
        material.metallic = metallic;
        material.roughness = roughness;
        material.occlusion_strength = occlusion_strength;
        material.emissive = [r, g, b];
        material.metallic_roughness_texture = texture(self.metallic_roughness[i], images)
            .map_err(|e| format!("metallic-roughness texture: {e}"))?;
        material.occlusion_texture =
            texture(self.occlusion[i], images).map_err(|e| format!("occlusion texture: {e}"))?;
        material.emissive_texture = texture(self.emissive_textures[i], images)
            .map_err(|e| format!("emissive texture: {e}"))?;
        Ok(())
    }
}

/// The images, each `width × height × 4` bytes of `pixels`, back to back.
fn images(
    names: Vec<String>,
    sizes: &[[u32; 4]],
    pixels: &[u8],
) -> Result<Vec<Arc<MaterialImage>>, String> {
    let mut rest = pixels;
    let mut images = Vec::with_capacity(names.len());
    for (i, (name, &[width, height, a, b])) in names.into_iter().zip(sizes).enumerate() {
        if a != 0 || b != 0 {
            return Err(format!("image {i}: reserved words are not zero"));
        }
        let len = (width as usize)
            .checked_mul(height as usize)
            .and_then(|n| n.checked_mul(4))
            .filter(|&n| n <= rest.len() && n > 0)
            .ok_or_else(|| {
                format!(
                    "image {i}: {width}×{height} pixels is empty or runs past the {} pixel bytes",
                    pixels.len()
                )
            })?;
        let (these, tail) = rest.split_at(len);
        rest = tail;
        images.push(Arc::new(MaterialImage {
            name,
            width,
            height,
            rgba8: these.to_vec(),
        }));
    }
    if !rest.is_empty() {
        return Err(format!("{} pixel bytes belong to no image", rest.len()));
    }
    Ok(images)
}

/// A texture from its stored words (image `NO_INDEX`: none).
fn texture(
    [image, sampler, uv_set, reserved]: [u32; 4],
    images: &[Arc<MaterialImage>],
) -> Result<Option<TextureRef>, String> {
    if image == NO_INDEX {
        return match [sampler, uv_set, reserved] {
            [0, 0, 0] => Ok(None),
            _ => Err("no image but sampler words are not zero".into()),
        };
    }
    let image = images
        .get(image as usize)
        .ok_or_else(|| format!("image {image} of {}", images.len()))?;
    let sampler = sampler_from(sampler).ok_or_else(|| format!("sampler bits {sampler:#x}"))?;
    if uv_set > 1 || reserved != 0 {
        return Err(format!(
            "UV set {uv_set} (0 or 1) or reserved word {reserved}"
        ));
    }
    Ok(Some(TextureRef {
        image: image.clone(),
        sampler,
        uv_set,
    }))
}
