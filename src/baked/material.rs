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

/// A texture a material reads: its image, sampler, UV set and the transform of its UVs.
#[derive(Clone, Debug, PartialEq)]
pub struct TextureRef {
    /// The decoded image.
    pub image: Arc<MaterialImage>,
    /// How it is sampled.
    pub sampler: Sampler,
    /// The UV set (`TEXCOORD_0` or `TEXCOORD_1`).
    pub uv_set: u32,
    /// How the UVs are moved before sampling (glTF's `KHR_texture_transform`; identity
    /// without it).
    pub transform: UvTransform,
}

/// An affine transform of texture coordinates, as glTF's `KHR_texture_transform` gives it:
/// `uv' = T(offset) × R(rotation) × S(scale) × uv`, the rotation in radians counter-clockwise
/// in UV space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UvTransform {
    /// Where the UV origin moves, in texture sizes.
    pub offset: [f32; 2],
    /// Rotation in radians.
    pub rotation: f32,
    /// Scale of each coordinate.
    pub scale: [f32; 2],
}

impl UvTransform {
    /// The transform that leaves UVs as they are.
    pub const IDENTITY: Self = Self {
        offset: [0.0, 0.0],
        rotation: 0.0,
        scale: [1.0, 1.0],
    };

    /// The two rows of the transform's 3×3 matrix that are not `(0, 0, 1)`: `u' = r0 · (u, v,
    /// 1)`, `v' = r1 · (u, v, 1)`.
    pub fn rows(&self) -> [[f32; 3]; 2] {
        let (sin, cos) = self.rotation.sin_cos();
        let [sx, sy] = self.scale;
        let [ox, oy] = self.offset;
        [[cos * sx, sin * sy, ox], [-sin * sx, cos * sy, oy]]
    }

    /// `uv` transformed.
    pub fn apply(&self, uv: [f32; 2]) -> [f32; 2] {
        let [r0, r1] = self.rows();
        let at = |r: [f32; 3]| r[0] * uv[0] + r[1] * uv[1] + r[2];
        [at(r0), at(r1)]
    }
}

impl Default for UvTransform {
    fn default() -> Self {
        Self::IDENTITY
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The extension's own example: the lower left quadrant of the image, turned clockwise by
    /// a quarter turn.
    #[test]
    fn the_specification_example_maps_the_unit_square_to_the_lower_left_quadrant() {
        let t = UvTransform {
            offset: [0.0, 1.0],
            rotation: std::f32::consts::FRAC_PI_2,
            scale: [0.5, 0.5],
        };
        let corners = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
        let expected = [[0.0, 1.0], [0.0, 0.5], [0.5, 0.5], [0.5, 1.0]];
        for (uv, want) in corners.into_iter().zip(expected) {
            let got = t.apply(uv);
            assert!(
                (got[0] - want[0]).abs() < 1e-6 && (got[1] - want[1]).abs() < 1e-6,
                "{uv:?} -> {got:?}, expected {want:?}"
            );
        }
        assert_eq!(UvTransform::IDENTITY.apply([0.25, 0.75]), [0.25, 0.75]);
    }
}
