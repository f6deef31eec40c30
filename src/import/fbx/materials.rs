//! FBX materials → [`Material`]s, as the tool that wrote the file shows them: ufbx's PBR
//! mapping of the material (`pbr`) where it has a value, else the classic FBX fields (`fbx`).
//!
//! - Base colour: `pbr.base_color × pbr.base_factor`, else `fbx.diffuse_color ×
//!   fbx.diffuse_factor`, else white; its texture from the same maps.
//! - Opacity: `pbr.opacity`, else the material's `Opacity` property, else one minus
//!   `TransparencyFactor` × the mean of `TransparentColor` (white when absent); below one, or
//!   with an opacity texture, the material blends. The alpha drawn is the base colour's (an
//!   opacity texture of another image than the base colour's is not drawn, with a warning).
//! - Normal map: `pbr.normal_map`, else `fbx.normal_map`, else a `fbx.bump` texture whose image
//!   is coloured (a grey bump image is a height map, which sinew does not draw).
//! - Metalness and roughness: `pbr.metalness` and `pbr.roughness` where the shader gives them
//!   (ufbx derives a Phong material's roughness from its shininess), else not metallic and
//!   fully rough (a Lambert material); their textures are separate images in FBX, not glTF's
//!   packed one, and are not read.
//! - Emissive: `pbr.emission_color × pbr.emission_factor` (else the classic fields), its
//!   texture in place of the colour; occlusion: `pbr.ambient_occlusion`'s texture.
//! - Textures: the embedded content, else a file found from the FBX file's folder (the
//!   relative path, the absolute path, then the file's name beside the FBX file); wrap modes
//!   from the texture; the texture's UV set name mapped to the mesh's UV set index (an unknown
//!   or empty name reads set 0); its UV transform as a [`UvTransform`] (`uv_transform.rs`; one
//!   glTF cannot express is left out with a warning); a layered texture draws its first file's
//!   image.
//!
//! As for glTF, bad texture data never fails the import: a texture that cannot be found or
//! decoded, reads a UV set other than 0 and 1, or is procedural is dropped with a reason in
//! [`Material::warnings`] (the factors stay). Each image is decoded once.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::uv_transform::uv_transform;
use crate::import::materials::decode_image;
use crate::import::{AlphaMode, Material, MaterialImage, Sampler, TextureRef, UvTransform, Wrap};

/// Opacity below this draws blended.
const OPAQUE: f32 = 1.0 - 1e-4;

/// Which decoded image a texture reads: a texture file of the scene (ufbx merges textures of
/// one file) or a texture without one.
#[derive(Clone, Copy, Hash, PartialEq, Eq)]
enum ImageKey {
    File(u32),
    Texture(u32),
}

/// The materials of one FBX file, each made once per UV set mapping, and their images, each
/// decoded once.
pub(super) struct Materials<'a> {
    /// The FBX file's folder, where external textures are looked for.
    base: Option<&'a Path>,
    images: HashMap<ImageKey, Result<Arc<MaterialImage>, String>>,
    /// By material element and the UV sets its textures read.
    made: HashMap<(u32, [u32; 4]), Arc<Material>>,
}

/// The textures a material reads, each with its UV set in one mesh.
struct Slots<'t> {
    base: Option<Slot<'t>>,
    normal: Option<Slot<'t>>,
    emissive: Option<Slot<'t>>,
    occlusion: Option<Slot<'t>>,
}

/// A texture a material reads, with the UV set index it has in one mesh.
struct Slot<'t> {
    texture: &'t ufbx::Texture,
    uv_set: u32,
}

impl<'a> Materials<'a> {
    pub(super) fn new(base: Option<&'a Path>) -> Self {
        Self {
            base,
            images: HashMap::new(),
            made: HashMap::new(),
        }
    }

    /// `material` as drawn on `mesh`: its textures read the UV sets they name in `mesh`.
    pub(super) fn get(&mut self, material: &ufbx::Material, mesh: &ufbx::Mesh) -> Arc<Material> {
        let slots = Slots {
            base: base_color_texture(material).map(|t| slot(t, mesh)),
            normal: normal_texture(material).map(|t| slot(t, mesh)),
            emissive: emissive_texture(material).map(|t| slot(t, mesh)),
            occlusion: map_texture(&material.pbr.ambient_occlusion).map(|t| slot(t, mesh)),
        };
        let key = (
            material.element.element_id,
            [
                &slots.base,
                &slots.normal,
                &slots.emissive,
                &slots.occlusion,
            ]
            .map(|s| s.as_ref().map_or(0, |s| s.uv_set)),
        );
        if let Some(made) = self.made.get(&key) {
            return made.clone();
        }
        let made = Arc::new(self.make(material, slots));
        self.made.insert(key, made.clone());
        made
    }

    fn make(&mut self, material: &ufbx::Material, slots: Slots<'_>) -> Material {
        let name = super::name_or(&material.element, || {
            format!("material{}", material.element.typed_id)
        });
        let mut out = Material {
            name,
            base_color: base_color(material),
            metallic: unit(value(&material.pbr.metalness), 0.0),
            roughness: unit(value(&material.pbr.roughness), 1.0),
            emissive: emissive(material),
            // FBX has no standard double-sided flag; some shaders declare one.
            double_sided: material.features.double_sided.enabled,
            ..Material::default()
        };
        let opacity_texture = opacity_texture(material);
        if let Some(slot) = slots.base {
            match self.texture_ref(&slot) {
                Ok(t) => out.base_color_texture = Some(t),
                Err(e) => out.warnings.push(format!("base colour texture: {e}")),
            }
            uv_transform_warning(&mut out, slot.texture, "base colour");
        }
        if let Some(opacity) = opacity_texture {
            // The texture's alpha, not the scalar, gives the opacity.
            out.base_color[3] = 1.0;
            let file = |t| file_texture(t).unwrap_or(t);
            let same = base_color_texture(material)
                .is_some_and(|b| image_key(file(b)) == image_key(file(opacity)));
            if !same {
                out.warnings.push(format!(
                    "opacity texture {}: not drawn (alpha comes from the base colour texture)",
                    texture_path(opacity)
                ));
            }
        }
        if out.base_color[3] < OPAQUE || opacity_texture.is_some() {
            out.alpha = AlphaMode::Blend;
        }
        if let Some(slot) = slots.normal {
            let bump = normal_map(material).is_none();
            match self.texture_ref(&slot) {
                Ok(t) if bump && is_grey(&t.image) => out.warnings.push(format!(
                    "bump texture {}: a height map, not drawn (only normal maps are)",
                    texture_path(slot.texture)
                )),
                Ok(t) => out.normal_texture = Some(t),
                Err(e) => out.warnings.push(format!("normal texture: {e}")),
            }
            uv_transform_warning(&mut out, slot.texture, "normal");
        }
        if let Some(slot) = slots.emissive {
            match self.texture_ref(&slot) {
                Ok(t) => {
                    // The texture takes the colour's place; the factor stays.
                    out.emissive = [emission_factor(material); 3];
                    out.emissive_texture = Some(t);
                }
                Err(e) => out.warnings.push(format!("emissive texture: {e}")),
            }
            uv_transform_warning(&mut out, slot.texture, "emissive");
        }
        if let Some(slot) = slots.occlusion {
            match self.texture_ref(&slot) {
                Ok(t) => out.occlusion_texture = Some(t),
                Err(e) => out.warnings.push(format!("occlusion texture: {e}")),
            }
            uv_transform_warning(&mut out, slot.texture, "occlusion");
        }
        out
    }

    /// A texture's decoded image (decoded once), sampler and UV set, or why it is dropped.
    fn texture_ref(&mut self, slot: &Slot<'_>) -> Result<TextureRef, String> {
        let texture = file_texture(slot.texture).ok_or_else(|| {
            format!(
                "{}: a {:?} texture without a file, not drawn",
                texture_name(slot.texture),
                slot.texture.type_
            )
        })?;
        if slot.uv_set > 1 {
            return Err(format!(
                "{}: UV set {} ({:?}) is not read (only the first two)",
                texture_path(texture),
                slot.uv_set,
                texture.uv_set.as_ref() as &str
            ));
        }
        let base = self.base;
        let image = self
            .images
            .entry(image_key(texture))
            .or_insert_with(|| load(texture, base).map(Arc::new))
            .clone()?;
        let wrap = |w: ufbx::WrapMode| match w {
            ufbx::WrapMode::Repeat => Wrap::Repeat,
            ufbx::WrapMode::Clamp => Wrap::ClampToEdge,
        };
        Ok(TextureRef {
            image,
            sampler: Sampler {
                wrap_u: wrap(texture.wrap_u),
                wrap_v: wrap(texture.wrap_v),
                ..Sampler::default()
            },
            uv_set: slot.uv_set,
            transform: uv_transform(texture).unwrap_or(UvTransform::IDENTITY),
        })
    }
}

/// Notes why `texture`'s UV transform is not applied, where it cannot be.
fn uv_transform_warning(out: &mut Material, texture: &ufbx::Texture, what: &str) {
    let texture = file_texture(texture).unwrap_or(texture);
    if let Err(why) = uv_transform(texture) {
        out.warnings.push(format!(
            "{what} texture {}: its UV transform is not applied: {why}",
            texture_path(texture)
        ));
    }
}

/// The texture of a material map, when it has one and it is enabled.
fn map_texture(map: &ufbx::MaterialMap) -> Option<&ufbx::Texture> {
    map.texture.as_deref().filter(|_| map.texture_enabled)
}

fn base_color_texture(m: &ufbx::Material) -> Option<&ufbx::Texture> {
    map_texture(&m.pbr.base_color).or_else(|| map_texture(&m.fbx.diffuse_color))
}

/// The normal map, without the bump fallback.
fn normal_map(m: &ufbx::Material) -> Option<&ufbx::Texture> {
    map_texture(&m.pbr.normal_map).or_else(|| map_texture(&m.fbx.normal_map))
}

fn normal_texture(m: &ufbx::Material) -> Option<&ufbx::Texture> {
    normal_map(m).or_else(|| map_texture(&m.fbx.bump))
}

fn emissive_texture(m: &ufbx::Material) -> Option<&ufbx::Texture> {
    map_texture(&m.pbr.emission_color).or_else(|| map_texture(&m.fbx.emission_color))
}

/// The emissive colour's maps: PBR where it has a colour, else classic.
fn emission_maps(m: &ufbx::Material) -> (&ufbx::MaterialMap, &ufbx::MaterialMap) {
    if m.pbr.emission_color.has_value {
        (&m.pbr.emission_color, &m.pbr.emission_factor)
    } else {
        (&m.fbx.emission_color, &m.fbx.emission_factor)
    }
}

/// The emissive factor (ufbx sets it to one where only a colour is given).
fn emission_factor(m: &ufbx::Material) -> f32 {
    unit(Some(emission_maps(m).1.value_vec4.x), 0.0)
}

/// Linear emitted colour: colour × factor, finite, in `[0, 1]`; black where the file gives
/// none.
fn emissive(m: &ufbx::Material) -> [f32; 3] {
    let (color, _) = emission_maps(m);
    if !color.has_value {
        return [0.0; 3];
    }
    let c = color.value_vec4;
    let factor = emission_factor(m);
    [c.x, c.y, c.z].map(|v| unit(Some(v), 0.0) * factor)
}

/// A value clamped to `[0, 1]`, or `default` where absent or not finite.
fn unit(v: Option<f64>, default: f32) -> f32 {
    v.filter(|v| v.is_finite())
        .map_or(default, |v| (v as f32).clamp(0.0, 1.0))
}

fn opacity_texture(m: &ufbx::Material) -> Option<&ufbx::Texture> {
    map_texture(&m.pbr.opacity)
        .or_else(|| map_texture(&m.fbx.transparency_factor))
        .or_else(|| map_texture(&m.fbx.transparency_color))
}

/// A scalar map's value, when the file gives it.
fn value(map: &ufbx::MaterialMap) -> Option<f64> {
    map.has_value.then_some(map.value_vec4.x)
}

/// Linear RGBA: the base colour times its factor, alpha the opacity; finite, in `[0, 1]`.
fn base_color(m: &ufbx::Material) -> [f32; 4] {
    let (color, factor) = if m.pbr.base_color.has_value {
        (Some(&m.pbr.base_color), &m.pbr.base_factor)
    } else if m.fbx.diffuse_color.has_value {
        (Some(&m.fbx.diffuse_color), &m.fbx.diffuse_factor)
    } else {
        (None, &m.fbx.diffuse_factor)
    };
    let rgb = color.map_or([1.0; 3], |c| {
        [c.value_vec4.x, c.value_vec4.y, c.value_vec4.z]
    });
    let factor = value(factor).unwrap_or(1.0);
    let [r, g, b] = rgb.map(|c| c * factor);
    [r, g, b, opacity(m)].map(|v| {
        if v.is_finite() {
            (v as f32).clamp(0.0, 1.0)
        } else {
            1.0
        }
    })
}

/// The material's scalar opacity (see the module documentation).
fn opacity(m: &ufbx::Material) -> f64 {
    if let Some(o) = value(&m.pbr.opacity) {
        return o;
    }
    if let Some(p) = m.element.props.find_prop("Opacity") {
        return p.value_vec4.x;
    }
    let color = &m.fbx.transparency_color;
    let tint = if color.has_value {
        let c = color.value_vec4;
        (c.x + c.y + c.z) / 3.0
    } else {
        1.0
    };
    // ufbx sets the factor to one where only the colour is given.
    1.0 - m.fbx.transparency_factor.value_vec4.x * tint
}

/// The texture with the image: itself for a file texture, else the first file texture of a
/// layered one; `None` for procedural and shader textures without a file.
fn file_texture(t: &ufbx::Texture) -> Option<&ufbx::Texture> {
    if t.type_ == ufbx::TextureType::File {
        return Some(t);
    }
    t.file_textures.first().map(|f| &**f)
}

fn image_key(t: &ufbx::Texture) -> ImageKey {
    if t.has_file {
        ImageKey::File(t.file_index)
    } else {
        ImageKey::Texture(t.element.element_id)
    }
}

/// `texture` with its UV set index in `mesh`: the set of the name it gives, else 0.
fn slot<'t>(texture: &'t ufbx::Texture, mesh: &ufbx::Mesh) -> Slot<'t> {
    let name: &str = &texture.uv_set;
    let uv_set = mesh
        .uv_sets
        .iter()
        .position(|s| !name.is_empty() && s.name.as_ref() as &str == name)
        .map_or(0, |i| i as u32);
    Slot { texture, uv_set }
}

fn texture_name(t: &ufbx::Texture) -> String {
    super::name_or(&t.element, || format!("texture{}", t.element.typed_id))
}

/// The path a texture names (relative, else absolute), or its name.
fn texture_path(t: &ufbx::Texture) -> String {
    [&t.relative_filename, &t.absolute_filename, &t.filename]
        .into_iter()
        .map(|s| s.as_ref() as &str)
        .find(|s| !s.is_empty())
        .map_or_else(|| texture_name(t), |s| format!("{s:?}"))
}

/// A path as the file wrote it, with either separator.
fn native(path: &str) -> PathBuf {
    PathBuf::from(path.replace('\\', "/"))
}

/// Whether `path` is absolute here or on Windows (a drive letter or a network share): such a
/// path is never joined to the FBX file's folder.
fn is_absolute(path: &str) -> bool {
    let b = path.as_bytes();
    native(path).is_absolute()
        || path.starts_with("\\\\")
        || (b.len() > 2
            && b[0].is_ascii_alphabetic()
            && b[1] == b':'
            && matches!(b[2], b'/' | b'\\'))
}

/// The places a texture file may be, in order: its relative path from `base`, its absolute
/// path, ufbx's resolved path, and its file name beside the FBX file.
fn candidates(t: &ufbx::Texture, base: Option<&Path>) -> Vec<PathBuf> {
    let (relative, absolute, resolved): (&str, &str, &str) =
        (&t.relative_filename, &t.absolute_filename, &t.filename);
    let mut out = Vec::new();
    let mut push = |p: PathBuf| {
        if !out.contains(&p) {
            out.push(p);
        }
    };
    let beside = |p: &str| match base {
        Some(base) => base.join(native(p)),
        None => native(p),
    };
    for path in [relative, absolute, resolved] {
        if path.is_empty() {
            continue;
        }
        push(if is_absolute(path) {
            native(path)
        } else {
            beside(path)
        });
    }
    for path in [relative, absolute, resolved] {
        if let Some(file) = path.rsplit(['/', '\\']).next().filter(|f| !f.is_empty()) {
            push(beside(file));
        }
    }
    out
}

/// A texture's image: its embedded content, else the first of its [`candidates`] that
/// exists.
fn load(t: &ufbx::Texture, base: Option<&Path>) -> Result<MaterialImage, String> {
    let shown = texture_path(t);
    let name = [&t.relative_filename, &t.absolute_filename, &t.filename]
        .into_iter()
        .filter_map(|s| (s.as_ref() as &str).rsplit(['/', '\\']).next())
        .find(|s| !s.is_empty())
        .map_or_else(|| texture_name(t), str::to_string);
    if !t.content.is_empty() {
        return decode_image(name, &t.content).map_err(|e| format!("{shown} (embedded): {e}"));
    }
    let tried = candidates(t, base);
    let Some(path) = tried.iter().find(|p| p.is_file()) else {
        let list: Vec<String> = tried.iter().map(|p| p.display().to_string()).collect();
        return Err(format!(
            "{shown}: no such file (looked for {})",
            if list.is_empty() {
                "no path given".to_string()
            } else {
                list.join(", ")
            }
        ));
    };
    let bytes =
        std::fs::read(path).map_err(|e| format!("{shown}: cannot read {}: {e}", path.display()))?;
    decode_image(name, &bytes).map_err(|e| format!("{shown} ({}): {e}", path.display()))
}

/// Whether every texel's red, green and blue are equal (a height map, not a normal map).
fn is_grey(image: &MaterialImage) -> bool {
    image
        .rgba8
        .chunks_exact(4)
        .all(|p| p[0] == p[1] && p[1] == p[2])
}
