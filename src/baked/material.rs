//! A mesh's material as sinew draws it: glTF's metallic-roughness model (base colour, metallic
//! and roughness factors and textures, occlusion, emissive), alpha mode, normal map,
//! double-sidedness; images shared as 8-bit RGBA.

use std::sync::Arc;

/// An image decoded to 8-bit RGBA (sRGB for base and emissive colours, linear for
/// metallic-roughness, occlusion and normal maps).
#[derive(Clone, PartialEq, Eq)]
pub struct MaterialImage {
    /// The image's name, or `image<i>`.
    pub name: String,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width × height × 4` bytes, rows top to bottom.
    pub rgba8: Vec<u8>,
}

impl std::fmt::Debug for MaterialImage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "MaterialImage({:?}, {}×{})",
            self.name, self.width, self.height
        )
    }
}

/// How a texture repeats outside `[0, 1]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Wrap {
    /// Repeat (glTF's default).
    #[default]
    Repeat,
    /// Repeat, mirrored every other time.
    MirroredRepeat,
    /// Clamp to the edge texel.
    ClampToEdge,
}

/// A glTF sampler: filters and wrap modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sampler {
    /// Magnification filter: linear (else nearest).
    pub mag_linear: bool,
    /// Minification filter: linear (else nearest).
    pub min_linear: bool,
    /// Wrap along u.
    pub wrap_u: Wrap,
    /// Wrap along v.
    pub wrap_v: Wrap,
}

impl Default for Sampler {
    /// Linear filtering, repeating (what glTF leaves to the implementation, as three.js does).
    fn default() -> Self {
        Self {
            mag_linear: true,
            min_linear: true,
            wrap_u: Wrap::Repeat,
            wrap_v: Wrap::Repeat,
        }
    }
}

/// A texture a material reads: its image, sampler and UV set.
#[derive(Clone, Debug, PartialEq)]
pub struct TextureRef {
    /// The decoded image.
    pub image: Arc<MaterialImage>,
    /// How it is sampled.
    pub sampler: Sampler,
    /// The UV set (`TEXCOORD_0` or `TEXCOORD_1`).
    pub uv_set: u32,
}

/// How a material's alpha is used.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum AlphaMode {
    /// Alpha is ignored.
    #[default]
    Opaque,
    /// Fragments with alpha below the cutoff are discarded.
    Mask(f32),
    /// Blended over what is behind (drawn after the opaque meshes).
    Blend,
}

/// One glTF material, as far as sinew draws it.
#[derive(Clone, Debug, PartialEq)]
pub struct Material {
    /// The material's name, or `material<i>`.
    pub name: String,
    /// Linear RGBA multiplied with the texture and the vertex colours.
    pub base_color: [f32; 4],
    /// The base colour texture (sRGB).
    pub base_color_texture: Option<TextureRef>,
    /// Metalness in `[0, 1]`, multiplied with the metallic-roughness texture's blue channel.
    pub metallic: f32,
    /// Perceptual roughness in `[0, 1]`, multiplied with the metallic-roughness texture's
    /// green channel.
    pub roughness: f32,
    /// The metallic-roughness texture (linear: blue metalness, green roughness).
    pub metallic_roughness_texture: Option<TextureRef>,
    /// The occlusion texture (linear, red channel), darkening the ambient light only.
    pub occlusion_texture: Option<TextureRef>,
    /// How much of the occlusion applies: `1 + strength × (texture − 1)`.
    pub occlusion_strength: f32,
    /// Emitted colour (linear rgb), multiplied with the emissive texture.
    pub emissive: [f32; 3],
    /// The emissive texture (sRGB).
    pub emissive_texture: Option<TextureRef>,
    /// The tangent-space normal map (drawn where the mesh has tangents).
    pub normal_texture: Option<TextureRef>,
    /// The normal map's scale.
    pub normal_scale: f32,
    /// Opaque, masked or blended.
    pub alpha: AlphaMode,
    /// Whether back faces are drawn lit as front faces.
    pub double_sided: bool,
    /// Textures dropped and why (an unreadable or undecodable image, an unsupported UV set).
    pub warnings: Vec<String>,
}

impl Material {
    /// Every texture slot, in the order sinew binds and stores them: base colour, normal,
    /// metallic-roughness, occlusion, emissive.
    pub fn textures(&self) -> [Option<&TextureRef>; 5] {
        [
            self.base_color_texture.as_ref(),
            self.normal_texture.as_ref(),
            self.metallic_roughness_texture.as_ref(),
            self.occlusion_texture.as_ref(),
            self.emissive_texture.as_ref(),
        ]
    }
}

impl Default for Material {
    /// glTF's default material: white, fully metallic and rough, not emissive, opaque, no
    /// textures.
    fn default() -> Self {
        Self {
            name: String::new(),
            base_color: [1.0; 4],
            base_color_texture: None,
            metallic: 1.0,
            roughness: 1.0,
            metallic_roughness_texture: None,
            occlusion_texture: None,
            occlusion_strength: 1.0,
            emissive: [0.0; 3],
            emissive_texture: None,
            normal_texture: None,
            normal_scale: 1.0,
            alpha: AlphaMode::Opaque,
            double_sided: false,
            warnings: Vec::new(),
        }
    }
}
